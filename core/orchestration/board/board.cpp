#include "orchestration/board/board.h"

#include "orchestration/devices/device.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/runstore/runstore.h"

#include <algorithm>

namespace trainyard {

Board::Board(RunRegistry *runs, RunStore *store, QObject *parent)
    : QObject(parent)
    , m_runs(runs)
    , m_store(store)
    , m_entries(runs, store)
{
}

void Board::setExperiment(const Experiment &experiment)
{
    m_runs->clear();
    m_lanes.clear();
    for (int l = 0; l < experiment.lanes.size(); ++l) {
        const ExperimentLane &el = experiment.lanes.at(l);
        Lane lane;
        lane.device = el.device;
        lane.slotCount = el.slotCount;
        lane.gres = el.gres;
        lane.busy = el.busy;
        lane.name = el.name;
        for (const ExperimentRun &er : el.runs) {
            lane.runs << m_entries.expand(er, experiment.rounds, l);
        }
        m_lanes << lane;
    }
    m_rounds = experiment.rounds;
    Q_EMIT reset();
}

Experiment Board::toExperiment(const QString &name, const QString &runsRoot) const
{
    Experiment ex;
    ex.name = name;
    ex.runsRoot = runsRoot;
    ex.rounds = m_rounds; // an unchanged set of their runs is written as one entry
    for (const Lane &lane : m_lanes) {
        ExperimentLane el;
        el.device = lane.device;
        el.slotCount = lane.slotCount;
        el.gres = lane.gres;
        el.busy = lane.busy;
        el.name = lane.name;
        el.runs = m_entries.collapse(lane.runs);
        ex.lanes << el;
    }
    return ex;
}

QList<RunId> Board::runIds() const
{
    QList<RunId> ids;
    for (const Lane &lane : m_lanes) {
        ids << lane.runs;
    }
    return ids;
}

int Board::position(RunId id) const
{
    const RunInfo *r = m_runs->find(id);
    return r ? m_lanes.at(r->lane).runs.indexOf(id) : -1;
}

QString Board::laneTitle(int index) const
{
    if (!hasLane(index)) {
        return {};
    }
    const Lane &lane = m_lanes.at(index);
    int before = 0;
    for (int i = 0; i < index; ++i) {
        before += m_lanes.at(i).device == lane.device ? 1 : 0;
    }
    return laneTitle(lane.name, lane.device, before);
}

QString Board::laneTitle(const QString &name, const Device &device, int sameDeviceBefore)
{
    if (!name.isEmpty()) {
        return name;
    }
    return sameDeviceBefore == 0 ? device.toString()
                                 : QStringLiteral("%1 %2").arg(device.toString()).arg(sameDeviceBefore + 1);
}

bool Board::isNameFree(const QString &name, int repeat) const
{
    const QStringList names = repeatNames(name, repeat);
    return std::all_of(names.cbegin(), names.cend(), [this](const QString &n) { return m_runs->findByName(n) == 0; });
}

QString Board::uniqueName(const QString &base, int repeat) const
{
    const auto free = [&](const QString &name) {
        if (!isNameFree(name, repeat) || (repeat > 1 && !isNameFree(name))) {
            return false;
        }
        const QList<RunId> ids = m_runs->ids();
        return std::none_of(ids.cbegin(), ids.cend(), [&](RunId id) {
            const RunInfo *r = m_runs->find(id);
            return r->repeatCount > 1 && r->group == name;
        });
    };
    if (free(base)) {
        return base;
    }
    for (int n = 2;; ++n) {
        const QString candidate = base + QLatin1Char('-') + QString::number(n);
        if (free(candidate)) {
            return candidate;
        }
    }
}

// ---- edits ------------------------------------------------------------------

namespace {

// A board's lanes run here or on a host; Slurm lanes come from the file only.
QString laneDeviceProblem(const Device &d)
{
    if (d.isLocal() || d.isRemote()) {
        return {};
    }
    return QStringLiteral("device: expected \"cpu\", \"cuda:N\", a pool such as \"cuda:*\" or \"ssh:HOST/cuda:N\", "
                          "got \"%1\"")
        .arg(d.toString());
}

} // namespace

int Board::addLane(const QString &device, int slotCount, int position, QString *error)
{
    const Device d = Device::parse(device);
    if (const QString problem = laneDeviceProblem(d); !problem.isEmpty()) {
        return refuse(error, problem), -1;
    }
    if (slotCount < 1) {
        return refuse(error, QStringLiteral("slots: expected an integer ≥ 1, got %1").arg(slotCount)), -1;
    }
    if (position < 0 || position > m_lanes.size()) {
        position = int(m_lanes.size());
    }
    Q_EMIT laneAboutToBeAdded(position);
    m_lanes.insert(position, Lane{d, slotCount, {}, {}, {}, {}});
    for (RunId id : m_runs->ids()) { // said by laneAdded
        m_runs->update(
            id, [position](RunInfo &r) { r.lane += r.lane >= position ? 1 : 0; }, RunRegistry::Notify::Quiet);
    }
    Q_EMIT laneAdded(position);
    Q_EMIT edited();
    return position;
}

bool Board::removeLane(int index, QString *error)
{
    if (!hasLane(index)) {
        return refuse(error, QStringLiteral("no lane %1").arg(index));
    }
    for (RunId id : std::as_const(m_lanes.at(index).runs)) {
        if (isActive(m_runs->find(id)->state)) {
            return refuse(error, QStringLiteral("lane %1 has runs in progress; stop them first").arg(laneTitle(index)));
        }
    }
    while (!m_lanes.at(index).runs.isEmpty()) {
        removeRun(m_lanes.at(index).runs.last(), nullptr);
    }
    Q_EMIT laneAboutToBeRemoved(index);
    m_lanes.removeAt(index);
    for (RunId id : m_runs->ids()) { // said by laneRemoved
        m_runs->update(
            id, [index](RunInfo &r) { r.lane -= r.lane > index ? 1 : 0; }, RunRegistry::Notify::Quiet);
    }
    Q_EMIT laneRemoved(index);
    Q_EMIT edited();
    return true;
}

bool Board::setLaneDevice(int index, const QString &device, QString *error)
{
    if (!hasLane(index)) {
        return refuse(error, QStringLiteral("no lane %1").arg(index));
    }
    const Device d = Device::parse(device);
    if (const QString problem = laneDeviceProblem(d); !problem.isEmpty()) {
        return refuse(error, problem);
    }
    m_lanes[index].device = d;
    Q_EMIT laneChanged(index);
    Q_EMIT edited();
    return true;
}

bool Board::setLaneSlots(int index, int slotCount, QString *error)
{
    if (!hasLane(index)) {
        return refuse(error, QStringLiteral("no lane %1").arg(index));
    }
    if (slotCount < 1) {
        return refuse(error, QStringLiteral("slots: expected an integer ≥ 1, got %1").arg(slotCount));
    }
    m_lanes[index].slotCount = slotCount;
    Q_EMIT laneChanged(index);
    Q_EMIT edited();
    return true;
}

bool Board::setLaneName(int index, const QString &name, QString *error)
{
    if (!hasLane(index)) {
        return refuse(error, QStringLiteral("no lane %1").arg(index));
    }
    if (!name.isEmpty() && !isLaneName(name)) {
        return refuse(error, QStringLiteral("lane name: expected %1, got \"%2\"").arg(laneNameRule(), name));
    }
    for (int i = 0; i < m_lanes.size(); ++i) {
        if (i != index && !name.isEmpty() && m_lanes.at(i).name == name) {
            return refuse(error, QStringLiteral("lane name: \"%1\" is already the name of another lane").arg(name));
        }
    }
    m_lanes[index].name = name;
    Q_EMIT laneChanged(index);
    Q_EMIT edited();
    return true;
}

QList<RunId> Board::addRun(int lane, const QJsonObject &spec, int repeat, int position, QString *error)
{
    return insertRuns(lane, spec, repeat, position, false, error);
}

QList<RunId> Board::addHeldRun(int lane, const QJsonObject &spec, int position, QString *error, int repeat)
{
    return insertRuns(lane, spec, repeat, position, true, error);
}

QList<RunId> Board::insertRuns(int lane, const QJsonObject &spec, int repeat, int position, bool held, QString *error)
{
    QList<RunId> ids;
    if (!hasLane(lane)) {
        refuse(error, QStringLiteral("no lane %1").arg(lane));
        return ids;
    }
    if (repeat < 1 || repeat > 1000) {
        refuse(error, QStringLiteral("repeat: expected an integer from 1 to 1000, got %1").arg(repeat));
        return ids;
    }
    QJsonObject clean = spec;
    clean.remove(QStringLiteral("repeat"));
    const QStringList problems = validateRunSpec(clean, QStringLiteral("run"), false);
    if (!problems.isEmpty()) {
        refuse(error, problems.join(QLatin1Char('\n')));
        return ids;
    }
    clean = withDefaults(clean);
    // A taken name is refused, not changed: the user named it.
    const QString base = clean.value(QStringLiteral("name")).toString();
    for (const QString &name : repeatNames(base, repeat)) {
        if (m_runs->findByName(name) != 0) {
            refuse(error, QStringLiteral("run.name: \"%1\" is already used by another run").arg(name));
            return ids;
        }
    }
    if (position < 0 || position > m_lanes.at(lane).runs.size()) {
        position = int(m_lanes.at(lane).runs.size());
    }
    for (int i = 0; i < repeat; ++i) {
        Q_EMIT runAboutToBeAdded(lane, position + i);
        const RunId id = m_entries.add(expandRepeat(clean, i, repeat), base, i, repeat, lane, held);
        m_lanes[lane].runs.insert(position + i, id);
        ids << id;
        Q_EMIT runAdded(id);
    }
    Q_EMIT edited();
    return ids;
}

QJsonObject Board::duplicateSpec(RunId id, int copies) const
{
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return {};
    }
    qint64 highest = 0;
    for (RunId other : runIds()) {
        if (const RunInfo *o = m_runs->find(other)) {
            highest = std::max(highest, RunSpecView(o->spec).seed().value_or(0));
        }
    }
    QJsonObject spec = r->spec;
    // Copies as a group read as such: "a-copy-1", "a-copy-2", ... beside "a".
    spec.insert(QStringLiteral("name"),
                copies > 1 ? uniqueName(r->name + QStringLiteral("-copy"), copies) : uniqueName(r->name));
    QJsonObject train = spec.value(QStringLiteral("train")).toObject();
    train.insert(QStringLiteral("seed"), highest + 1);
    spec.insert(QStringLiteral("train"), train);
    return spec;
}

