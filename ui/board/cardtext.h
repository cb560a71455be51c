#pragma once

#include "orchestration/records/runinfo.h"

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
    /// The card's second line: what it is (the model, a program's script),
    /// where it runs while active (a device, a batch job and its node), the
    /// worker's memory, its place among its repeats.
    static QString detailLine(const RunInfo &run);
    /// The card's third line: why it failed, diverged or was lost (failure()),
    /// else the latest loss and step, else how it ended or why it waits.
    static QString statusLine(const RunInfo &run);
    /// Why a run failed, from its message, first: the last line of
    /// worker.log (a Python traceback's exception) before a bare exit
    /// status ("ZeroDivisionError: division by zero (exit 1)"), else the
    /// message's own first line ("killed by signal 9 (…)").
    static QString failure(const QString &message);
    /// Name, state and message, the card's lines in full, then the
    /// hyperparameters its spec sets.
    static QString toolTip(const RunInfo &run);
};

} // namespace trainyard
