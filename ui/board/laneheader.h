#pragma once

#include <QPersistentModelIndex>
#include <QWidget>

namespace trainyard {

/// The head of a lane: its title (its name, else its device, numbered when
/// several lanes share one), where its runs really go, slots, and live
/// utilization, memory and temperature with their recent history.
class LaneHeader : public QWidget
{
    Q_OBJECT
public:
    explicit LaneHeader(const QPersistentModelIndex &lane, QWidget *parent = nullptr);

    QSize sizeHint() const override;
    /// The text the header shows, for tests and accessibility.
    QString summary() const;
    /// Its first line: the lane's title ("cpu 2", or its name and device),
    /// and where its runs really go when that is another device.
    QString title() const;

Q_SIGNALS:
    void contextMenuRequested(int lane, const QPoint &globalPos);

protected:
    void paintEvent(QPaintEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;

private:
    QPersistentModelIndex m_lane;
};

} // namespace trainyard
