#include "orchestration/sweep/sweepsearch.h"

#include "metrics/metricstore.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"

#include <algorithm>
#include <cmath>

namespace trainyard {

SweepSearch::SweepSearch(const SweepSpec &s)
    : spec(s)
{
    const SweepStopping &st = s.stopping;
    if (st.rule == SweepStopping::Rule::Asha) {
        m_asha = std::make_unique<Asha>(st.min, st.max, st.eta, s.maximize, s.objective, st.resource);
    } else if (st.rule == SweepStopping::Rule::Median) {
        m_median = std::make_unique<MedianRule>(st.min, s.maximize, s.objective, st.resource);
    }
}

QJsonObject SweepSearch::trialRunSpec(int index) const
{
    QJsonObject run = spec.trialSpec(index);
    if (spec.stopping.rule != SweepStopping::Rule::None && spec.stopping.max > 0
        && !run.contains(QStringLiteral("program"))) {
        setSpecValue(run,
                     spec.stopping.resource == QStringLiteral("step") ? QStringLiteral("train.max_steps")
                                                                      : QStringLiteral("train.epochs"),
                     qint64(std::ceil(spec.stopping.max)));
    }
    return run;
}

SweepSearch::Trial *SweepSearch::trial(int index)
{
    const auto it = m_trials.find(index);
    return it == m_trials.end() ? nullptr : &it->second;
}

SweepSearch::Trial &SweepSearch::place(int index)
{
    Trial &t = m_trials[index];
    t.index = index;
    return t;
}

int SweepSearch::nextNew() const
{
    int next = 0;
    while (next < spec.trialCount() && m_trials.count(next)) {
        ++next;
    }
    return next < spec.trialCount() ? next : -1;
}

TrialInfo::Phase SweepSearch::phase(const Trial &t, const RunRegistry &runs) const
{
    using P = TrialInfo::Phase;
    const RunInfo *r = t.run ? runs.find(t.run) : nullptr;
    if (t.failed || (t.run && !r)) {
        return P::Failed;
    }
    if (!r) {
        return P::Waiting;
    }
    if (r->state == RunState::Queued || isActive(r->state)) {
        return P::Training;
    }
    if (r->state == RunState::Finished) {
        return P::Finished;
    }
    if (r->state == RunState::Stopped) {
        return t.paused ? P::Paused : P::Stopped;
    }
    return P::Failed;
}

QList<TrialInfo> SweepSearch::trials(const RunRegistry &runs) const
{
    QList<TrialInfo> out;
    for (int i = 0; i < spec.trialCount(); ++i) {
        TrialInfo info;
        info.index = i;
        info.values = spec.trialValues(i);
        if (const auto it = m_trials.find(i); it != m_trials.end()) {
            const Trial &t = it->second;
            info.run = t.run;
            info.phase = phase(t, runs);
            info.objective = t.best;
            info.resource = t.resource;
            info.reason = t.reason;
            info.rung = m_asha ? m_asha->rungOf(i) : -1;
        }
        out << info;
    }
    return out;
}

QString SweepSearch::progressLine(const RunRegistry &runs) const
{
    QStringList parts;
    const int total = spec.trialCount();
    if (m_asha) {
        const QList<double> rungs = m_asha->rungs();
        for (int k = 0; k < rungs.size(); ++k) {
            const qsizetype n = m_asha->rungRecords(k).size();
            if (k == 0) {
                parts << QStringLiteral("rung 1: %1/%2").arg(n).arg(total);
            } else if (n > 0) {
                parts << QStringLiteral("rung %1: %2").arg(k + 1).arg(n);
            }
        }
    }
    int ended = 0;
    const Trial *best = nullptr;
    for (const auto &[index, t] : m_trials) {
        const TrialInfo::Phase p = phase(t, runs);
        ended += p != TrialInfo::Phase::Waiting && p != TrialInfo::Phase::Training ? 1 : 0;
        // A failed trial is out of the search: never its best.
        if (p != TrialInfo::Phase::Failed && !std::isnan(t.best) && (!best || better(t.best, best->best))) {
            best = &t;
        }
    }
    if (!m_asha) {
        parts << QStringLiteral("%1/%2 trials ended").arg(ended).arg(total);
    }
    if (best) {
        QStringList values;
        const QJsonObject v = spec.trialValues(best->index);
        for (auto it = v.begin(); it != v.end(); ++it) {
            values << it.key().section(QLatin1Char('.'), -1) + QLatin1Char(' ')
                          + RunSpecView::shortValueText(it.value());
        }
        parts << QStringLiteral("best %1 %2, trial %3: %4")
                     .arg(spec.objective, QString::number(best->best, 'g', 3))
                     .arg(best->index + 1)
                     .arg(values.join(QLatin1Char(' ')));
    }
    return parts.join(QStringLiteral(" · "));
}

bool SweepSearch::isDone(const RunRegistry &runs) const
{
    for (int i = 0; i < spec.trialCount(); ++i) {
        const auto it = m_trials.find(i);
        const TrialInfo::Phase p = it == m_trials.end() ? TrialInfo::Phase::Waiting : phase(it->second, runs);
        if (p == TrialInfo::Phase::Training || (p == TrialInfo::Phase::Waiting && !stopped)) {
            return false;
        }
    }
    return stopped || !m_asha || (!m_asha->promotable() && !lastPromotion(runs));
}

// A restored trial's points are read back first (`replay`): they rebuild
// the rule's records, and only a decision at the last rung its curve
// reaches can still hold.
QList<SweepSearch::Stop> SweepSearch::read(Trial &t, const MetricStore &metrics, const RunRegistry &runs, bool *changed)
{
    QList<Stop> stops;
    *changed = false;
    const MetricSeries *series = metrics.series(t.run, spec.objective);
    const RunInfo *r = runs.find(t.run);
    if (!series || !r) {
        return stops;
    }
    if (series->revision() != t.revision) { // points dropped at a resume: they come again
        t.revision = series->revision();
        t.seen = std::min(t.seen, series->size());
    }
    const MetricSeries *epochs =
        metrics.series(t.run, spec.objective.section(QLatin1Char('/'), 0, 0) + QStringLiteral("/epoch"));
    const bool bySteps = spec.stopping.resource == QStringLiteral("step");
    auto resourceAt = [&](std::size_t i) {
        const std::int64_t step = series->step(i);
        if (bySteps || !epochs) {
            return double(step);
        }
        const std::int64_t *begin = epochs->steps(), *end = begin + epochs->size();
        const std::int64_t *at = std::lower_bound(begin, end, step);
        return at != end && *at == step ? epochs->value(std::size_t(at - begin)) : double(step);
    };
    const QList<double> rungs = m_asha ? m_asha->rungs() : QList<double>();
    const double reached = series->isEmpty() ? -1 : resourceAt(series->size() - 1);
    const bool live = isActive(r->state) && r->state != RunState::Stopping;
    // Not started yet (a promoted trial queued or pending again): its points
    // are the last attempt's, sent after its pause was decided and read late.
    // They are judged once it runs; a stop now would cancel a job that never
    // ran, and its trial would leave the search.
    const bool notStarted =
        r->state == RunState::Queued || r->state == RunState::Waiting || r->state == RunState::Starting;
    const bool replay = t.replay;
    t.replay = false;
    std::size_t seen = series->size();
    for (std::size_t i = t.seen; i < series->size(); ++i) {
        const double value = series->value(i);
        const double resource = resourceAt(i);
        t.resource = resource;
        if (std::isnan(value)) {
            continue;
        }
        if (better(value, t.best)) {
            t.best = value;
        }
        if (!replay && (t.paused || t.stopped)) {
            continue; // decided: what it reports until it exits changes nothing
        }
        if (!replay && notStarted) {
            seen = i;
            break;
        }
        const StopDecision d = m_asha     ? m_asha->report(t.index, resource, value)
                               : m_median ? m_median->report(t.index, resource, value)
                                          : StopDecision{};
        if (d.action == StopDecision::Action::Continue) {
            continue;
        }
        // Whether this decision is still the trial's last word: live, or
        // read back with no later rung that its curve reached.
        const bool last =
            !replay
            || (d.rung < 0 ? i + 1 == series->size() : d.rung + 1 >= rungs.size() || rungs.at(d.rung + 1) > reached);
        if ((replay && last && r->state == RunState::Stopped && t.paused)
            || (d.action == StopDecision::Action::Stop && !live)) {
            continue; // as saved; a stop of an ended run changes nothing
        }
        if (!last || !live || resource >= spec.stopping.max) {
            if (m_asha && d.action == StopDecision::Action::Pause) {
                m_asha->promote(t.index); // it trained on past this rung, or finished
            }
            continue;
        }
        t.reason = d.reason;
        (d.action == StopDecision::Action::Pause ? t.paused : t.stopped) = true;
        stops << Stop{t.run, d.reason};
    }
    *changed = t.seen != seen;
    t.seen = seen;
    return stops;
}

void SweepSearch::ended(Trial &t, RunState state)
{
    if (state == RunState::Stopped && !t.paused && !t.stopped) {
        t.stopped = true;
        t.reason = stopped ? QStringLiteral("the sweep was stopped") : QStringLiteral("stopped by hand");
    } else if (state != RunState::Stopped) {
        t.paused = t.stopped = false;
        if (state != RunState::Finished) {
            fail(t.index); // out of the search, never its best
        } else if (m_asha && m_asha->isPaused(t.index)) {
            m_asha->promote(t.index); // finished before its pause took
        }
    }
}

std::optional<int> SweepSearch::promotion(const RunRegistry &runs)
{
    if (!m_asha) {
        return std::nullopt;
    }
    while (const std::optional<int> p = m_asha->promotable()) {
        const Trial *t = trial(*p);
        const RunInfo *r = t ? runs.find(t->run) : nullptr;
        if (r && r->state == RunState::Stopped && t->paused) {
            return p;
        }
        if (r && isActive(r->state)) {
            break; // its pause is under way: promoted once it has ended
        }
        // Ended otherwise: nothing to resume; ASHA forgets the pause.
        if (r && r->state == RunState::Finished) {
            m_asha->promote(*p);
        } else {
            m_asha->fail(*p);
        }
    }
    // Paused as the saved state says, but the records rebuilt from the
    // metrics (in another order) let it go on.
    for (const auto &[index, t] : m_trials) {
        const RunInfo *r = runs.find(t.run);
        if (t.paused && r && r->state == RunState::Stopped && !m_asha->isPaused(index)) {
            return index;
        }
    }
    return lastPromotion(runs);
}

// ASHA assumes new trials keep coming; a sweep's are counted. Once none is
// left to place and none trains, while no trial has trained to the end, a
// rung too small for its top 1/eta would end the search there: the best
// paused trial of the highest rung goes on instead.
std::optional<int> SweepSearch::lastPromotion(const RunRegistry &runs) const
{
    if (!m_asha || stopped || nextNew() >= 0) {
        return std::nullopt;
    }
    std::optional<int> best;
    int bestRung = -1;
    double bestValue = qQNaN();
    for (const auto &[index, t] : m_trials) {
        const TrialInfo::Phase p = phase(t, runs);
        if (p == TrialInfo::Phase::Training || p == TrialInfo::Phase::Finished) {
            return std::nullopt;
        }
        if (p != TrialInfo::Phase::Paused) {
            continue;
        }
        const int rung = m_asha->rungOf(index);
        const double value = m_asha->rungRecords(rung).value(index, qQNaN());
        if (rung > bestRung || (rung == bestRung && better(value, bestValue))) {
            best = index;
            bestRung = rung;
            bestValue = value;
        }
    }
    return best;
}

void SweepSearch::promote(Trial &t)
{
    t.paused = false;
    t.reason.clear();
    if (m_asha) {
        m_asha->promote(t.index);
    }
}

void SweepSearch::fail(int index)
{
    if (m_asha) {
        m_asha->fail(index);
    }
    if (m_median) {
        m_median->fail(index);
    }
}

} // namespace trainyard