void Board::refreshRunDirs(const QString &oldRoot)
{
    const QString from = oldRoot + QLatin1Char('/');
    const QString to = m_store->root() + QLatin1Char('/');
    for (RunId id : m_runs->ids()) {
        m_runs->update(
            id,
            [&](RunInfo &r) {
                r.runDir = m_store->runDir(r.name);
                // The command a run started with names its folder, which
                // moved: the copy the user takes must name where it is now.
                if (!oldRoot.isEmpty() && from != to) {
                    for (QString &argument : r.command) {
                        argument.replace(from, to);
                    }
                }
            },
            RunRegistry::Notify::Quiet);
    }
}

RunId Board::duplicateRun(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return refuse(error, QStringLiteral("no such run")), 0;
    }
    const QList<RunId> ids = insertRuns(r->lane, duplicateSpec(id), 1, position(id) + 1, r->held, error);
    return ids.isEmpty() ? 0 : ids.first();
}

bool Board::removeRun(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return refuse(error, QStringLiteral("no such run"));
    }
    if (isActive(r->state)) {
        return refuse(error, QStringLiteral("%1 is %2; stop it first").arg(r->name, runStateName(r->state)));
    }
    Q_EMIT runAboutToBeRemoved(id);
    m_lanes[r->lane].runs.removeOne(id);
    Q_EMIT runDropping(id);
    m_runs->remove(id);
    Q_EMIT runRemoved(id);
    Q_EMIT edited();
    return true;
}

