#pragma once

#include "metrics/runid.h"
#include "orchestration/slurm/slurmjob.h"

#include <QHash>
#include <QList>
#include <QStringList>

#include <functional>

class QObject;
class QTimer;

namespace trainyard {

class SlurmCommandRunner;

// Tracks a SlurmLauncher's jobs with squeue: one call per poll for all of
// them, never two at once however slow the controller, every poll interval
// while the launcher holds jobs and sooner when asked. What the answers
// mean for the runs (pending, running, ended) is the launcher's to say.
class SlurmQueuePoller
{
public:
    // The runs whose jobs to ask about now, with their ids; false when the
    // launcher holds no job at all (the ticks stop).
    using Jobs = std::function<bool(QList<RunId> *runs, QStringList *ids)>;
    // What squeue listed of them; none when Slurm has forgotten the one asked about.
    using Listed =
        std::function<void(const QList<RunId> &runs, const QStringList &ids, const QHash<QString, SlurmJob> &listed)>;

    // `context` (the launcher, which owns `runner`) holds the timer and
    // bounds squeue's answers as it does its other commands'.
    SlurmQueuePoller(int pollMs, SlurmCommandRunner &runner, QObject *context, Jobs jobs, Listed listed);
    SlurmQueuePoller(const SlurmQueuePoller &) = delete;
    SlurmQueuePoller &operator=(const SlurmQueuePoller &) = delete;

    void keepPolling(); // ticks from now on, if it does not already
    void stop();        // no ticks until keepPolling
    // Ticks, and polls soon rather than at the next tick: a cancel or an
    // attach wants an answer.
    void pollSoon();
    int count() const { return m_polls; } // the squeue calls made so far

private:
    void poll();

    int m_pollMs;
    SlurmCommandRunner &m_runner;
    QObject *m_context;
    QTimer *m_timer; // a child of m_context
    Jobs m_jobs;
    Listed m_listed;
    bool m_polling = false;
    int m_polls = 0;
};

} // namespace trainyard
