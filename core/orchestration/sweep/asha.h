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
    int rung = -1; ///< the rung the decision is about (ASHA), -1 otherwise
    /// For the card and details: "rung 3 (epoch 9): valid/mrr 0.214 below 0.238, the top third of 7"
    /// (rungs count from 1 there, as in the progress line; `rung` from 0).
    QString reason;
};

/// Asynchronous successive halving (Li et al., "A System for Massively
/// Parallel Hyperparameter Tuning", MLSys 2020), without processes or Qt
/// objects: rungs at min * eta^k up to max. A trial that reaches a rung is
/// recorded there; it goes on when it is in the top 1/eta of the values
/// recorded at that rung so far, else it pauses. A freed slot goes first to
/// the best paused trial that the rung's records now promote.
/// Trials are numbered by the sweep (0-based); a failed trial is out of the
/// search (never promoted, never counted as a best).
///
/// Precisely:
/// - A report at `resource` records the trial, with that value, at every rung
///   r_k <= resource it is not recorded at yet (so the value at a rung is the
///   one of its first report at or past it). The decision is taken at the
///   highest rung it just reached, of n records: it continues when it ranks
///   within the top floor(n / eta) there, else it pauses at that rung. A report
///   that reaches no new rung continues (a paused trial's stays paused).
///   At the last rung (max) there is no decision: it continues to the end.
/// - Ranks: by value in the objective's mode; equal values rank by the order
///   recorded (the earlier first); NaN ranks below every number.
/// - promotable(): rung by rung from the highest below the last down to 0 (the
///   paper's get_job), the best paused trial at that rung ranking within its
///   top floor(n / eta); the first rung that has one gives it.
/// - A paused trial reporting past a new rung was resumed without promote():
///   it counts as promoted and is decided at the new rung.
/// - fail(): its records stay, as the measurements they were (they still take
///   their places in the rungs' rankings); it is no longer paused, never
///   promotable, and its later reports are ignored (Stop).
class Asha
{
public:
    /// `resource` names the resource in reasons ("rung 3 (epoch 9): ...").
    Asha(double min, double max, double eta, bool maximize, const QString &objective = QString(),
         const QString &resource = QStringLiteral("epoch"));

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
    struct Record
    {
        int trial;
        double value;
    };
    struct Trial
    {
        int rung = -1;
        bool paused = false;
        bool failed = false;
        QString reason; ///< of the latest decision, repeated while it stays paused
    };
    bool better(double a, double b) const;
    int topCount(int n) const;          ///< floor(n / eta)
    int rankAt(int k, int trial) const; ///< 0 = best; ties: the earlier recorded ranks higher
    QString decisionReason(int k, int trial, int rank, int top) const;

    QList<double> m_rungs;
    double m_eta;
    bool m_maximize;
    QString m_objective;
    QString m_resource;
    QList<QList<Record>> m_records; ///< per rung, in the order recorded
    QHash<int, Trial> m_trials;
};

/// The median stopping rule (Golovin et al., Google Vizier, KDD 2017): past
/// the grace period, a trial stops when its best objective so far is worse
/// than the median of the other trials' running averages at the same resource.
///
/// Precisely, at a report at resource r >= grace: the others counted are the
/// trials that reached r (a report at >= r) and reported at <= r; each gives
/// the mean of its values reported at <= r (NaN values skipped). With none
/// counted it continues. The median of an even count is the mean of the middle
/// two; "worse" is strict. Stopped and failed trials' reports still count for
/// the others; their own later reports answer Stop.
class MedianRule
{
public:
    MedianRule(double grace, bool maximize, const QString &objective = QString(),
               const QString &resource = QStringLiteral("epoch"));
    StopDecision report(int trial, double resource, double value);
    void fail(int trial);

private:
    struct Point
    {
        double resource;
        double value;
    };
    struct Trial
    {
        QList<Point> points; ///< in the order reported
        bool stopped = false;
        bool failed = false;
        QString reason;
    };
    double m_grace;
    bool m_maximize;
    QString m_objective;
    QString m_resource;
    QHash<int, Trial> m_trials;
};

} // namespace trainyard