RunId Board::restoreRun(const RunInfo &run, int position, QString *error)
{
    if (!hasLane(run.lane)) {
        return refuse(error, QStringLiteral("no lane %1").arg(run.lane)), 0;
    }
    if (isActive(run.state)) {
        return refuse(error, QStringLiteral("%1 is %2").arg(run.name, runStateName(run.state))), 0;
    }
    if (m_runs->findByName(run.name) != 0) {
        return refuse(error, QStringLiteral("run.name: \"%1\" is already used by another run").arg(run.name)), 0;
    }
    RunInfo info = run;
    info.runDir = m_store->runDir(info.name);
    info.connected = false;
    info.reattached = false;
    info.queueReason.clear();
    if (position < 0 || position > m_lanes.at(info.lane).runs.size()) {
        position = int(m_lanes.at(info.lane).runs.size());
    }
    Q_EMIT runAboutToBeAdded(info.lane, position);
    const int lane = info.lane;
    const RunId id = m_runs->restore(std::move(info));
    m_lanes[lane].runs.insert(position, id);
    Q_EMIT runAdded(id);
    Q_EMIT edited();
    return id;
}

bool Board::moveRun(RunId id, int lane, int position, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return refuse(error, QStringLiteral("no such run"));
    }
    if (!hasLane(lane)) {
        return refuse(error, QStringLiteral("no lane %1").arg(lane));
    }
    if (isActive(r->state)) {
        return refuse(
            error,
            QStringLiteral("%1 is %2; only runs that are not running can move").arg(r->name, runStateName(r->state)));
    }
    const int fromLane = r->lane;
    const int fromPos = int(m_lanes.at(fromLane).runs.indexOf(id));
    const int maxPos = int(m_lanes.at(lane).runs.size()) - (lane == fromLane ? 1 : 0);
    if (position < 0 || position > maxPos) {
        position = maxPos;
    }
    if (fromLane == lane && fromPos == position) {
        return true;
    }
    Q_EMIT runAboutToBeMoved(id, fromLane, fromPos, lane, position);
    m_lanes[fromLane].runs.removeAt(fromPos);
    m_lanes[lane].runs.insert(position, id);
    m_runs->update(
        id, [lane](RunInfo &run) { run.lane = lane; }, RunRegistry::Notify::Quiet); // said by runMoved
    Q_EMIT runMoved(id);
    Q_EMIT edited();
    return true;
}

