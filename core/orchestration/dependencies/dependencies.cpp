#include "orchestration/dependencies/dependencies.h"

#include "orchestration/board/board.h"
#include "orchestration/dependencies/sweeptrials.h"
#include "orchestration/records/runregistry.h"

#include <algorithm>
#include <cmath>

namespace trainyard {

namespace {

// "failed: exit 1 …", "was stopped", for a run that ended without finishing.
QString howItEnded(const RunInfo &run)
{
    const QString state = run.state == RunState::Stopped     ? QStringLiteral("was stopped")
                          : run.state == RunState::Cancelled ? QStringLiteral("was cancelled")
                          : run.state == RunState::Lost      ? QStringLiteral("was lost")
                                                             : runStateName(run.state);
    return run.message.isEmpty() ? state : QStringLiteral("%1: %2").arg(state, run.message);
}

} // namespace

Dependencies::Dependencies(Board *board, RunRegistry *runs, QObject *parent)
    : QObject(parent)
    , m_board(board)
    , m_runs(runs)
{
}

QStringList Dependencies::sweepNames() const
{
    QStringList names;
    if (m_sweeps) {
        for (const SweepSpec &sweep : m_sweeps->sweeps()) {
            names << sweep.name;
        }
    }
    return names;
}

DependencyGraph Dependencies::graph(QList<RunId> *ids) const
{
    *ids = m_board->runIds();
    QList<DependencyNode> nodes;
    nodes.reserve(ids->size());
    for (RunId id : std::as_const(*ids)) {
        const RunInfo *r = m_runs->find(id);
        nodes << DependencyNode{r->name, r->group, r->rounds, r->round, r->aggregate, r->sweep, r->after};
    }
    return DependencyGraph(nodes, sweepNames());
}

bool Dependencies::sweepFinished(const QString &sweep) const
{
    if (!m_sweeps || !m_sweeps->isDone(sweep)) {
        return false;
    }
    for (const TrialInfo &t : m_sweeps->trials(sweep)) {
        if (t.phase == TrialInfo::Phase::Finished) {
            return true;
        }
    }
    return false;
}

QString Dependencies::reason(const DependencyGraph &graph, const QList<RunId> &ids, int node) const
{
    QStringList waits;
    QString ended; // the first that ended without finishing, and how
    for (const QString &name : graph.nodes().at(node).after) {
        QList<int> members;
        const DependencyGraph::Kind kind = graph.resolve(name, &members);
        if (kind == DependencyGraph::Kind::None) {
            if (ended.isEmpty()) {
                ended = QStringLiteral("%1, which is not on the board").arg(name);
            }
            continue;
        }
        if (kind == DependencyGraph::Kind::Sweep) {
            if (sweepFinished(name)) {
                continue;
            }
            if (m_sweeps && m_sweeps->isDone(name) && ended.isEmpty()) {
                ended = QStringLiteral("sweep %1, which ended without a finished trial").arg(name);
            }
            waits << QStringLiteral("sweep %1").arg(name);
            continue;
        }
        for (int m : std::as_const(members)) {
            const RunInfo *r = m_runs->find(ids.at(m));
            if (r->state == RunState::Finished) {
                continue;
            }
            waits << r->name;
            if (isTerminal(r->state) && ended.isEmpty()) {
                ended = QStringLiteral("%1, which %2").arg(r->name, howItEnded(*r));
            }
        }
    }
    if (!ended.isEmpty()) {
        return QStringLiteral("waits for %1").arg(ended);
    }
    if (waits.isEmpty()) {
        return {};
    }
    constexpr int kNamed = 3;
    QString text = QStringLiteral("waits for ") + QStringList(waits.mid(0, kNamed)).join(QStringLiteral(", "));
    if (waits.size() > kNamed) {
        text += QStringLiteral(" and %1 more").arg(waits.size() - kNamed);
    }
    return text;
}

void Dependencies::refresh()
{
    bool any = false;
    for (const RunInfo &r : *m_runs) {
        any = any || !r.after.isEmpty() || r.state == RunState::Waiting;
    }
    if (!any) {
        return;
    }
    QList<RunId> ids;
    const DependencyGraph g = graph(&ids);
    for (int i = 0; i < ids.size(); ++i) {
        const RunInfo *r = m_runs->find(ids.at(i));
        if (r->state != RunState::Queued && r->state != RunState::Waiting) {
            continue;
        }
        const QString why = r->after.isEmpty() ? QString() : reason(g, ids, i);
        if (why.isEmpty() && r->state == RunState::Waiting) {
            m_runs->update(ids.at(i), [](RunInfo &run) {
                run.state = RunState::Queued;
                run.message.clear();
            });
        } else if (!why.isEmpty() && (r->state != RunState::Waiting || r->message != why)) {
            m_runs->update(ids.at(i), [&why](RunInfo &run) {
                run.state = RunState::Waiting;
                run.message = why;
            });
        }
    }
}

QList<std::pair<QString, QList<RunId>>> Dependencies::predecessorsByName(RunId id) const
{
    QList<std::pair<QString, QList<RunId>>> out;
    QList<RunId> ids;
    const DependencyGraph g = graph(&ids);
    const int node = int(ids.indexOf(id));
    if (node < 0) {
        return out;
    }
    for (const QString &name : g.nodes().at(node).after) {
        QList<int> members;
        const DependencyGraph::Kind kind = g.resolve(name, &members);
        QList<RunId> runs;
        for (int m : std::as_const(members)) {
            runs << ids.at(m);
        }
        if (kind == DependencyGraph::Kind::Sweep && m_sweeps) {
            // Its finished trials, the best first.
            const SweepSpec *spec = m_sweeps->sweep(name);
            QList<TrialInfo> trials = m_sweeps->trials(name);
            const bool maximize = !spec || spec->maximize;
            std::stable_sort(trials.begin(), trials.end(), [maximize](const TrialInfo &a, const TrialInfo &b) {
                if (std::isnan(a.objective) || std::isnan(b.objective)) {
                    return !std::isnan(a.objective) && std::isnan(b.objective);
                }
                return maximize ? a.objective > b.objective : a.objective < b.objective;
            });
            runs.clear();
            for (const TrialInfo &t : std::as_const(trials)) {
                if (t.phase == TrialInfo::Phase::Finished && t.run != 0) {
                    runs << t.run;
                }
            }
        }
        out.append({name, runs});
    }
    return out;
}

QList<RunId> Dependencies::predecessors(RunId id) const
{
    QList<RunId> out;
    for (const auto &[name, runs] : predecessorsByName(id)) {
        for (RunId r : runs) {
            if (!out.contains(r)) {
                out << r;
            }
        }
    }
    return out;
}

QList<RunId> Dependencies::dependents(RunId id) const
{
    QList<RunId> ids;
    const DependencyGraph g = graph(&ids);
    QList<RunId> out;
    const int node = int(ids.indexOf(id));
    if (node < 0) {
        return out;
    }
    for (int d : g.dependents(node)) {
        out << ids.at(d);
    }
    return out;
}

bool Dependencies::wouldCycle(RunId id, const QString &name) const
{
    QList<RunId> ids;
    const DependencyGraph g = graph(&ids);
    const int node = int(ids.indexOf(id));
    return node >= 0 && g.wouldCycle(node, {name});
}

bool Dependencies::setAfter(RunId id, const QStringList &after, QString *error)
{
    QList<RunId> ids;
    const DependencyGraph g = graph(&ids);
    const int node = int(ids.indexOf(id));
    if (node < 0) {
        return refuse(error, QStringLiteral("no such run"));
    }
    const QString name = g.nodes().at(node).name;
    for (const QString &a : after) {
        if (g.resolve(a) == DependencyGraph::Kind::None) {
            return refuse(
                error, QStringLiteral("%1.after: no run, repeat group, rounds or sweep is named \"%2\"").arg(name, a));
        }
        if (g.wouldCycle(node, {a})) {
            return refuse(
                error,
                QStringLiteral("%1.after: \"%2\" runs after %1 already; they would wait for one another").arg(name, a));
        }
    }
    QStringList unique = after;
    unique.removeDuplicates();
    return m_board->setRunAfter(id, unique, error);
}

QList<std::pair<QString, QString>> Dependencies::groupNames() const
{
    QList<std::pair<QString, QString>> out;
    QStringList seen;
    for (RunId id : m_board->runIds()) {
        const RunInfo *r = m_runs->find(id);
        if (r->repeatCount > 1 && r->group != r->name && !seen.contains(r->group)) {
            seen << r->group;
            out.append({r->group, QStringLiteral("repeat group of %1").arg(r->repeatCount)});
        }
        if (!r->rounds.isEmpty() && !seen.contains(r->rounds)) {
            seen << r->rounds;
            out.append({r->rounds, QStringLiteral("rounds: their last aggregate")});
        }
    }
    for (const QString &sweep : sweepNames()) {
        if (!seen.contains(sweep)) {
            out.append({sweep, QStringLiteral("sweep")});
        }
    }
    return out;
}

} // namespace trainyard
