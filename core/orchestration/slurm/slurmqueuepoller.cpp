#include "orchestration/slurm/slurmqueuepoller.h"

#include "orchestration/logcategories.h"
#include "orchestration/slurm/slurmcommand.h"

#include <QTimer>

namespace trainyard {

SlurmQueuePoller::SlurmQueuePoller(int pollMs, SlurmCommandRunner &runner, QObject *context, Jobs jobs, Listed listed)
    : m_pollMs(pollMs)
    , m_runner(runner)
    , m_context(context)
    , m_timer(new QTimer(context))
    , m_jobs(std::move(jobs))
    , m_listed(std::move(listed))
{
    m_timer->setInterval(qMax(50, m_pollMs));
    QObject::connect(m_timer, &QTimer::timeout, m_context, [this] { poll(); });
}

void SlurmQueuePoller::keepPolling()
{
    if (!m_timer->isActive()) {
        m_timer->start();
    }
}

void SlurmQueuePoller::stop()
{
    m_timer->stop();
}

void SlurmQueuePoller::pollSoon()
{
    keepPolling();
    QTimer::singleShot(qMin(1000, m_pollMs), m_context, [this] { poll(); });
}

void SlurmQueuePoller::poll()
{
    if (m_polling) {
        return; // one squeue at a time, however slow the controller
    }
    QList<RunId> runs;
    QStringList ids;
    if (!m_jobs(&runs, &ids)) {
        m_timer->stop();
    }
    if (ids.isEmpty()) {
        return;
    }
    m_polling = true;
    ++m_polls;
    const QStringList args{QStringLiteral("--noheader"), QStringLiteral("--states=all"),
                           QStringLiteral("--jobs=%1").arg(ids.join(QLatin1Char(','))),
                           QStringLiteral("--format=%1").arg(QLatin1String(SlurmJob::kSqueueFormat))};
    m_runner.run(QStringLiteral("squeue"), args, {}, {}, m_context, [this, runs, ids](const SlurmCommandResult &r) {
        m_polling = false;
        if (r.ok()) {
            m_listed(runs, ids, SlurmJob::parseSqueue(r.out));
        } else if (r.saysUnknownJob()) {
            // Asked about one job Slurm has forgotten: none is listed.
            m_listed(runs, ids, {});
        } else {
            // The controller is down or slow: the jobs run on; ask again at
            // the next tick.
            qCWarning(lcSlurm, "squeue failed: %s", qUtf8Printable(r.message(QStringLiteral("squeue"))));
        }
    });
}

} // namespace trainyard
