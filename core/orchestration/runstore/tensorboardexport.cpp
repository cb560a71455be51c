#include "orchestration/runstore/tensorboardexport.h"

#include "metrics/metricstore.h"
#include "metrics/tensorboard/eventfilewriter.h"
#include "orchestration/records/runinfo.h"
#include "orchestration/runstore/runstore.h"
#include "protocol/metricrecord.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSysInfo>

#include <algorithm>
#include <cmath>

namespace trainyard {

QString TensorBoardExport::refusal(const QString &dir, const QStringList &runs)
{
    for (const QString &run : runs) {
        const QString sub = dir + QLatin1Char('/') + run;
        const QFileInfo info(sub);
        if (info.isSymLink() || (info.exists() && !info.isDir())) {
            return QStringLiteral("%1: exists and is not a folder; nothing was written").arg(sub);
        }
        if (info.exists()
            && !QDir(sub).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System)) {
            return QStringLiteral("%1: already holds files, which are kept; export into another folder "
                                  "(nothing was written)")
                .arg(sub);
        }
    }
    return {};
}

double TensorBoardExport::startTime(const RunStore &store, const QString &name, double lastWall)
{
    RunInfo info;
    if (store.readStatus(name, &info) && info.started.isValid()) {
        return double(info.started.toMSecsSinceEpoch()) / 1000.0;
    }
    const QFileInfo metrics(store.runDir(name) + QStringLiteral("/metrics.jsonl"));
    const QDateTime modified = metrics.lastModified();
    return modified.isValid() ? double(modified.toMSecsSinceEpoch()) / 1000.0 - lastWall : 0.0;
}

TensorBoardExport::Result TensorBoardExport::writeRun(const RunStore &store, const QString &name, const QString &dir,
                                                      const HParams &hparams)
{
    Result result;
    MetricStore metrics;
    const RunId id = 1;
    const RunStore::ReadResult read =
        store.readMetrics(name, 0, [&](const MetricRecord &record) { metrics.add(id, record); });
    if (!read.error.isEmpty()) {
        result.warning = read.error;
    }
    struct Point
    {
        std::int64_t step;
        double wall;
        QString tag;
        double value;
    };
    QList<Point> points;
    double lastWall = 0;
    for (const QString &metric : metrics.metricNames(id)) {
        if (MetricStore::isBookkeeping(metric)) {
            continue; // as the CSV: an epoch says when, not how well
        }
        const MetricSeries *s = metrics.series(id, metric);
        for (std::size_t i = 0; s && i < s->size(); ++i) {
            points.append({s->step(i), s->wall(i), metric, s->value(i)});
            lastWall = std::max(lastWall, s->wall(i));
        }
    }
    std::stable_sort(points.begin(), points.end(), [](const Point &a, const Point &b) {
        return a.step != b.step ? a.step < b.step : a.wall < b.wall;
    });
    const double start = startTime(store, name, lastWall);

    const QString sub = dir + QLatin1Char('/') + name;
    if (!QDir().mkpath(sub)) {
        result.error = QStringLiteral("%1: cannot create the folder").arg(sub);
        return result;
    }
    const QString host =
        QSysInfo::machineHostName().isEmpty() ? QStringLiteral("localhost") : QSysInfo::machineHostName();
    result.file = QStringLiteral("%1/events.out.tfevents.%2.%3.%4.trainyard")
                      .arg(sub)
                      .arg(QDateTime::currentSecsSinceEpoch())
                      .arg(host)
                      .arg(QCoreApplication::applicationPid());
    QFile file(result.file);
    // NewOnly: O_EXCL, so neither a file nor a link already there is written through.
    if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly)) {
        result.error = QStringLiteral("%1: cannot write: %2").arg(result.file, file.errorString());
        return result;
    }
    TensorBoardEventWriter writer(&file, start);
    if (!hparams.isEmpty()) {
        writer.writeHParams(hparams, start);
    }
    for (const Point &p : std::as_const(points)) {
        writer.writeScalar(p.tag, p.step, start + p.wall, p.value);
    }
    result.scalars = int(points.size());
    if (!writer.ok() || !file.flush()) {
        result.error = QStringLiteral("%1: cannot write: %2").arg(result.file, file.errorString());
        return result;
    }
    file.close();
    result.ok = true;
    return result;
}

} // namespace trainyard
