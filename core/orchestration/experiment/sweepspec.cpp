#include "orchestration/experiment/sweepspec.h"

#include "orchestration/experiment/sweepdetail.h"
#include "orchestration/runspec/runspecview.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <cmath>

namespace trainyard {

using namespace sweepdetail;

namespace {

// The random sampler: SplitMix64 to seed xoshiro256** (Blackman and Vigna),
// both fixed here so that a seed gives the same trials on every machine and
// with every standard library (<random>'s distributions are not specified
// bit for bit).
std::uint64_t splitMix64(std::uint64_t &state)
{
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

class Xoshiro256
{
public:
    // One stream per trial: the sweep's seed and the trial's index mixed,
    // so trial i's draws never depend on how many trials came before.
    Xoshiro256(std::uint64_t seed, std::uint64_t trial)
    {
        std::uint64_t sm = seed;
        sm = splitMix64(sm) ^ (trial * 0xD1B54A32D192ED03ULL);
        for (std::uint64_t &word : m_s) {
            word = splitMix64(sm);
        }
    }
    std::uint64_t next()
    {
        const std::uint64_t result = rotl(m_s[1] * 5, 7) * 9;
        const std::uint64_t t = m_s[1] << 17;
        m_s[2] ^= m_s[0];
        m_s[3] ^= m_s[1];
        m_s[1] ^= m_s[2];
        m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = rotl(m_s[3], 45);
        return result;
    }
    // [0, 1): the top 53 bits, exactly representable.
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t m_s[4];
};

// A range's i-th value, low + i·step computed afresh (no running sum to
// drift) and cut to 12 significant digits, so 0.1 + 2·0.1 reads 0.3.
double rangeValue(const SweepParameter &p, qint64 i)
{
    const double v = p.low + double(i) * p.step;
    return p.integer ? v : QString::number(v, 'g', 12).toDouble();
}

// How many values a grid takes of `p`, and the i-th of them, without
// listing them all (a trial asks for one of a range's thousands).
qint64 valueCount(const SweepParameter &p)
{
    if (p.kind == SweepParameter::Kind::Range) {
        return std::min(rangeCount(p.low, p.high, p.step), kMaxRangeValues);
    }
    return p.isDiscrete() ? p.values.size() : 0;
}

QJsonValue valueAt(const SweepParameter &p, qint64 i)
{
    if (p.kind == SweepParameter::Kind::Range) {
        return numberValue(rangeValue(p, i), p.integer);
    }
    return p.values.value(i);
}

} // namespace

namespace sweepdetail {

QJsonValue numberValue(double d, bool integer)
{
    if (integer) {
        return QJsonValue(qint64(std::llround(d)));
    }
    return QJsonValue(d);
}

qint64 rangeCount(double low, double high, double step)
{
    if (!(step > 0) || low > high) {
        return 0;
    }
    const double n = std::floor((high - low) / step * (1 + 1e-12) + 1e-9) + 1;
    return n > double(kMaxRangeValues) ? kMaxRangeValues + 1 : qint64(n);
}

QString kindName(SweepParameter::Kind kind)
{
    switch (kind) {
    case SweepParameter::Kind::Fixed:
        return QStringLiteral("fixed");
    case SweepParameter::Kind::Values:
        return QStringLiteral("values");
    case SweepParameter::Kind::Range:
        return QStringLiteral("range");
    case SweepParameter::Kind::Uniform:
        return QStringLiteral("uniform");
    case SweepParameter::Kind::LogUniform:
        return QStringLiteral("log_uniform");
    }
    return {};
}

} // namespace sweepdetail

QList<QJsonValue> SweepParameter::gridValues() const
{
    switch (kind) {
    case Kind::Fixed:
    case Kind::Values:
        return values;
    case Kind::Range: {
        QList<QJsonValue> out;
        const qint64 n = std::min(rangeCount(low, high, step), kMaxRangeValues);
        for (qint64 i = 0; i < n; ++i) {
            out << numberValue(rangeValue(*this, i), integer);
        }
        return out;
    }
    case Kind::Uniform:
    case Kind::LogUniform:
        break;
    }
    return {};
}

std::optional<SweepSpec> SweepSpec::fromJson(const QJsonObject &o, const QString &path, int laneCount,
                                             QStringList &errors, const ModelCatalogue *catalogue)
{
    const qsizetype before = errors.size();
    SweepSpec sweep = parseSweep(o, path, laneCount, errors, catalogue);
    if (errors.size() != before) {
        return std::nullopt;
    }
    return sweep;
}

QJsonObject SweepSpec::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("name"), name);
    o.insert(QStringLiteral("base"), base);
    QJsonObject keys;
    for (const SweepParameter &p : space) {
        QJsonObject po;
        switch (p.kind) {
        case SweepParameter::Kind::Fixed:
            po.insert(QStringLiteral("fixed"), p.values.value(0));
            break;
        case SweepParameter::Kind::Values: {
            QJsonArray items;
            for (const QJsonValue &v : p.values) {
                items.append(v);
            }
            po.insert(QStringLiteral("values"), items);
        } break;
        case SweepParameter::Kind::Range:
            po.insert(QStringLiteral("range"),
                      QJsonArray{numberValue(p.low, p.integer), numberValue(p.high, p.integer)});
            po.insert(QStringLiteral("step"), numberValue(p.step, p.integer));
            break;
        case SweepParameter::Kind::Uniform:
        case SweepParameter::Kind::LogUniform:
            po.insert(kindName(p.kind), QJsonArray{numberValue(p.low, p.integer), numberValue(p.high, p.integer)});
            if (p.integer) {
                po.insert(QStringLiteral("int"), true);
            }
            break;
        }
        keys.insert(p.key, po);
    }
    o.insert(QStringLiteral("space"), keys);
    o.insert(QStringLiteral("method"), method);
    if (trials > 0) {
        o.insert(QStringLiteral("trials"), trials);
    }
    if (method == QLatin1String("random")) {
        o.insert(QStringLiteral("seed"), qint64(seed));
    }
    if (maxGrid != 1000) {
        o.insert(QStringLiteral("max_grid"), maxGrid);
    }
    if (!lanes.isEmpty()) {
        QJsonArray items;
        for (int lane : lanes) {
            items.append(lane);
        }
        o.insert(QStringLiteral("lanes"), items);
    }
    o.insert(QStringLiteral("objective"),
             QJsonObject{{QStringLiteral("metric"), objective},
                         {QStringLiteral("mode"), maximize ? QStringLiteral("max") : QStringLiteral("min")}});
    if (stopping.rule != SweepStopping::Rule::None) {
        QJsonObject s{{QStringLiteral("rule"),
                       stopping.rule == SweepStopping::Rule::Asha ? QStringLiteral("asha") : QStringLiteral("median")},
                      {QStringLiteral("resource"), stopping.resource},
                      {QStringLiteral("min"), stopping.min},
                      {QStringLiteral("max"), stopping.max}};
        if (stopping.rule == SweepStopping::Rule::Asha) {
            s.insert(QStringLiteral("eta"), stopping.eta);
        }
        o.insert(QStringLiteral("early_stopping"), s);
    }
    return o;
}

