#pragma once

#include <QHash>
#include <QList>
#include <QString>

#include <optional>

namespace trainyard {

/// What early stopping says of a trial that reported its objective.
struct StopDecision
{
    enum class Action {
        Continue, ///< train on
        Pause,    ///< ASHA: checkpoint and free the slot at this rung; may be promoted later
        Stop      ///< median rule: ends for good
    };
    Action action = Action::Continue;
    int rung = -1;  ///< the rung the decision is about (ASHA), -1 otherwise
    QString reason; ///< for the card and details: "rung 2: valid/mrr 0.214 < 0.238, the top third"
};

/// Asynchronous successive halving (Li et al., "A System for Massively
/// Parallel Hyperparameter Tuning", MLSys 2020), without processes or Qt
/// objects: rungs at min * eta^k up to max. A trial that reaches a rung is
/// recorded there; it goes on when it is in the top 1/eta of the values
/// recorded at that rung so far, else it pauses. A freed slot goes first to
/// the best paused trial that the rung's records now promote.
/// Trials are numbered by the sweep (0-based); a failed trial is out of the
/// search (never promoted, never counted as a best).
class Asha
{
public:
    Asha(double min, double max, double eta, bool maximize, const QString &objective = QString());

    QList<double> rungs() const; ///< min, min*eta, ... <= max (max itself the last when not on the ladder)
    /// `trial` reported `value` of the objective at `resource` (epochs or
    /// steps). Records it at every rung it reached and not yet recorded;
    /// returns what it should do now.
    StopDecision report(int trial, double resource, double value);
    /// The paused trial a free slot should resume, the best of those now in
    /// the top 1/eta of their rung; nullopt when none.
    std::optional<int> promotable() const;
    /// A paused trial is resumed (by promotable() or by hand): it trains on to the next rung.
    void promote(int trial);
    void fail(int trial);
    bool isPaused(int trial) const;
    int rungOf(int trial) const; ///< the highest rung it was recorded at, -1 if none
    /// The records of rung `k`: trial -> value.
    QHash<int, double> rungRecords(int k) const;

private:
    // implementation's
};

/// The median stopping rule (Golovin et al., Google Vizier, KDD 2017): past
/// the grace period, a trial stops when its best objective so far is worse
/// than the median of the other trials' running averages at the same resource.
class MedianRule
{
public:
    MedianRule(double grace, bool maximize, const QString &objective = QString());
    StopDecision report(int trial, double resource, double value);
    void fail(int trial);
};

} // namespace trainyard
