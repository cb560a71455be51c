#pragma once

#include "orchestration/records/runinfo.h"

#include <QStyledItemDelegate>

namespace trainyard {

class RunColors;

/// Paints a run card: colour mark, name, model and device, a state badge,
/// a progress bar with ETA, the latest loss and a loss sparkline.
class CardDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    explicit CardDelegate(RunColors *colors, QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    static QColor stateColor(RunState state);
    /// "1:02:03", "4:05", "12 s"; empty when unknown.
    static QString formatDuration(double seconds);
    /// The text on a card's progress bar: "42% · ETA 3:10" while it trains
    /// (no ETA while paused), "100% · took 9 s" when finished, the time the
    /// worker trained across stops and resumes rather than the last stretch.
    static QString progressText(const RunInfo &run, double progress);

private:
    RunColors *m_colors;
};

} // namespace trainyard
