#pragma once

#include <QPersistentModelIndex>
#include <QWidget>

namespace trainyard {

class RunColors;

/// The head of a lane: its title (its name, else its device, numbered when
/// several lanes share one), where its runs really go, slots, and live
/// utilization, memory and temperature with their recent history; a pool
/// lane a row per GPU instead (gpurows.h), growing with their number.
class LaneHeader : public QWidget
{
    Q_OBJECT
public:
    /// `colors`: the cards' run colours, for a pool's memory bars (may be nullptr).
    explicit LaneHeader(const QPersistentModelIndex &lane, RunColors *colors = nullptr, QWidget *parent = nullptr);

    QSize sizeHint() const override;
    /// The text the header shows, for tests and accessibility.
    QString summary() const;
    /// Its first line: the lane's title ("cpu 2", or its name and device),
    /// and where its runs really go when that is another device.
    QString title() const;
    /// A pool lane's GPUs as text, a line each (gpurows::text); empty for other lanes.
    QStringList gpuRowTexts() const;
    /// Repaints, and takes the height its GPU rows now need.
    void refresh();

Q_SIGNALS:
    void contextMenuRequested(int lane, const QPoint &globalPos);

protected:
    void paintEvent(QPaintEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;

private:
    QFont smallFont() const;

    QPersistentModelIndex m_lane;
    RunColors *m_colors;
    int m_gpuRows = 0; ///< the rows its height was set for
};

} // namespace trainyard
