#pragma once

#include "runinfo.h"

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

private:
    RunColors *m_colors;
};

} // namespace trainyard
