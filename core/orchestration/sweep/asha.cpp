#include "orchestration/sweep/asha.h"

#include <QtMath>

#include <algorithm>
#include <cmath>

namespace trainyard {

namespace {

// Resources are epochs or steps, rungs products of doubles: compare with a
// little slack so that 3 * 3 * 3 reaches a rung at 27 written as 27.
constexpr double Slack = 1e-9;

bool reached(double resource, double rung)
{
    return resource + Slack * std::max(1.0, std::abs(rung)) >= rung;
}

QString resourceText(double r)
{
    return QString::number(r, 'g', 12);
}

// Three significant digits, more while the two values would read the same
// (0.2141 against 0.2143), so that a reason never says "0.214 below 0.214".
QString valueText(double v, double other = qQNaN())
{
    int digits = 3;
    while (digits < 8 && !std::isnan(other) && v != other
           && QString::number(v, 'g', digits) == QString::number(other, 'g', digits)) {
        ++digits;
    }
    return QString::number(v, 'g', digits);
}

QString fractionText(double eta)
{
    if (eta == 2) {
        return QStringLiteral("half");
    }
    if (eta == 3) {
        return QStringLiteral("third");
    }
    if (eta == 4) {
        return QStringLiteral("quarter");
    }
    if (eta == 5) {
        return QStringLiteral("fifth");
    }
    return QStringLiteral("1/") + QString::number(eta, 'g', 6);
}

QString ordinal(int n)
{
    const int tens = n % 100;
    const int units = n % 10;
    const char *suffix = "th";
    if (tens < 11 || tens > 13) {
        if (units == 1) {
            suffix = "st";
        } else if (units == 2) {
            suffix = "nd";
        } else if (units == 3) {
            suffix = "rd";
        }
    }
    return QString::number(n) + QLatin1String(suffix);
}

QString objectiveText(const QString &objective)
{
    return objective.isEmpty() ? QStringLiteral("objective") : objective;
}

// NaN below every number, in either mode.
bool isBetter(double a, double b, bool maximize)
{
    if (std::isnan(a)) {
        return false;
    }
    if (std::isnan(b)) {
        return true;
    }
    return maximize ? a > b : a < b;
}

bool sameValue(double a, double b)
{
    return a == b || (std::isnan(a) && std::isnan(b));
}

} // namespace

Asha::Asha(double min, double max, double eta, bool maximize, const QString &objective, const QString &resource)
    : m_eta(eta)
    , m_maximize(maximize)
    , m_objective(objectiveText(objective))
    , m_resource(resource)
{
    // SweepSpec refuses min <= 0, eta <= 1 and min > max; should one get
    // here anyway, a single rung (no early stopping) rather than a loop.
    if (!(min > 0) || !(eta > 1) || !(max >= min) || !std::isfinite(max)) {
        m_rungs = {std::max(min, max)};
    } else {
        for (double r = min; reached(max, r); r *= eta) {
            m_rungs.append(r);
        }
        if (!reached(m_rungs.last(), max)) {
            m_rungs.append(max);
        }
    }
    m_records.resize(m_rungs.size());
}

QList<double> Asha::rungs() const
{
    return m_rungs;
}

bool Asha::better(double a, double b) const
{
    return isBetter(a, b, m_maximize);
}

int Asha::topCount(int n) const
{
    return int(std::floor(n / m_eta + Slack));
}

int Asha::rankAt(int k, int trial) const
{
    const QList<Record> &records = m_records.at(k);
    int at = -1;
    for (int i = 0; i < records.size(); ++i) {
        if (records.at(i).trial == trial) {
            at = i;
        }
    }
    if (at < 0) {
        return -1;
    }
    const double v = records.at(at).value;
    int rank = 0;
    for (int i = 0; i < records.size(); ++i) {
        const double o = records.at(i).value;
        if (better(o, v) || (i < at && sameValue(o, v))) {
            ++rank;
        }
    }
    return rank;
}

QString Asha::decisionReason(int k, int trial, int rank, int top) const
{
    const QList<Record> &records = m_records.at(k);
    const int n = int(records.size());
    double value = qQNaN();
    for (const Record &r : records) {
        if (r.trial == trial) {
            value = r.value;
        }
    }
    const QString where = QStringLiteral("rung %1 (%2 %3): ").arg(k + 1).arg(m_resource, resourceText(m_rungs.at(k)));
    const QString topText = QStringLiteral("the top %1 of %2").arg(fractionText(m_eta)).arg(n);
    if (k == m_rungs.size() - 1) {
        return where + QStringLiteral("%1 %2, the last rung").arg(m_objective, valueText(value));
    }
    if (rank < top) {
        return where
               + QStringLiteral("%1 %2, %3 of %4, within %5")
                     .arg(m_objective, valueText(value), ordinal(rank + 1))
                     .arg(n)
                     .arg(topText);
    }
    if (top == 0) {
        const int needed = int(std::ceil(m_eta - Slack));
        return where
               + QStringLiteral("%1 %2, %3 recorded, too few for a top %4 (%5 needed)")
                     .arg(m_objective, valueText(value))
                     .arg(n)
                     .arg(fractionText(m_eta))
                     .arg(needed);
    }
    // The value the trial had to beat: the last one still in the top.
    double threshold = qQNaN();
    for (const Record &r : records) {
        if (rankAt(k, r.trial) == top - 1) {
            threshold = r.value;
        }
    }
    if (sameValue(value, threshold)) {
        return where
               + QStringLiteral("%1 %2 tied with %3, recorded earlier, %4")
                     .arg(m_objective, valueText(value), valueText(threshold), topText);
    }
    return where
           + QStringLiteral("%1 %2 %3 %4, %5")
                 .arg(m_objective, valueText(value, threshold),
                      m_maximize ? QStringLiteral("below") : QStringLiteral("above"), valueText(threshold, value),
                      topText);
}

StopDecision Asha::report(int trial, double resource, double value)
{
    Trial &t = m_trials[trial];
    StopDecision d;
    if (t.failed) {
        d.action = StopDecision::Action::Stop;
        d.reason = QStringLiteral("failed: out of the search");
        return d;
    }
    int reachedRung = -1;
    for (int k = t.rung + 1; k < m_rungs.size() && reached(resource, m_rungs.at(k)); ++k) {
        m_records[k].append({trial, value});
        reachedRung = k;
    }
    if (reachedRung < 0) {
        // Between rungs (or a late report of a trial being paused): no new decision.
        if (t.paused) {
            d.action = StopDecision::Action::Pause;
            d.rung = t.rung;
            d.reason = t.reason;
        }
        return d;
    }
    t.rung = reachedRung;
    t.paused = false; // reported past a new rung: it trains, promoted or not
    d.rung = reachedRung;
    const int rank = rankAt(reachedRung, trial);
    const int top = topCount(int(m_records.at(reachedRung).size()));
    const bool last = reachedRung == m_rungs.size() - 1;
    d.reason = decisionReason(reachedRung, trial, rank, top);
    if (!last && rank >= top) {
        d.action = StopDecision::Action::Pause;
        t.paused = true;
    }
    t.reason = d.reason;
    return d;
}

std::optional<int> Asha::promotable() const
{
    for (int k = int(m_rungs.size()) - 2; k >= 0; --k) {
        const QList<Record> &records = m_records.at(k);
        const int top = topCount(int(records.size()));
        std::optional<int> best;
        int bestRank = top;
        for (const Record &r : records) {
            const auto it = m_trials.constFind(r.trial);
            if (it == m_trials.cend() || !it->paused || it->failed || it->rung != k) {
                continue;
            }
            const int rank = rankAt(k, r.trial);
            if (rank < bestRank) {
                bestRank = rank;
                best = r.trial;
            }
        }
        if (best) {
            return best;
        }
    }
    return std::nullopt;
}

void Asha::promote(int trial)
{
    const auto it = m_trials.find(trial);
    if (it == m_trials.end() || !it->paused) {
        return;
    }
    it->paused = false;
    it->reason.clear();
}

void Asha::fail(int trial)
{
    Trial &t = m_trials[trial];
    t.failed = true;
    t.paused = false;
}

bool Asha::isPaused(int trial) const
{
    const auto it = m_trials.constFind(trial);
    return it != m_trials.cend() && it->paused;
}

int Asha::rungOf(int trial) const
{
    const auto it = m_trials.constFind(trial);
    return it == m_trials.cend() ? -1 : it->rung;
}

QHash<int, double> Asha::rungRecords(int k) const
{
    QHash<int, double> out;
    if (k < 0 || k >= m_records.size()) {
        return out;
    }
    for (const Record &r : m_records.at(k)) {
        out.insert(r.trial, r.value);
    }
    return out;
}

MedianRule::MedianRule(double grace, bool maximize, const QString &objective, const QString &resource)
    : m_grace(grace)
    , m_maximize(maximize)
    , m_objective(objectiveText(objective))
    , m_resource(resource)
{
}

StopDecision MedianRule::report(int trial, double resource, double value)
{
    StopDecision d;
    Trial &t = m_trials[trial];
    if (t.failed || t.stopped) {
        d.action = StopDecision::Action::Stop;
        d.reason = t.failed ? QStringLiteral("failed: out of the search") : t.reason;
        return d;
    }
    t.points.append({resource, value});
    if (!reached(resource, m_grace)) {
        return d;
    }

    double best = qQNaN();
    for (const Point &p : t.points) {
        if (isBetter(p.value, best, m_maximize)) {
            best = p.value;
        }
    }

    QList<double> averages;
    for (auto it = m_trials.cbegin(); it != m_trials.cend(); ++it) {
        if (it.key() == trial) {
            continue;
        }
        double furthest = -qInf();
        double sum = 0;
        int count = 0;
        for (const Point &p : it->points) {
            furthest = std::max(furthest, p.resource);
            if (reached(resource, p.resource) && !std::isnan(p.value)) {
                sum += p.value;
                ++count;
            }
        }
        if (count > 0 && reached(furthest, resource)) {
            averages.append(sum / count);
        }
    }
    if (averages.isEmpty()) {
        return d;
    }
    std::sort(averages.begin(), averages.end());
    const qsizetype n = averages.size();
    const double median = n % 2 ? averages.at(n / 2) : (averages.at(n / 2 - 1) + averages.at(n / 2)) / 2;
    if (!isBetter(median, best, m_maximize)) {
        return d;
    }
    d.action = StopDecision::Action::Stop;
    d.reason = QStringLiteral("%1 %2: best %3 %4 %5 %6, the median of %7 other trial%8 running average%9")
                   .arg(m_resource, resourceText(resource), m_objective, valueText(best, median),
                        m_maximize ? QStringLiteral("below") : QStringLiteral("above"), valueText(median, best))
                   .arg(n)
                   .arg(n == 1 ? QStringLiteral("'s") : QStringLiteral("s'"), n == 1 ? QString() : QStringLiteral("s"));
    t.stopped = true;
    t.reason = d.reason;
    return d;
}

void MedianRule::fail(int trial)
{
    m_trials[trial].failed = true;
}

} // namespace trainyard
