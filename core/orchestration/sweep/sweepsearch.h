#pragma once

#include "orchestration/experiment/sweepspec.h"
#include "orchestration/records/runinfo.h"
#include "orchestration/sweep/asha.h"
#include "orchestration/sweep/sweeprunner.h"

#include <QList>
#include <QString>

#include <map>
#include <memory>
#include <optional>

namespace trainyard {

class MetricStore;
class RunRegistry;

/// One sweep's search, without processes or Qt objects: its trials (placed
/// ones by index), what early stopping decided of each, and what the
/// trials' objective reports say. The SweepRunner places and stops the
/// runs; this says which and why. A trial's phase comes from its run's
/// record and the sweep's decisions, never stored twice.
class SweepSearch
{
public:
    struct Trial
    {
        int index = -1;
        RunId run = 0;
        QString name; ///< its run folder's name
        int lane = 0;
        bool paused = false, stopped = false;
        bool failed = false; ///< could not be placed, or its run left the board
        QString reason;
        bool replay = false;  ///< placed back at an opening: its points are read back first
        std::size_t seen = 0; ///< objective points read
        quint64 revision = 0;
        double best = qQNaN();
        double resource = -1;
    };
    /// What a report decided: the runner stops `run` with `reason` as its message.
    struct Stop
    {
        RunId run = 0;
        QString reason;
    };

    explicit SweepSearch(const SweepSpec &spec);

    SweepSpec spec;
    bool paused = false;  ///< by hand: no new trials placed
    bool stopped = false; ///< by hand: none placed, the active ones stopped
    bool placing = false; ///< resumed or grown by hand: places trials even while the board does not dispatch

    /// A trial's run spec: the sweep's, trained up to the stopping rule's max.
    QJsonObject trialRunSpec(int index) const;
    Trial *trial(int index);
    const std::map<int, Trial> &placed() const { return m_trials; }
    Trial &place(int index); ///< a new entry (or the one there)
    int nextNew() const;     ///< the first index not placed; -1 when every trial is

    TrialInfo::Phase phase(const Trial &t, const RunRegistry &runs) const;
    QList<TrialInfo> trials(const RunRegistry &runs) const;
    QString progressLine(const RunRegistry &runs) const;
    bool isDone(const RunRegistry &runs) const;

    /// Reads `t`'s objective points since the last look into the rule;
    /// returns the runs to stop (their flags set). False in `changed` when nothing was new.
    QList<Stop> read(Trial &t, const MetricStore &metrics, const RunRegistry &runs, bool *changed);
    /// Its run ended in `state`: a stop nobody decided is by hand, a failure leaves the search.
    void ended(Trial &t, RunState state);
    /// The paused trial a free slot should resume, if any (ASHA).
    std::optional<int> promotion(const RunRegistry &runs);
    void promote(Trial &t); ///< resumed: it trains on to the next rung
    void fail(int index);   ///< out of the search (stopped by hand, taken off the board)

private:
    std::optional<int> lastPromotion(const RunRegistry &runs) const;
    bool better(double a, double b) const { return std::isnan(b) || (spec.maximize ? a > b : a < b); }

    std::unique_ptr<Asha> m_asha;
    std::unique_ptr<MedianRule> m_median;
    std::map<int, Trial> m_trials;
};

} // namespace trainyard