int SweepSpec::trialCount() const
{
    if (method == QLatin1String("random")) {
        return trials;
    }
    qint64 size = 1;
    for (const SweepParameter &p : space) {
        size = std::min<qint64>(size * valueCount(p), qint64(1) << 40);
    }
    if (trials > 0) {
        size = std::min<qint64>(size, trials);
    }
    return int(std::min<qint64>(size, kMaxTrials));
}

QJsonObject SweepSpec::trialValues(int index) const
{
    QJsonObject out;
    if (method == QLatin1String("random")) {
        // One draw per key, in the space's (name) order, also for a fixed key:
        // fixing one key leaves the others' values as they were.
        Xoshiro256 rng(seed, std::uint64_t(index));
        for (const SweepParameter &p : space) {
            const double u = rng.uniform();
            QJsonValue v;
            switch (p.kind) {
            case SweepParameter::Kind::Fixed:
            case SweepParameter::Kind::Values:
            case SweepParameter::Kind::Range: {
                const qint64 n = valueCount(p);
                v = valueAt(p, std::min<qint64>(qint64(u * double(n)), n - 1));
                break;
            }
            case SweepParameter::Kind::Uniform:
                v = numberValue(p.low + u * (p.high - p.low), p.integer);
                break;
            case SweepParameter::Kind::LogUniform:
                v = numberValue(std::exp(std::log(p.low) + u * (std::log(p.high) - std::log(p.low))), p.integer);
                break;
            }
            out.insert(p.key, v);
        }
        return out;
    }
    // Grid: mixed radix over the keys, the last key the fastest digit.
    qint64 rest = index;
    for (qsizetype k = space.size() - 1; k >= 0; --k) {
        const qint64 n = valueCount(space.at(k));
        if (n == 0) {
            continue;
        }
        out.insert(space.at(k).key, valueAt(space.at(k), rest % n));
        rest /= n;
    }
    return out;
}

QJsonObject SweepSpec::trialSpec(int index) const
{
    QJsonObject spec = base;
    const QJsonObject values = trialValues(index);
    for (auto it = values.begin(); it != values.end(); ++it) {
        setSpecValue(spec, it.key(), it.value());
    }
    spec.insert(QStringLiteral("name"), trialName(name, index));
    if (!values.contains(QStringLiteral("train.seed"))) {
        const qint64 seed = RunSpecView(base).seed().value_or(1);
        setSpecValue(spec, QStringLiteral("train.seed"), seed + index);
    }
    return spec;
}

QString SweepSpec::trialName(const QString &sweep, int index)
{
    return sweep + QLatin1Char('-') + QString::number(index + 1);
}

bool SweepSpec::isTrialRunName(const QString &sweep, int index, const QString &run)
{
    const QString name = trialName(sweep, index);
    const QRegularExpression named(
        QRegularExpression::anchoredPattern(QRegularExpression::escape(name) + QStringLiteral("(-[0-9]+)?")));
    return named.match(run).hasMatch();
}

void setSpecValue(QJsonObject &spec, const QString &key, const QJsonValue &value)
{
    const qsizetype dot = key.indexOf(QLatin1Char('.'));
    if (dot < 0) {
        spec.insert(key, value);
        return;
    }
    const QString head = key.left(dot);
    QJsonObject inner = spec.value(head).toObject();
    setSpecValue(inner, key.mid(dot + 1), value);
    spec.insert(head, inner);
}

QJsonArray sweepsToJson(const QList<SweepSpec> &sweeps)
{
    QJsonArray out;
    for (const SweepSpec &s : sweeps) {
        out.append(s.toJson());
    }
    return out;
}

} // namespace trainyard
