#include "orchestration/supervision/stallwatch.h"

#include "orchestration/logcategories.h"
#include "orchestration/records/runregistry.h"

#include <utility>

namespace trainyard {

StallWatch::StallWatch(RunRegistry *runs, QObject *parent)
    : QObject(parent)
    , m_runs(runs)
{
    connect(&m_timer, &QTimer::timeout, this, &StallWatch::check);
    m_timer.start(500);
}

QString StallWatch::noModuleNote()
{
    return QStringLiteral("no metrics (does not use the trainyard module)");
}

void StallWatch::watch(RunId id, bool fromStart)
{
    Watch &w = m_watches[id];
    w = Watch{};
    w.watched = fromStart;
    w.program = !fromStart;
    w.lastSeen.start();
}

void StallWatch::forget(RunId id)
{
    m_watches.erase(id);
}

void StallWatch::heard(RunId id)
{
    const auto it = m_watches.find(id);
    if (it == m_watches.end()) {
        return;
    }
    it->second.lastSeen.restart();
    it->second.watched = true;
    const bool noted = std::exchange(it->second.noted, false);
    const RunInfo *r = m_runs->find(id);
    if (r && r->state == RunState::Stalled) {
        m_runs->update(id, [](RunInfo &run) {
            run.message.clear();
            run.state = RunState::Running;
        });
    } else if (r && noted && r->message == noModuleNote()) {
        m_runs->update(id, [](RunInfo &run) { run.message.clear(); }); // it uses the module after all
    }
}

void StallWatch::restart(RunId id)
{
    if (const auto it = m_watches.find(id); it != m_watches.end()) {
        it->second.lastSeen.restart();
        it->second.started = true;
    }
}

void StallWatch::setQueued(RunId id, bool queued)
{
    if (const auto it = m_watches.find(id); it != m_watches.end()) {
        it->second.queued = queued;
    }
}

void StallWatch::followed(RunId id, int records, const QString &problem)
{
    const auto it = m_watches.find(id);
    if (it == m_watches.end()) {
        return;
    }
    // While the queue says pending, lines are the previous job's last ones.
    if (records > 0 && !it->second.queued) {
        heard(id);
    }
    Watch &w = it->second;
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return;
    }
    if (!problem.isEmpty()) {
        w.watched = false;
        if (r->state == RunState::Stalled) {
            m_runs->setState(id, RunState::Running, problem);
        } else if (r->message != problem) {
            m_runs->update(id, [&](RunInfo &run) { run.message = problem; });
        }
    } else if (!w.fileProblem.isEmpty() && r->message == w.fileProblem) {
        // A regular file again: the refusal is over.
        m_runs->update(id, [](RunInfo &run) { run.message.clear(); });
    }
    w.fileProblem = problem;
}

void StallWatch::noteSilentPrograms()
{
    // A process that started (a pid: a batch job's submission is no start),
    // is not waiting in a queue, has not ended (it would be forgotten), and
    // has been silent since.
    QList<RunId> silent;
    for (const auto &[id, w] : m_watches) {
        const RunInfo *r = m_runs->find(id);
        if (r && w.program && w.started && !w.watched && !w.queued && r->state == RunState::Starting && r->pid > 0
            && r->jobId.isEmpty() && w.lastSeen.elapsed() >= m_programGraceMs) {
            silent << id;
        }
    }
    for (RunId id : std::as_const(silent)) {
        const auto it = m_watches.find(id);
        if (it == m_watches.end()) {
            continue;
        }
        qCInfo(lcSupervisor, "%s runs without the trainyard module", qUtf8Printable(m_runs->find(id)->name));
        if (m_runs->setState(id, RunState::Running, noModuleNote())) {
            it->second.noted = true;
        }
    }
}

void StallWatch::check()
{
    noteSilentPrograms();
    QList<RunId> stalled; // set after the loop: listeners may start or stop runs
    for (const auto &[id, w] : m_watches) {
        const RunInfo *r = m_runs->find(id);
        if (r && w.watched && !w.queued && (r->state == RunState::Running || r->state == RunState::Starting)
            && w.lastSeen.isValid() && w.lastSeen.elapsed() > m_timeoutMs) {
            stalled << id;
        }
    }
    for (RunId id : std::as_const(stalled)) {
        const auto it = m_watches.find(id);
        const RunInfo *r = m_runs->find(id);
        if (it == m_watches.end() || !r) {
            continue;
        }
        qCInfo(lcSupervisor, "%s stalled", qUtf8Printable(r->name));
        m_runs->setState(id, RunState::Stalled,
                         QStringLiteral("no heartbeat for %1 s").arg(it->second.lastSeen.elapsed() / 1000));
    }
    Q_EMIT checked();
}

} // namespace trainyard
