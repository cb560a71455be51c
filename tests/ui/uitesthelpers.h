#pragma once

// Shared set-up for the UI tests: a small experiment on CPU lanes under a
// temporary runs root, and a catalogue like the worker's --list-models
// (orchestration/testcatalogue.h).

#include "orchestration/experiment/experiment.h"
#include "tests/orchestration/testcatalogue.h"

#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QTemporaryDir>
#include <QTimer>
#include <QWidget>

namespace trainyard::testing {

// Runs `step` on the next modal dialog that inherits `className`
// ("trainyard::RunEditorDialog"), polling: exec() blocks the test.
template <class Check>
void onNextModal(const char *className, Check step)
{
    auto *timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, [timer, className, step] {
        QWidget *modal = QApplication::activeModalWidget();
        if (modal && modal->inherits(className)) {
            timer->stop();
            timer->deleteLater();
            step(modal);
        }
    });
    timer->start();
}

// A tiny TransE spec on generated data (trains in a second or two on a CPU).
inline QJsonObject tinyKgSpec(const QString &name, int epochs = 2)
{
    return QJsonObject{
        {QStringLiteral("name"), name},
        {QStringLiteral("model"),
         QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}, {QStringLiteral("dim"), 8}}},
        {QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("synthetic-kg")},
                                             {QStringLiteral("entities"), 40},
                                             {QStringLiteral("relations"), 3},
                                             {QStringLiteral("triples"), 400}}},
        {QStringLiteral("train"), QJsonObject{{QStringLiteral("epochs"), epochs},
                                              {QStringLiteral("batch_size"), 64},
                                              {QStringLiteral("optimizer"), QStringLiteral("adam")},
                                              {QStringLiteral("lr"), 0.01},
                                              {QStringLiteral("seed"), 1}}},
        {QStringLiteral("eval"),
         QJsonObject{{QStringLiteral("every_epochs"), 1}, {QStringLiteral("split"), QStringLiteral("valid")}}},
        {QStringLiteral("checkpoint"), QJsonObject{{QStringLiteral("every_steps"), 1000}}},
        {QStringLiteral("report"), QJsonObject{{QStringLiteral("every_steps"), 1}}},
    };
}

// Two CPU lanes: lane 0 holds a, b, c; lane 1 holds d.
inline Experiment twoLaneExperiment(const QString &runsRoot)
{
    Experiment e;
    e.name = QStringLiteral("ui-test");
    e.runsRoot = runsRoot;
    ExperimentLane first;
    first.device = Device::parse(QStringLiteral("cpu"));
    for (const QString &n : {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}) {
        first.runs.append(ExperimentRun{tinyKgSpec(n), 1});
    }
    ExperimentLane second;
    second.device = Device::parse(QStringLiteral("cpu"));
    second.runs.append(ExperimentRun{tinyKgSpec(QStringLiteral("d")), 1});
    e.lanes = {first, second};
    return e;
}

// The shape of `trainyard-worker --list-models`, small (shared with the
// catalogue's own tests).
using trainyard::test::catalogueJson;
using trainyard::test::recipeCatalogueJson;

// The real trainyard-worker of $TRAINYARD_WORKER; empty when it is not set
// to an executable (then tests that need it skip with kNoRealWorker).
inline QString realWorker()
{
    const QString worker = qEnvironmentVariable("TRAINYARD_WORKER");
    return !worker.isEmpty() && QFileInfo(worker).isExecutable() ? worker : QString();
}
inline constexpr char kNoRealWorker[] = "TRAINYARD_WORKER is not set to an executable trainyard-worker";

// Writes `experiment` to `dir`/experiment.json; its path, or empty when it cannot be written.
inline QString writeExperimentFile(const QTemporaryDir &dir, const QJsonObject &experiment)
{
    const QString path = dir.filePath(QStringLiteral("experiment.json"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(experiment).toJson()) < 0) {
        return {};
    }
    return path;
}

} // namespace trainyard::testing
