#include "placement/runresources.h"

#include "placement/gpuplacer.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace trainyard {

namespace {

const QString kResources = QStringLiteral("resources");
const QString kGpus = QStringLiteral("gpus");
const QString kMemory = QStringLiteral("gpu_memory");
const QString kOnOom = QStringLiteral("on_oom");
constexpr int kMaxGpus = 64;

qint64 memoryOf(const QJsonValue &v)
{
    if (v.isString())
        return parseMemory(v.toString());
    const double d = v.toDouble(-1);
    return v.isDouble() && d >= 0 && d < 9.0e18 && d == double(qint64(d)) ? qint64(d) : -1;
}

QString shown(const QJsonValue &v)
{
    if (v.isString())
        return QLatin1Char('"') + v.toString().left(60) + QLatin1Char('"');
    if (v.isDouble())
        return QString::number(v.toDouble());
    return QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact).mid(1).chopped(1)).left(60);
}

} // namespace

RunResources RunResources::of(const QJsonObject &spec)
{
    RunResources r;
    const QJsonObject o = spec.value(kResources).toObject();
    r.gpus = o.value(kGpus).toInt(1);
    if (o.contains(kMemory))
        r.memoryBytes = memoryOf(o.value(kMemory));
    r.retryOnOom = o.value(kOnOom).toString() == QLatin1String("retry");
    return r;
}

QString RunResources::gresFor(const QString &laneGres, int gpus)
{
    QStringList parts = (laneGres.isEmpty() ? QStringLiteral("gpu") : laneGres).split(QLatin1Char(':'));
    bool number = false;
    parts.last().toInt(&number);
    if (number && parts.size() > 1)
        parts.removeLast();
    parts << QString::number(gpus);
    return parts.join(QLatin1Char(':'));
}

bool RunResources::namesGpus(const QJsonObject &spec)
{
    return spec.value(kResources).toObject().contains(kGpus);
}

QStringList RunResources::validate(const QJsonValue &value, const QString &path)
{
    QStringList errors;
    if (!value.isObject())
        return {QStringLiteral("%1: expected an object such as {\"gpus\": 1, \"gpu_memory\": \"30GiB\"}, got %2")
                    .arg(path, shown(value))};
    const QJsonObject o = value.toObject();
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (it.key() != kGpus && it.key() != kMemory && it.key() != kOnOom)
            errors << QStringLiteral("%1.%2: unknown key (expected \"gpus\", \"gpu_memory\" or \"on_oom\")")
                          .arg(path, it.key());
    }
    if (o.contains(kGpus)) {
        const QJsonValue g = o.value(kGpus);
        if (!g.isDouble() || g.toDouble() != double(g.toInt()) || g.toInt() < 1 || g.toInt() > kMaxGpus)
            errors << QStringLiteral("%1.gpus: expected an integer from 1 to %2, got %3")
                          .arg(path)
                          .arg(kMaxGpus)
                          .arg(shown(g));
    }
    if (o.contains(kMemory) && memoryOf(o.value(kMemory)) < 0)
        errors << QStringLiteral("%1.gpu_memory: expected a number of bytes or a size such as \"30GiB\" or "
                                 "\"512MiB\", got %2")
                      .arg(path, shown(o.value(kMemory)));
    if (o.contains(kOnOom)) {
        const QJsonValue v = o.value(kOnOom);
        if (v != QJsonValue(QStringLiteral("fail")) && v != QJsonValue(QStringLiteral("retry")))
            errors << QStringLiteral("%1.on_oom: expected \"fail\" or \"retry\", got %2").arg(path, shown(v));
    }
    return errors;
}

} // namespace trainyard
