#pragma once

#include <QPersistentModelIndex>
#include <QWidget>

namespace trainyard {

/// The head of a lane: device name, where its runs really go, slots, and
/// live utilization, memory and temperature with their recent history.
class LaneHeader : public QWidget
{
    Q_OBJECT
public:
    explicit LaneHeader(const QPersistentModelIndex &lane, QWidget *parent = nullptr);

    QSize sizeHint() const override;
    /// The text the header shows, for tests and accessibility.
    QString summary() const;

Q_SIGNALS:
    void contextMenuRequested(int lane, const QPoint &globalPos);

protected:
    void paintEvent(QPaintEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;

private:
    QPersistentModelIndex m_lane;
};

} // namespace trainyard
