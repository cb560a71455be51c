#include "sweep/sweeprunner.h"

#include "dispatch/board.h"
#include "dispatch/dispatcher.h"
#include "experiment/runspecview.h"
#include "metrics/metricstore.h"
#include "records/runregistry.h"
#include "sweep/sweepstatefile.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <map>

namespace trainyard {

namespace {

struct Trial
{
    int index = -1;
    RunId run = 0;
    QString name;
    int lane = 0;
    bool paused = false, stopped = false;
    bool failed = false; // could not be placed, or its run left the board
    QString reason;
    std::size_t seen = 0; // objective points read
    quint64 revision = 0;
    double best = qQNaN();
    double resource = -1;
    bool replay = false; // placed back at an opening: its points are read back first
};

struct Sweep
{
    SweepSpec spec;
    std::unique_ptr<Asha> asha;
    std::unique_ptr<MedianRule> median;
    std::map<int, Trial> trials; // the placed ones, by index
    bool paused = false, stopped = false;

    explicit Sweep(const SweepSpec &s)
        : spec(s)
    {
        const SweepStopping &st = s.stopping;
        if (st.rule == SweepStopping::Rule::Asha)
            asha = std::make_unique<Asha>(st.min, st.max, st.eta, s.maximize, s.objective, st.resource);
        else if (st.rule == SweepStopping::Rule::Median)
            median = std::make_unique<MedianRule>(st.min, s.maximize, s.objective, st.resource);
    }
    bool better(double a, double b) const { return std::isnan(b) || (spec.maximize ? a > b : a < b); }
};

// A trial's run spec: the sweep's, trained up to the stopping rule's max.
QJsonObject trialRunSpec(const SweepSpec &s, int index)
{
    QJsonObject spec = s.trialSpec(index);
    if (s.stopping.rule != SweepStopping::Rule::None && s.stopping.max > 0 && !spec.contains(QStringLiteral("program")))
        setSpecValue(spec,
                     s.stopping.resource == QStringLiteral("step") ? QStringLiteral("train.max_steps")
                                                                   : QStringLiteral("train.epochs"),
                     qint64(std::ceil(s.stopping.max)));
    return spec;
}

} // namespace

struct SweepRunner::State
{
    Board *board;
    Dispatcher *dispatcher;
    RunRegistry *runs;
    const MetricStore *metrics;
    QString root;
    std::vector<std::unique_ptr<Sweep>> sweeps;
    bool filling = false, refill = false, restoring = false;

