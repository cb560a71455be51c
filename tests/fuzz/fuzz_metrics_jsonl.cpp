// Fuzz target: the orchestrator's metrics.jsonl reader. The bytes become a
// run's metrics.jsonl and go through
//  1. RunStore::readMetrics (the one reader, MetricsLogReader) in two reads
//     (cut at a fuzzer-chosen byte, as when the worker is mid-write), which
//     must hand over exactly the records one read of the whole file does: no
//     line lost, none twice;
//  2. Orchestrator::loadHistory, which ingests the file into the MetricStore the
//     plots draw from: no crash, no exception, every series sorted by step
//     with one point per step.
// An input whose bytes (after the first) start with "#kind=K\n" puts a
// hostile file kind in place of metrics.jsonl instead (K: fifo, link: to a
// file holding the rest of the input, folder, devzero: a link to /dev/zero):
// both reads must refuse it at once, read nothing, and never block.

#include "metrics/metricstore.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"
#include "protocol/metricrecord.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <sys/stat.h>

namespace {

using namespace trainyard;

struct World
{
    QTemporaryDir dir;
    RunStore store{dir.path()};
    MetricsServer server;
    MetricStore metrics;
    DeviceInventory devices;
    Orchestrator orchestrator{&store, &server, &metrics, &devices};
    Experiment experiment;

    World()
    {
        QStringList errors;
        const QJsonObject spec{
            {QStringLiteral("name"), QStringLiteral("fz")},
            {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("fake")}}},
            {QStringLiteral("train"), QJsonObject{{QStringLiteral("seed"), 1}}}}; // as loading gives it
        const QJsonObject lane{{QStringLiteral("device"), QStringLiteral("cpu")},
                               {QStringLiteral("runs"), QJsonArray{spec}}};
        const auto ex = Experiment::fromJson(
            QJsonObject{{QStringLiteral("name"), QStringLiteral("fuzz")}, {QStringLiteral("lanes"), QJsonArray{lane}}},
            &errors);
        if (!ex) {
            std::abort();
        }
        experiment = *ex;
        QDir().mkpath(store.runDir(QStringLiteral("fz")));
        // The spec.json Trainyard writes: a folder's results are its spec's.
        QFile file(store.runDir(QStringLiteral("fz")) + QStringLiteral("/spec.json"));
        if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(spec).toJson()) <= 0) {
            std::abort();
        }
    }
    QString metricsPath() const { return store.runDir(QStringLiteral("fz")) + QStringLiteral("/metrics.jsonl"); }
};

World *world;

// The hostile kinds of the corpus's "#kind=" inputs: metrics.jsonl is made
// one, refused by the reader (no record, an error), never waited on, and
// nothing of a linked file reaches the store.
void hostileKind(const QString &kind, const char *rest, qint64 size)
{
    const QString path = world->metricsPath();
    const QString target = world->dir.filePath(QStringLiteral("elsewhere.jsonl"));
    QFile::remove(path);
    QDir().rmdir(path);
    bool made = false;
    if (kind == QLatin1String("fifo")) {
        made = ::mkfifo(QFile::encodeName(path).constData(), 0600) == 0;
    } else if (kind == QLatin1String("link")) {
        QFile file(target);
        made = file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(rest, size) == size;
        file.close();
        made = made && QFile::link(target, path);
    } else if (kind == QLatin1String("folder")) {
        made = QDir().mkdir(path);
    } else if (kind == QLatin1String("devzero")) {
        made = QFile::link(QStringLiteral("/dev/zero"), path);
    }
    if (!made) {
        return; // an unknown kind: nothing to check
    }
    const QString name = QStringLiteral("fz");
    int records = 0;
    const auto read = world->store.readMetrics(name, 0, [&](const MetricRecord &) { ++records; });
    if (records != 0 || read.records != 0 || read.error.isEmpty()) {
        std::abort();
    }
    QFile::remove(world->store.runDir(name) + QStringLiteral("/status.json"));
    world->metrics.clear();
    world->orchestrator.setExperiment(world->experiment);
    world->orchestrator.loadHistory();
    const RunId id = world->orchestrator.runs()->findByName(name);
    if (id == 0 || !world->metrics.metricNames(id).isEmpty()) {
        std::abort();
    }
    QFile::remove(path);
    QDir().rmdir(path);
}

void writeFile(const QString &path, const char *data, qint64 size)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        std::abort();
    }
    file.write(data, size);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    static int argc = 1;
    static char name[] = "fuzz_metrics_jsonl";
    static char *argv[] = {name, nullptr};
    new QCoreApplication(argc, argv);
    world = new World;
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *bytes, std::size_t size)
{
    if (size < 1) {
        return 0;
    }
    const char *data = reinterpret_cast<const char *>(bytes + 1);
    const qint64 length = static_cast<qint64>(size - 1);
    const qint64 cut = length == 0 ? 0 : (bytes[0] * 131) % (length + 1);
    const QString name = QStringLiteral("fz");
    const QByteArray head(data, qsizetype(std::min<qint64>(length, 64)));
    if (head.startsWith("#kind=") && head.contains('\n')) {
        const qsizetype eol = head.indexOf('\n');
        hostileKind(QString::fromLatin1(head.mid(6, eol - 6)), data + eol + 1, length - eol - 1);
        return 0;
    }

    // 1. Incremental reads see exactly the records of one whole read.
    QList<MetricRecord> whole, pieces;
    writeFile(world->metricsPath(), data, length);
    const auto all = world->store.readMetrics(name, 0, [&](const MetricRecord &r) { whole << r; });
    writeFile(world->metricsPath(), data, cut);
    const auto first = world->store.readMetrics(name, 0, [&](const MetricRecord &r) { pieces << r; });
    writeFile(world->metricsPath(), data, length);
    const auto second = world->store.readMetrics(name, first.offset, [&](const MetricRecord &r) { pieces << r; });
    if (whole != pieces || all.offset != second.offset || all.records != whole.size() || all.offset > length) {
        std::abort();
    }

    // 2. Ingestion reads the file of a run found on disk.
    QFile::remove(world->store.runDir(name) + QStringLiteral("/status.json"));
    world->metrics.clear();
    world->orchestrator.setExperiment(world->experiment);
    world->orchestrator.loadHistory();
    const RunId id = world->orchestrator.runs()->findByName(name);
    if (id == 0 || !isTerminal(world->orchestrator.runs()->value(id).state)) {
        std::abort();
    }
    const QStringList metricNames = world->metrics.metricNames(id);
    for (const QString &metric : metricNames) {
        const MetricSeries *s = world->metrics.series(id, metric);
        for (std::size_t i = 1; s && i < s->size(); ++i) {
            if (s->step(i) <= s->step(i - 1)) {
                std::abort();
            }
        }
    }
    return 0;
}
