#include "orchestration/sweep/sweeprunner.h"

#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/sweep/sweepplacer.h"
#include "orchestration/sweep/sweepsearch.h"
#include "orchestration/sweep/sweeptrialrecord.h"

#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>

namespace trainyard {

using Sweep = SweepSearch;
using Trial = SweepSearch::Trial;

struct SweepRunner::State
{
    Board *board;
    Dispatcher *dispatcher;
    RunActions *actions; // a placed trial's start, a trial's stop
    RunRegistry *runs;
    const MetricStore *metrics;
    SweepPlacer placer; // its trials onto the board's lanes
    QString root;
    std::vector<std::unique_ptr<Sweep>> sweeps;
    bool filling = false, refill = false, restoring = false;

    Sweep *find(const QString &name) const
    {
        for (const auto &s : sweeps) {
            if (s->spec.name == name) {
                return s.get();
            }
        }
        return nullptr;
    }
    Trial *trialOf(RunId id, Sweep **sweep) const
    {
        const RunInfo *r = runs->find(id);
        Sweep *s = r ? find(r->sweep) : nullptr;
        Trial *t = s ? s->trial(r->trial) : nullptr;
        if (!t || t->run != id) {
            return nullptr;
        }
        *sweep = s;
        return t;
    }
    TrialInfo::Phase phase(const Sweep &s, const Trial &t) const { return s.phase(t, *runs); }
    void setMessage(RunId id, const QString &text) const
    {
        runs->update(id, [&](RunInfo &r) { r.message = text; });
    }
    void save(const Sweep &s) const;
    void restore(Sweep &s, QStringList *warnings);
    bool consume(RunId id, Sweep **changed);
    void stop(Sweep &s, const QList<SweepSearch::Stop> &stops);
};

void SweepRunner::State::save(const Sweep &s) const
{
    if (!restoring) {
        SweepTrialRecord(root).save(s);
    }
}

void SweepRunner::State::restore(Sweep &s, QStringList *warnings)
{
    const SweepState state = SweepTrialRecord(root).load(s, placer.lanes(s).value(0), warnings);
    s.paused = state.paused;
    s.stopped = state.stopped;
    for (const SweepState::Trial &saved : state.trials) {
        const int lane = board->hasLane(saved.lane) ? saved.lane : placer.lanes(s).value(0);
        QString why;
        if (placer.place(s, saved.index, lane, saved.run, &why) == 0) {
            *warnings << QStringLiteral("sweep %1: trial %2: %3").arg(s.spec.name).arg(saved.index + 1).arg(why);
            continue;
        }
        Trial &t = *s.trial(saved.index);
        t.paused = saved.paused;
        t.stopped = saved.stopped;
        t.reason = saved.reason;
        t.replay = true;
    }
}

// The trial's new objective points through its search; stops what it decided.
bool SweepRunner::State::consume(RunId id, Sweep **changed)
{
    Sweep *s = nullptr;
    Trial *t = trialOf(id, &s);
    if (!t) {
        return false;
    }
    if (t->replay && (t->paused || t->stopped) && !t->reason.isEmpty()) {
        setMessage(id, t->reason); // over status.json's "stopped on request": the card says why
    }
    bool fresh = false;
    stop(*s, s->read(*t, *metrics, *runs, &fresh));
    *changed = s;
    return fresh;
}

void SweepRunner::State::stop(Sweep &s, const QList<SweepSearch::Stop> &stops)
{
    for (const SweepSearch::Stop &stop : stops) {
        setMessage(stop.run, stop.reason);
        actions->stopRun(stop.run); // the worker checkpoints and exits 4: Stopped
    }
    if (!stops.isEmpty()) {
        save(s);
    }
}

// ---- SweepRunner ------------------------------------------------------------

SweepRunner::SweepRunner(Board *board, Dispatcher *dispatcher, RunActions *actions, RunRegistry *runs,
                         const MetricStore *metrics, QObject *parent)
    : QObject(parent)
    , d(std::make_unique<State>(
          State{board, dispatcher, actions, runs, metrics, SweepPlacer(board, dispatcher, actions, runs), {}, {}}))
{
    connect(metrics, &MetricStore::updated, this, [this](const QList<RunId> &ids) {
        for (RunId id : ids) {
            Sweep *s = nullptr;
            if (d->consume(id, &s)) {
                Q_EMIT trialsChanged(s->spec.name);
            }
        }
    });
    connect(dispatcher, &Dispatcher::runEnded, this, [this](RunId id, RunState state) {
        Sweep *s = nullptr;
        Trial *t = d->trialOf(id, &s);
        if (!t) {
            return;
        }
        d->consume(id, &s); // its last reports, before the batch says them
        s->ended(*t, state);
        if (state == RunState::Stopped && !t->reason.isEmpty()) {
            d->setMessage(id, t->reason); // after the supervisor's words: the card says why
        }
        d->save(*s);
        Q_EMIT trialsChanged(s->spec.name);
        fill();
    });
    // Start all: every sweep places its trials as the board dispatches; Stop all: none by hand either.
    connect(dispatcher, &Dispatcher::dispatchingStarted, this, [this] {
        for (const auto &s : d->sweeps) {
            s->placing = false;
        }
        fill();
    });
    connect(dispatcher, &Dispatcher::dispatchingStopped, this, [this] {
        for (const auto &s : d->sweeps) {
            s->placing = false;
        }
    });
    connect(board, &Board::edited, this, &SweepRunner::fill);
    connect(board, &Board::runDropping, this, [this](RunId id) {
        Sweep *s = nullptr;
        if (Trial *t = d->trialOf(id, &s); t && !d->restoring) {
            t->run = 0;
            t->failed = true;
            t->reason = QStringLiteral("taken off the board");
            s->fail(t->index);
        }
    });
    dispatcher->setKeptStopped([this](RunId id) {
        Sweep *s = nullptr;
        const Trial *t = d->trialOf(id, &s);
        return t && (t->paused || t->stopped);
    });
}

SweepRunner::~SweepRunner()
{
    d->dispatcher->setKeptStopped({}); // the dispatcher outlives us (Orchestrator's order)
}

void SweepRunner::setSweeps(const QList<SweepSpec> &sweeps, const QString &runsRoot)
{
    d->sweeps.clear();
    d->root = runsRoot;
    QStringList warnings;
    d->restoring = true;
    for (const SweepSpec &spec : sweeps) {
        d->sweeps.push_back(std::make_unique<Sweep>(spec));
        d->restore(*d->sweeps.back(), &warnings);
    }
    d->restoring = false;
    for (const auto &s : d->sweeps) {
        d->save(*s);
    }
    Q_EMIT sweepsChanged();
    for (const QString &w : std::as_const(warnings)) {
        Q_EMIT warning(w);
    }
}

QList<SweepSpec> SweepRunner::sweeps() const
{
    QList<SweepSpec> out;
    for (const auto &s : d->sweeps) {
        out << s->spec;
    }
    return out;
}

const SweepSpec *SweepRunner::sweep(const QString &name) const
{
    const Sweep *s = d->find(name);
    return s ? &s->spec : nullptr;
}

bool SweepRunner::addSweep(const SweepSpec &sweep, QString *error)
{
    QStringList errors;
    if (!SweepSpec::fromJson(sweep.toJson(), QStringLiteral("sweep"), d->board->laneCount(), errors)) {
        return refuse(error, errors.join(QLatin1Char('\n')));
    }
    if (d->find(sweep.name)) {
        return refuse(error, QStringLiteral("sweep.name: \"%1\" is already a sweep's name").arg(sweep.name));
    }
    // As the file's check (readSweeps): no trial may take a run's name, or
    // Board::addRun would refuse every trial after it was accepted here.
    QSet<QString> taken;
    for (RunId id : d->board->runIds()) {
        taken.insert(d->runs->value(id).name);
    }
    if (taken.contains(sweep.name)) {
        return refuse(error, QStringLiteral("sweep.name: \"%1\" is already a run's name").arg(sweep.name));
    }
    for (int i = 0; i < sweep.trialCount(); ++i) {
        const QString trial = SweepSpec::trialName(sweep.name, i);
        if (taken.contains(trial)) {
            return refuse(error, QStringLiteral("sweep.name: its trial \"%1\" has the name of a run").arg(trial));
        }
    }
    d->sweeps.push_back(std::make_unique<Sweep>(sweep));
    d->save(*d->sweeps.back());
    Q_EMIT sweepsChanged();
    fill();
    return true;
}

bool SweepRunner::removeSweep(const QString &name, QString *error)
{
    Sweep *s = d->find(name);
    if (!s) {
        return refuse(error, QStringLiteral("no sweep %1").arg(name));
    }
    for (const auto &[index, t] : s->placed()) {
        if (d->phase(*s, t) == TrialInfo::Phase::Training) {
            return refuse(error, QStringLiteral("%1 has trials in progress; stop them first").arg(name));
        }
    }
    // Its trials' folders stay; their runs leave the board with it.
    d->restoring = true;
    for (const auto &[index, t] : s->placed()) {
        if (t.run && d->runs->contains(t.run)) {
            d->board->removeRun(t.run);
        }
    }
    d->restoring = false;
    d->sweeps.erase(std::find_if(d->sweeps.begin(), d->sweeps.end(), [s](const auto &p) { return p.get() == s; }));
    Q_EMIT sweepsChanged();
    return true;
}

QList<TrialInfo> SweepRunner::trials(const QString &sweep) const
{
    const Sweep *s = d->find(sweep);
    return s ? s->trials(*d->runs) : QList<TrialInfo>();
}

QString SweepRunner::sweepOf(RunId run, int *trial) const
{
    Sweep *s = nullptr;
    const Trial *t = d->trialOf(run, &s);
    if (trial) {
        *trial = t ? t->index : -1;
    }
    return t ? s->spec.name : QString();
}

QString SweepRunner::progressLine(const QString &sweep) const
{
    const Sweep *s = d->find(sweep);
    return s ? s->progressLine(*d->runs) : QString();
}

bool SweepRunner::isDone(const QString &sweep) const
{
    const Sweep *s = d->find(sweep);
    return s && s->isDone(*d->runs);
}

bool SweepRunner::isPaused(const QString &sweep) const
{
    const Sweep *s = d->find(sweep);
    return s && s->paused;
}

void SweepRunner::pauseSweep(const QString &sweep)
{
    if (Sweep *s = d->find(sweep)) {
        s->paused = true;
        s->placing = false;
        d->save(*s);
        Q_EMIT trialsChanged(sweep);
    }
}

void SweepRunner::resumeSweep(const QString &sweep)
{
    if (Sweep *s = d->find(sweep)) {
        s->paused = s->stopped = false;
        s->placing = true; // even while nothing else dispatches
        d->save(*s);
        Q_EMIT trialsChanged(sweep);
        fill();
    }
}

void SweepRunner::stopSweep(const QString &sweep)
{
    Sweep *s = d->find(sweep);
    if (!s) {
        return;
    }
    s->stopped = true;
    s->placing = false;
    QList<SweepSearch::Stop> stops;
    for (const auto &[index, t] : s->placed()) {
        if (d->phase(*s, t) == TrialInfo::Phase::Training && !t.paused) {
            Trial *active = s->trial(index);
            active->stopped = true;
            active->reason = QStringLiteral("the sweep was stopped");
            stops << SweepSearch::Stop{t.run, active->reason};
        }
    }
    d->stop(*s, stops);
    d->save(*s);
    Q_EMIT trialsChanged(sweep);
}

bool SweepRunner::addTrials(const QString &sweep, int count, QString *error)
{
    Sweep *s = d->find(sweep);
    if (!s) {
        return refuse(error, QStringLiteral("no sweep %1").arg(sweep));
    }
    if (s->spec.method != QStringLiteral("random")) {
        return refuse(error, QStringLiteral("%1 searches a grid: it has every trial its space makes").arg(sweep));
    }
    if (count < 1) {
        return refuse(error, QStringLiteral("expected at least one trial, got %1").arg(count));
    }
    s->spec.trials += count;
    s->stopped = false;
    s->placing = true;
    d->save(*s);
    Q_EMIT trialsChanged(sweep);
    fill();
    return true;
}

bool SweepRunner::promoteTrial(const QString &sweep, int trial, QString *error)
{
    Sweep *s = d->find(sweep);
    Trial *t = s ? s->trial(trial) : nullptr;
    if (!t || d->phase(*s, *t) != TrialInfo::Phase::Paused) {
        return refuse(error, QStringLiteral("trial %1 of %2 is not paused").arg(trial + 1).arg(sweep));
    }
    if (const int lane = d->placer.freeLane(*s); lane >= 0) {
        const bool ok = d->placer.resume(*s, *t, lane, error);
        d->save(*s);
        Q_EMIT trialsChanged(sweep);
        return ok;
    }
    return refuse(error, QStringLiteral("none of %1's lanes has a free slot").arg(sweep));
}

bool SweepRunner::stopTrial(const QString &sweep, int trial, QString *error)
{
    Sweep *s = d->find(sweep);
    Trial *found = s ? s->trial(trial) : nullptr;
    const TrialInfo::Phase p = found ? d->phase(*s, *found) : TrialInfo::Phase::Waiting;
    if (p != TrialInfo::Phase::Training && p != TrialInfo::Phase::Paused) {
        return refuse(error, QStringLiteral("trial %1 of %2 is neither training nor paused").arg(trial + 1).arg(sweep));
    }
    Trial &t = *found;
    t.paused = false;
    t.stopped = true;
    t.reason = QStringLiteral("stopped by hand");
    s->fail(trial); // never promoted again
    if (p == TrialInfo::Phase::Training) {
        d->actions->stopRun(t.run, error);
    }
    d->setMessage(t.run, t.reason);
    d->save(*s);
    Q_EMIT trialsChanged(sweep);
    return true;
}

void SweepRunner::setLaneCapacity(std::function<int(int lane)> capacity)
{
    d->placer.setLaneCapacity(std::move(capacity));
}

void SweepRunner::fill()
{
    if (d->filling) {
        d->refill = true; // an edit of our own: its slot is looked at after this pass
        return;
    }
    const bool dispatching = d->dispatcher->isDispatching();
    d->filling = true;
    do {
        d->refill = false;
        for (const auto &sp : d->sweeps) {
            Sweep &s = *sp;
            bool placed = false;
            while (!s.paused && !s.stopped && (dispatching || s.placing)) {
                const int lane = d->placer.freeLane(s);
                if (lane < 0) {
                    break;
                }
                QString error;
                if (const std::optional<int> p = s.promotion(*d->runs)) {
                    const bool resumed = d->placer.resume(s, *s.trial(*p), lane, &error);
                    d->save(s);
                    if (!resumed) {
                        Q_EMIT warning(
                            QStringLiteral("sweep %1: trial %2: %3").arg(s.spec.name).arg(*p + 1).arg(error));
                    }
                    placed = true;
                    continue;
                }
                const int next = s.nextNew();
                if (next < 0) {
                    break;
                }
                const RunId placedRun = d->placer.place(s, next, lane, QString(), &error);
                if (placedRun == 0) {
                    Q_EMIT warning(QStringLiteral("sweep %1: trial %2: %3").arg(s.spec.name).arg(next + 1).arg(error));
                } else if (!dispatching && !d->actions->startRun(placedRun, &error)) {
                    Q_EMIT warning(QStringLiteral("sweep %1: trial %2: %3").arg(s.spec.name).arg(next + 1).arg(error));
                }
                d->save(s);
                placed = true;
            }
            if (placed) {
                Q_EMIT trialsChanged(s.spec.name);
            }
        }
    } while (d->refill);
    d->filling = false;
}

} // namespace trainyard