bool Board::setRunAfter(RunId id, const QStringList &after, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return refuse(error, QStringLiteral("no such run"));
    }
    if (isActive(r->state)) {
        return refuse(error, QStringLiteral("%1 is %2; stop it first").arg(r->name, runStateName(r->state)));
    }
    if (r->after == after) {
        return true;
    }
    m_runs->update(id, [&](RunInfo &run) { run.after = after; });
    Q_EMIT edited();
    return true;
}

bool Board::setRunSpec(RunId id, const QJsonObject &spec, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return refuse(error, QStringLiteral("no such run"));
    }
    if (r->state != RunState::Queued && r->state != RunState::Waiting && r->state != RunState::Cancelled) {
        return refuse(error, QStringLiteral("%1 has already run; duplicate it to change its spec").arg(r->name));
    }
    QJsonObject clean = spec;
    clean.remove(QStringLiteral("repeat"));
    const QStringList problems = validateRunSpec(clean, QStringLiteral("run"), false);
    if (!problems.isEmpty()) {
        return refuse(error, problems.join(QLatin1Char('\n')));
    }
    clean = withDefaults(clean);
    const QString name = clean.value(QStringLiteral("name")).toString();
    if (name != r->name && m_runs->findByName(name) != 0) {
        return refuse(error, QStringLiteral("run.name: \"%1\" is already used by another run").arg(name));
    }
    const QString oldName = r->name;
    m_runs->rename(id, name);
    if (name != oldName) { // the runs that run after it still do
        for (RunId other : m_runs->ids()) {
            if (m_runs->find(other)->after.contains(oldName)) {
                m_runs->update(other, [&](RunInfo &run) { run.after[run.after.indexOf(oldName)] = name; });
            }
        }
    }
    m_runs->update(id, [&](RunInfo &run) {
        if (clean != run.spec) {
            // No longer a sample of its group's spec: it must not be averaged with them.
            run.group = name;
            run.repeatIndex = 0;
            run.repeatCount = 1;
        }
        run.spec = clean;
        run.runDir = m_store->runDir(name);
    });
    return true;
}

} // namespace trainyard
