#include "orchestration/placement/runresources.h"

#include "orchestration/placement/gpuplacer.h"

#include <QStringList>

namespace trainyard {

namespace {

const QString kResources = QStringLiteral("resources");
const QString kGpus = QStringLiteral("gpus");
const QString kMemory = QStringLiteral("gpu_memory");
const QString kOnOom = QStringLiteral("on_oom");

} // namespace

qint64 RunResources::memoryOf(const QJsonValue &v)
{
    if (v.isString()) {
        return parseMemory(v.toString());
    }
    const double d = v.toDouble(-1);
    return v.isDouble() && d >= 0 && d < 9.0e18 && d == double(qint64(d)) ? qint64(d) : -1;
}

RunResources RunResources::of(const QJsonObject &spec)
{
    RunResources r;
    const QJsonObject o = spec.value(kResources).toObject();
    r.gpus = o.value(kGpus).toInt(1);
    if (o.contains(kMemory)) {
        r.memoryBytes = memoryOf(o.value(kMemory));
    }
    r.retryOnOom = o.value(kOnOom).toString() == QLatin1String("retry");
    return r;
}

QString RunResources::gresFor(const QString &laneGres, int gpus)
{
    QStringList parts = (laneGres.isEmpty() ? QStringLiteral("gpu") : laneGres).split(QLatin1Char(':'));
    bool number = false;
    parts.last().toInt(&number);
    if (number && parts.size() > 1) {
        parts.removeLast();
    }
    parts << QString::number(gpus);
    return parts.join(QLatin1Char(':'));
}

bool RunResources::namesGpus(const QJsonObject &spec)
{
    return spec.value(kResources).toObject().contains(kGpus);
}

} // namespace trainyard