    Sweep *find(const QString &name) const
    {
        for (const auto &s : sweeps)
            if (s->spec.name == name)
                return s.get();
        return nullptr;
    }
    Trial *trialOf(RunId id, Sweep **sweep) const
    {
        const RunInfo *r = runs->find(id);
        Sweep *s = r ? find(r->sweep) : nullptr;
        auto it = s ? s->trials.find(r->trial) : std::map<int, Trial>::iterator();
        if (!s || it == s->trials.end() || it->second.run != id)
            return nullptr;
        *sweep = s;
        return &it->second;
    }
    TrialInfo::Phase phase(const Trial &t) const
    {
        using P = TrialInfo::Phase;
        const RunInfo *r = t.run ? runs->find(t.run) : nullptr;
        if (t.failed || (t.run && !r))
            return P::Failed;
        if (!r)
            return P::Waiting;
        if (r->state == RunState::Queued || isActive(r->state))
            return P::Training;
        if (r->state == RunState::Finished)
            return P::Finished;
        if (r->state == RunState::Stopped)
            return t.paused ? P::Paused : P::Stopped;
        return P::Failed;
    }
    QList<int> lanes(const Sweep &s) const
    {
        QList<int> out;
        for (int l = 0; l < board->laneCount(); ++l)
            if (s.spec.lanes.isEmpty() || s.spec.lanes.contains(l))
                out << l;
        return out;
    }
    // Slots neither running nor promised to a queued run.
    int freeSlots(int lane) const
    {
        int used = 0;
        for (RunId id : board->lane(lane).runs) {
            const RunInfo *r = runs->find(id);
            used += r && (isActive(r->state) || (r->state == RunState::Queued && !r->held)) ? 1 : 0;
        }
        return board->lane(lane).slotCount - used;
    }
    void setMessage(RunId id, const QString &text) const
    {
        runs->update(id, [&](RunInfo &r) { r.message = text; });
    }
    void save(const Sweep &s) const;
    RunId place(Sweep &s, int index, int lane, const QString &name, QString *error);
    std::optional<int> promotion(Sweep &s) const;
    bool resume(Sweep &s, Trial &t, int lane, QString *error);
    void restore(Sweep &s, QStringList *warnings);
    bool consume(RunId id, Sweep **changed);
};

void SweepRunner::State::save(const Sweep &s) const
{
    if (root.isEmpty() || restoring)
        return;
    SweepState state;
    state.specHash = SweepStateFile::specHash(s.spec);
    state.paused = s.paused;
    state.stopped = s.stopped;
    for (const auto &[index, t] : s.trials) {
        if (t.name.isEmpty())
            continue; // never placed: nothing on disk to come back to
        state.trials << SweepState::Trial{index, t.name, t.lane, t.paused, t.stopped, t.reason};
    }
    QString error;
    if (!SweepStateFile::write(SweepStateFile::path(root, s.spec.name), state, &error))
        qWarning("sweep %s: %s", qUtf8Printable(s.spec.name), qUtf8Printable(error));
}

RunId SweepRunner::State::place(Sweep &s, int index, int lane, const QString &name, QString *error)
{
    QJsonObject spec = trialRunSpec(s.spec, index);
    if (!name.isEmpty())
        spec.insert(QStringLiteral("name"), name);
    Trial &t = s.trials[index];
    t.index = index;
    t.lane = lane;
    // Marked as the sweep's before the board's edit lets the dispatcher start it.
    const QList<RunId> ids = board->addRun(lane, spec, 1, -1, error);
    if (ids.isEmpty()) {
        t.failed = true;
        t.reason = error ? *error : QString();
        return 0;
    }
    t.run = ids.first();
    t.name = runs->find(t.run)->name;
    runs->update(t.run, [&](RunInfo &r) {
        r.sweep = s.spec.name;
        r.trial = index;
    });
    return t.run;
}

std::optional<int> SweepRunner::State::promotion(Sweep &s) const
{
    if (!s.asha)
        return std::nullopt;
    while (const std::optional<int> p = s.asha->promotable()) {
        const auto it = s.trials.find(*p);
        const RunInfo *r = it != s.trials.end() ? runs->find(it->second.run) : nullptr;
        if (r && r->state == RunState::Stopped && it->second.paused)
            return p;
        if (r && isActive(r->state))
            break; // its pause is under way: promoted once it has ended
        // Ended otherwise: nothing to resume; ASHA forgets the pause.
        if (r && r->state == RunState::Finished)
            s.asha->promote(*p);
        else
            s.asha->fail(*p);
    }
    // Paused as the saved state says, but the records rebuilt from the
    // metrics (in another order) let it go on.
    for (const auto &[index, t] : s.trials) {
        const RunInfo *r = runs->find(t.run);
        if (t.paused && r && r->state == RunState::Stopped && !s.asha->isPaused(index))
            return index;
    }
    return std::nullopt;
}

bool SweepRunner::State::resume(Sweep &s, Trial &t, int lane, QString *error)
{
    const RunInfo *r = runs->find(t.run);
    if (r->lane != lane && !board->moveRun(t.run, lane, -1, error))
        return false;
    t.lane = lane;
    t.paused = false;
    t.reason.clear();
    if (s.asha)
        s.asha->promote(t.index);
    // From its checkpoint (a stopped run's resume): its curve goes on where it paused.
    if (!dispatcher->resumeRun(t.run, error)) {
        t.stopped = true;
        t.reason = QStringLiteral("could not resume: ") + (error ? *error : QString());
        setMessage(t.run, t.reason);
    }
    save(s);
    return !t.stopped;
}

void SweepRunner::State::restore(Sweep &s, QStringList *warnings)
{
    const QString path = SweepStateFile::path(root, s.spec.name);
    QString error;
    std::optional<SweepState> state = root.isEmpty() ? std::nullopt : SweepStateFile::read(path, &error);
    if (!error.isEmpty() || !state) {
        if (!error.isEmpty())
            *warnings
                << QStringLiteral("sweep %1: %2; it starts from what its run folders say").arg(s.spec.name, error);
        state = SweepState{};
        // Each trial's folder that exists is a placed trial, on its first lane.
        const QList<int> ls = lanes(s);
        for (int i = 0; i < s.spec.trialCount() && !root.isEmpty(); ++i) {
            const QString name = SweepSpec::trialName(s.spec.name, i);
            if (QFileInfo(QDir(root).filePath(name)).isDir())
                state->trials << SweepState::Trial{i, name, ls.value(0), false, false, QString()};
        }
    } else if (state->specHash != SweepStateFile::specHash(s.spec)) {
        *warnings << QStringLiteral("sweep %1: its saved trials were made by another version of its spec; they "
                                    "are kept, new trials follow this one")
                         .arg(s.spec.name);
    }
    s.paused = state->paused;
    s.stopped = state->stopped;
    for (const SweepState::Trial &saved : std::as_const(state->trials)) {
        if (saved.index >= s.spec.trialCount() || s.trials.count(saved.index)) {
            *warnings << QStringLiteral("sweep %1: %2: trial %3 is not one of its trials; left out")
                             .arg(s.spec.name, path)
                             .arg(saved.index + 1);
            continue;
        }
        const int lane = board->hasLane(saved.lane) ? saved.lane : lanes(s).value(0);
        QString why;
        if (place(s, saved.index, lane, saved.run, &why) == 0) {
            *warnings << QStringLiteral("sweep %1: trial %2: %3").arg(s.spec.name).arg(saved.index + 1).arg(why);
            continue;
        }
        Trial &t = s.trials[saved.index];
        t.paused = saved.paused;
        t.stopped = saved.stopped;
        t.reason = saved.reason;
        t.replay = true;
    }
}

// Reads the trial's objective points since the last look into its rule and
// applies what it says. A restored trial's points are read back first
// (`replay`): they rebuild the rule's records, and only a decision at the
// last rung its curve reaches can still hold. True when the trial changed.
bool SweepRunner::State::consume(RunId id, Sweep **changed)
{
    Sweep *s = nullptr;
    Trial *t = trialOf(id, &s);
    if (t && t->replay && (t->paused || t->stopped) && !t->reason.isEmpty())
        setMessage(id, t->reason); // over status.json's "stopped on request": the card says why
    const MetricSeries *series = t ? metrics->series(id, s->spec.objective) : nullptr;
    if (!series)
        return false;
    if (series->revision() != t->revision) { // points dropped at a resume: they come again
        t->revision = series->revision();
        t->seen = std::min(t->seen, series->size());
    }
    const MetricSeries *epochs =
        metrics->series(id, s->spec.objective.section(QLatin1Char('/'), 0, 0) + QStringLiteral("/epoch"));
    const bool bySteps = s->spec.stopping.resource == QStringLiteral("step");
    auto resourceAt = [&](std::size_t i) {
        const std::int64_t step = series->step(i);
        if (bySteps || !epochs)
            return double(step);
        const std::int64_t *begin = epochs->steps(), *end = begin + epochs->size();
        const std::int64_t *at = std::lower_bound(begin, end, step);
        return at != end && *at == step ? epochs->value(std::size_t(at - begin)) : double(step);
    };
    const QList<double> rungs = s->asha ? s->asha->rungs() : QList<double>();
    const double reached = series->isEmpty() ? -1 : resourceAt(series->size() - 1);
    const std::size_t from = t->seen;
    const bool replay = t->replay;
    t->replay = false;
    for (std::size_t i = from; i < series->size(); ++i) {
        const double value = series->value(i);
        const double resource = resourceAt(i);
        t->resource = resource;
        if (std::isnan(value))
            continue;
        if (s->better(value, t->best))
            t->best = value;
        if (!replay && (t->paused || t->stopped))
            continue; // decided: what it reports until it exits changes nothing
        const StopDecision d = s->asha     ? s->asha->report(t->index, resource, value)
                               : s->median ? s->median->report(t->index, resource, value)
                                           : StopDecision{};
        if (d.action == StopDecision::Action::Continue)
            continue;
        const RunInfo *r = runs->find(id);
        const bool live = isActive(r->state) && r->state != RunState::Stopping;
        // Whether this decision is still the trial's last word: no later point
        // (live), or read back, no later rung that its curve reached.
        const bool last = replay ? (d.rung < 0 ? i + 1 == series->size()
                                               : d.rung + 1 >= rungs.size() || rungs.at(d.rung + 1) > reached)
                                 : true;
        const bool keepSaved = replay && last && r->state == RunState::Stopped && t->paused;
        if (keepSaved || (d.action == StopDecision::Action::Stop && !live))
            continue;
        if (!last || !live || resource >= s->spec.stopping.max) {
            if (s->asha && d.action == StopDecision::Action::Pause)
                s->asha->promote(t->index); // it trained on past this rung, or finished
            continue;
        }
        t->reason = d.reason;
        (d.action == StopDecision::Action::Pause ? t->paused : t->stopped) = true;
        setMessage(id, d.reason);
        dispatcher->stopRun(id); // the worker checkpoints and exits 4: Stopped
        save(*s);
    }
    t->seen = series->size();
    *changed = s;
    return t->seen != from;
}

// ---- SweepRunner ------------------------------------------------------------

SweepRunner::SweepRunner(Board *board, Dispatcher *dispatcher, RunRegistry *runs, const MetricStore *metrics,
                         QObject *parent)
    : QObject(parent)
    , d(std::make_unique<State>(State{board, dispatcher, runs, metrics, {}, {}}))
{
    connect(metrics, &MetricStore::updated, this, [this](const QList<RunId> &ids) {
        for (RunId id : ids) {
            Sweep *s = nullptr;
            if (d->consume(id, &s))
                Q_EMIT trialsChanged(s->spec.name);
        }
    });
    connect(dispatcher, &Dispatcher::runEnded, this, [this](RunId id, RunState state) {
        Sweep *s = nullptr;
        Trial *t = d->trialOf(id, &s);
        if (!t)
            return;
        d->consume(id, &s); // its last reports, before the batch says them
        if (state == RunState::Stopped && !t->paused && !t->stopped) {
            t->stopped = true;
            t->reason = s->stopped ? QStringLiteral("the sweep was stopped") : QStringLiteral("stopped by hand");
        } else if (state != RunState::Stopped) {
            t->paused = t->stopped = false;
            if (state != RunState::Finished && s->asha)
                s->asha->fail(t->index); // out of the search, never its best
            else if (state != RunState::Finished && s->median)
                s->median->fail(t->index);
            else if (s->asha && s->asha->isPaused(t->index))
                s->asha->promote(t->index); // finished before its pause took
        }
        if (state == RunState::Stopped && !t->reason.isEmpty())
            d->setMessage(id, t->reason); // after the supervisor's words: the card says why
        d->save(*s);
        Q_EMIT trialsChanged(s->spec.name);
        fill();
    });
    connect(dispatcher, &Dispatcher::dispatchingStarted, this, &SweepRunner::fill);
    connect(board, &Board::edited, this, &SweepRunner::fill);
    connect(board, &Board::runDropping, this, [this](RunId id) {
        Sweep *s = nullptr;
        if (Trial *t = d->trialOf(id, &s); t && !d->restoring) {
            t->run = 0;
            t->failed = true;
            t->reason = QStringLiteral("taken off the board");
            if (s->asha)
                s->asha->fail(t->index);
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
    for (const auto &s : d->sweeps)
        d->save(*s);
    Q_EMIT sweepsChanged();
    for (const QString &w : std::as_const(warnings))
        Q_EMIT warning(w);
}

QList<SweepSpec> SweepRunner::sweeps() const
{
    QList<SweepSpec> out;
    for (const auto &s : d->sweeps)
        out << s->spec;
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
    if (!SweepSpec::fromJson(sweep.toJson(), QStringLiteral("sweep"), d->board->laneCount(), errors))
        return refuse(error, errors.join(QLatin1Char('\n')));
    if (d->find(sweep.name))
        return refuse(error, QStringLiteral("sweep.name: \"%1\" is already a sweep's name").arg(sweep.name));
    d->sweeps.push_back(std::make_unique<Sweep>(sweep));
    d->save(*d->sweeps.back());
    Q_EMIT sweepsChanged();
    fill();
    return true;
}

bool SweepRunner::removeSweep(const QString &name, QString *error)
{
    Sweep *s = d->find(name);
    if (!s)
        return refuse(error, QStringLiteral("no sweep %1").arg(name));
    for (const auto &[index, t] : s->trials)
        if (d->phase(t) == TrialInfo::Phase::Training)
            return refuse(error, QStringLiteral("%1 has trials in progress; stop them first").arg(name));
    // Its trials' folders stay; their runs leave the board with it.
    d->restoring = true;
    for (const auto &[index, t] : s->trials)
        if (t.run && d->runs->contains(t.run))
            d->board->removeRun(t.run);
    d->restoring = false;
    d->sweeps.erase(std::find_if(d->sweeps.begin(), d->sweeps.end(), [s](const auto &p) { return p.get() == s; }));
    Q_EMIT sweepsChanged();
    return true;
}

QList<TrialInfo> SweepRunner::trials(const QString &sweep) const
{
    QList<TrialInfo> out;
    const Sweep *s = d->find(sweep);
    for (int i = 0; s && i < s->spec.trialCount(); ++i) {
        TrialInfo info;
        info.index = i;
        info.values = s->spec.trialValues(i);
        if (const auto it = s->trials.find(i); it != s->trials.end()) {
            const Trial &t = it->second;
            info.run = t.run;
            info.phase = d->phase(t);
            info.objective = t.best;
            info.resource = t.resource;
            info.reason = t.reason;
            info.rung = s->asha ? s->asha->rungOf(i) : -1;
        }
        out << info;
    }
    return out;
}

QString SweepRunner::sweepOf(RunId run, int *trial) const
{
    Sweep *s = nullptr;
    const Trial *t = d->trialOf(run, &s);
    if (trial)
        *trial = t ? t->index : -1;
    return t ? s->spec.name : QString();
}

QString SweepRunner::progressLine(const QString &sweep) const
{
    const Sweep *s = d->find(sweep);
    if (!s)
        return {};
    QStringList parts;
    const int total = s->spec.trialCount();
    if (s->asha) {
        const QList<double> rungs = s->asha->rungs();
        for (int k = 0; k < rungs.size(); ++k) {
            const qsizetype n = s->asha->rungRecords(k).size();
            if (k == 0)
                parts << QStringLiteral("rung 1: %1/%2").arg(n).arg(total);
            else if (n > 0)
                parts << QStringLiteral("rung %1: %2").arg(k + 1).arg(n);
        }
    }
    int ended = 0;
    const Trial *best = nullptr;
    for (const auto &[index, t] : s->trials) {
        const TrialInfo::Phase p = d->phase(t);
        ended += p != TrialInfo::Phase::Waiting && p != TrialInfo::Phase::Training ? 1 : 0;
        if (p != TrialInfo::Phase::Failed && !std::isnan(t.best) && (!best || s->better(t.best, best->best)))
            best = &t;
    }
    if (!s->asha)
        parts << QStringLiteral("%1/%2 trials ended").arg(ended).arg(total);
    if (best) {
        QStringList values;
        const QJsonObject v = s->spec.trialValues(best->index);
        for (auto it = v.begin(); it != v.end(); ++it)
            values << it.key().section(QLatin1Char('.'), -1) + QLatin1Char(' ') + RunSpecView::valueText(it.value());
        parts << QStringLiteral("best %1 %2, trial %3: %4")
                     .arg(s->spec.objective, QString::number(best->best, 'g', 3))
                     .arg(best->index + 1)
                     .arg(values.join(QLatin1Char(' ')));
    }
    return parts.join(QStringLiteral(" · "));
}

bool SweepRunner::isDone(const QString &sweep) const
{
    const Sweep *s = d->find(sweep);
    if (!s)
        return false;
    for (int i = 0; i < s->spec.trialCount(); ++i) {
        const auto it = s->trials.find(i);
        const TrialInfo::Phase p = it == s->trials.end() ? TrialInfo::Phase::Waiting : d->phase(it->second);
        if (p == TrialInfo::Phase::Training || (p == TrialInfo::Phase::Waiting && !s->stopped))
            return false;
    }
    return s->stopped || !s->asha || !s->asha->promotable();
}

void SweepRunner::pauseSweep(const QString &sweep)
{
    if (Sweep *s = d->find(sweep)) {
        s->paused = true;
        d->save(*s);
        Q_EMIT trialsChanged(sweep);
    }
}

void SweepRunner::resumeSweep(const QString &sweep)
{
    if (Sweep *s = d->find(sweep)) {
        s->paused = s->stopped = false;
        d->save(*s);
        Q_EMIT trialsChanged(sweep);
        fill();
    }
}

void SweepRunner::stopSweep(const QString &sweep)
{
    Sweep *s = d->find(sweep);
    if (!s)
        return;
    s->stopped = true;
    for (auto &[index, t] : s->trials) {
        if (d->phase(t) == TrialInfo::Phase::Training && !t.paused) {
            t.stopped = true;
            t.reason = QStringLiteral("the sweep was stopped");
            d->dispatcher->stopRun(t.run);
        }
    }
    d->save(*s);
    Q_EMIT trialsChanged(sweep);
}

bool SweepRunner::addTrials(const QString &sweep, int count, QString *error)
{
    Sweep *s = d->find(sweep);
    if (!s)
        return refuse(error, QStringLiteral("no sweep %1").arg(sweep));
    if (s->spec.method != QStringLiteral("random"))
        return refuse(error, QStringLiteral("%1 searches a grid: it has every trial its space makes").arg(sweep));
    if (count < 1)
        return refuse(error, QStringLiteral("expected at least one trial, got %1").arg(count));
    s->spec.trials += count;
    s->stopped = false;
    d->save(*s);
    Q_EMIT trialsChanged(sweep);
    fill();
    return true;
}

bool SweepRunner::promoteTrial(const QString &sweep, int trial, QString *error)
{
    Sweep *s = d->find(sweep);
    auto it = s ? s->trials.find(trial) : std::map<int, Trial>::iterator();
    if (!s || it == s->trials.end() || d->phase(it->second) != TrialInfo::Phase::Paused)
        return refuse(error, QStringLiteral("trial %1 of %2 is not paused").arg(trial + 1).arg(sweep));
    for (int lane : d->lanes(*s))
        if (d->freeSlots(lane) > 0) {
            const bool ok = d->resume(*s, it->second, lane, error);
            Q_EMIT trialsChanged(sweep);
            return ok;
        }
    return refuse(error, QStringLiteral("none of %1's lanes has a free slot").arg(sweep));
}

bool SweepRunner::stopTrial(const QString &sweep, int trial, QString *error)
{
    Sweep *s = d->find(sweep);
    auto it = s ? s->trials.find(trial) : std::map<int, Trial>::iterator();
    const TrialInfo::Phase p = s && it != s->trials.end() ? d->phase(it->second) : TrialInfo::Phase::Waiting;
    if (p != TrialInfo::Phase::Training && p != TrialInfo::Phase::Paused)
        return refuse(error, QStringLiteral("trial %1 of %2 is neither training nor paused").arg(trial + 1).arg(sweep));
    Trial &t = it->second;
    t.paused = false;
    t.stopped = true;
    t.reason = QStringLiteral("stopped by hand");
    if (s->asha)
        s->asha->fail(trial); // never promoted again
    if (p == TrialInfo::Phase::Training)
        d->dispatcher->stopRun(t.run, error);
    d->setMessage(t.run, t.reason);
    d->save(*s);
    Q_EMIT trialsChanged(sweep);
    return true;
}

void SweepRunner::fill()
{
    if (d->filling) {
        d->refill = true; // an edit of our own: its slot is looked at after this pass
        return;
    }
    if (!d->dispatcher->isDispatching())
        return;
    d->filling = true;
    do {
        d->refill = false;
        for (const auto &sp : d->sweeps) {
            Sweep &s = *sp;
            bool placed = false;
            while (!s.paused && !s.stopped) {
                int lane = -1;
                for (int l : d->lanes(s))
                    if (d->freeSlots(l) > 0) {
                        lane = l;
                        break;
                    }
                if (lane < 0)
                    break;
                QString error;
                if (const std::optional<int> p = d->promotion(s)) {
                    if (!d->resume(s, s.trials[*p], lane, &error))
                        Q_EMIT warning(
                            QStringLiteral("sweep %1: trial %2: %3").arg(s.spec.name).arg(*p + 1).arg(error));
                    placed = true;
                    continue;
                }
                int next = 0;
                while (next < s.spec.trialCount() && s.trials.count(next))
                    ++next;
                if (next >= s.spec.trialCount())
                    break;
                if (d->place(s, next, lane, QString(), &error) == 0)
                    Q_EMIT warning(QStringLiteral("sweep %1: trial %2: %3").arg(s.spec.name).arg(next + 1).arg(error));
                d->save(s);
                placed = true;
            }
            if (placed)
                Q_EMIT trialsChanged(s.spec.name);
        }
    } while (d->refill);
    d->filling = false;
}

} // namespace trainyard
