#pragma once

#include "records/runinfo.h"

#include <QCoreApplication>
#include <QString>
#include <QVector>

namespace trainyard {

class MetricSeries;

/// What a run card shows besides the run's own fields: its state's name, its
/// progress, the sparkline of its loss and its tooltip. Shared by the board
/// model's roles and whoever else describes a card.
class CardText
{
    Q_DECLARE_TR_FUNCTIONS(CardText)
public:
    /// The state's name; "held" for a queued run waiting for its own Start
    /// (the dispatcher leaves it).
    static QString stateName(const RunInfo &run);
    /// How far it is in [0, 1] (runProgress: steps or time budget; 1 once finished), -1 when unknown.
    static double progress(const RunInfo &run);
    /// The whole of `series` in at most 48 bins (the mean of each, NaNs left
    /// out): the card's sparkline. Empty for no series.
    static QVector<double> lossHistory(const MetricSeries *series);
    /// Name, state and message, then the hyperparameters its spec sets.
    static QString toolTip(const RunInfo &run);
};

} // namespace trainyard
