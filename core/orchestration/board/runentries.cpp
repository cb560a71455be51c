#include "orchestration/board/runentries.h"

#include "orchestration/experiment/dependencycheck.h"
#include "orchestration/experiment/onend.h"
#include "orchestration/experiment/rounds.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"

#include <QJsonArray>
#include <QSet>

namespace trainyard {

namespace {

// A run's spec as an experiment file has it: with its "after" and "on_end".
QJsonObject withFileKeys(const QJsonObject &spec, const RunInfo &run)
{
    QJsonObject out = spec;
    if (!run.after.isEmpty()) {
        out.insert(QStringLiteral("after"), QJsonArray::fromStringList(run.after));
    }
    if (!run.onEnd.isEmpty()) {
        out.insert(QStringLiteral("on_end"), QJsonArray::fromStringList(run.onEnd));
    }
    return out;
}

} // namespace

RunEntries::RunEntries(RunRegistry *runs, RunStore *store)
    : m_runs(runs)
    , m_store(store)
{
}

RunId RunEntries::add(const QJsonObject &spec, const QString &group, int index, int count, int lane, bool held) const
{
    RunInfo info;
    info.held = held;
    // "after" is the board's (RunInfo::after), not the worker's: out of spec.json.
    info.spec = spec;
    info.spec.remove(QStringLiteral("after"));
    info.after = afterNames(spec);
    // So is "on_end": Trainyard runs it (OnEndCommands), the worker never sees it.
    info.onEnd = onend::read(spec.value(QStringLiteral("on_end")));
    info.spec.remove(QStringLiteral("on_end"));
    info.state = info.after.isEmpty() ? RunState::Queued : RunState::Waiting;
    info.name = spec.value(QStringLiteral("name")).toString();
    info.group = group;
    info.repeatIndex = index;
    info.repeatCount = count;
    info.lane = lane;
    info.runDir = m_store->runDir(info.name);
    return m_runs->add(std::move(info));
}

QList<RunId> RunEntries::expand(const ExperimentRun &entry, const QList<QJsonObject> &allRounds, int lane) const
{
    QList<RunId> ids;
    const QString group = entry.spec.value(QStringLiteral("name")).toString();
    for (int i = 0; i < entry.repeat; ++i) {
        ids << add(expandRepeat(entry.spec, i, entry.repeat), group, i, entry.repeat, lane, false);
    }
    if (!entry.rounds.isEmpty()) {
        const int count = rounds::count(rounds::named(allRounds, entry.rounds));
        m_runs->update(
            ids.last(),
            [&](RunInfo &r) {
                r.rounds = entry.rounds;
                r.round = entry.round;
                r.roundCount = count;
                r.aggregate = entry.aggregate;
            },
            RunRegistry::Notify::Quiet);
    }
    return ids;
}

QList<ExperimentRun> RunEntries::collapse(const QList<RunId> &runs) const
{
    QList<ExperimentRun> entries;
    QSet<int> taken; // later places already written as a repeat of their group
    for (int i = 0; i < runs.size(); ++i) {
        if (taken.contains(i)) {
            continue;
        }
        const RunInfo *r = m_runs->find(runs.at(i));
        if (!r->sweep.isEmpty()) { // made by its sweep, which is saved in "sweeps"
            continue;
        }
        // A group's repeats need not be next to each other (a run dropped
        // between them): the file has no way to say so, so the group is
        // written where its first repeat is and the others follow it.
        const int count = r->repeatCount;
        QJsonObject base = r->spec;
        base.insert(QStringLiteral("name"), r->group);
        QList<int> places{i};
        for (int j = i + 1; count > 1 && r->repeatIndex == 0 && j < runs.size() && places.size() < count; ++j) {
            const RunInfo *rj = m_runs->find(runs.at(j));
            if (!taken.contains(j) && rj->group == r->group && rj->repeatCount == count) {
                places << j;
            }
        }
        bool collapse = count > 1 && places.size() == count;
        for (int k = 0; collapse && k < count; ++k) {
            const RunInfo *rk = m_runs->find(runs.at(places.at(k)));
            collapse = rk->repeatIndex == k && rk->after == r->after && rk->onEnd == r->onEnd
                       && rk->spec == expandRepeat(base, k, count);
        }
        if (collapse) {
            entries << ExperimentRun{withFileKeys(base, *r), count};
            for (int place : std::as_const(places)) {
                taken.insert(place);
            }
        } else {
            ExperimentRun run(withFileKeys(r->spec, *r));
            run.rounds = r->rounds;
            run.round = r->round;
            run.aggregate = r->aggregate;
            entries << run;
        }
    }
    return entries;
}

} // namespace trainyard
