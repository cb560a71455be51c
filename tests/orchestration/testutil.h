#pragma once

// Helpers shared by the orchestration tests: experiments for the fake
// worker, written into a temporary runs root.

#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QString>
#include <QTest>

namespace trainyard::test {

inline QString fakeWorker()
{
    return qEnvironmentVariable("TRAINYARD_FAKE_WORKER");
}

// A run spec for trainyard-fake-worker.
inline QJsonObject fakeSpec(const QString &name, int steps = 20, int stepMs = 5,
                            const QString &behaviour = QStringLiteral("train"), int atStep = -1)
{
    QJsonObject model{{QStringLiteral("type"), QStringLiteral("fake")},
                      {QStringLiteral("steps"), steps},
                      {QStringLiteral("step_ms"), stepMs},
                      {QStringLiteral("behaviour"), behaviour}};
    if (atStep > 0) {
        model.insert(QStringLiteral("at_step"), atStep);
    }
    return QJsonObject{{QStringLiteral("name"), name},
                       {QStringLiteral("model"), model},
                       {QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("synthetic-kg")}}},
                       {QStringLiteral("train"), QJsonObject{{QStringLiteral("seed"), 7}}},
                       {QStringLiteral("checkpoint"), QJsonObject{{QStringLiteral("every_steps"), 5}}}};
}

inline QJsonObject withRepeat(QJsonObject spec, int repeat)
{
    spec.insert(QStringLiteral("repeat"), repeat);
    return spec;
}

inline QJsonObject lane(const QString &device, int slotCount, const QJsonArray &runs)
{
    return QJsonObject{
        {QStringLiteral("device"), device}, {QStringLiteral("slots"), slotCount}, {QStringLiteral("runs"), runs}};
}

inline QJsonObject experimentJson(const QString &name, const QString &runsRoot, const QJsonArray &lanes)
{
    return QJsonObject{
        {QStringLiteral("name"), name}, {QStringLiteral("runs_root"), runsRoot}, {QStringLiteral("lanes"), lanes}};
}

inline Experiment experiment(const QJsonObject &json)
{
    QStringList errors;
    const auto ex = Experiment::fromJson(json, &errors);
    if (!ex) {
        qWarning("%s", qPrintable(errors.join(QLatin1Char('\n'))));
    }
    return ex.value_or(Experiment{});
}

// Trains `ex` with fake workers in a session of its own until its board is
// idle once, then closes the session; the run folders stay for the test to
// read or damage. Empty when it went so, else what went wrong.
inline QString trainUntilIdle(const Experiment &ex, int timeoutMs = 10000)
{
    Session session;
    QStringList errors;
    if (!session.open(ex, QString(), &errors)) {
        return errors.join(QLatin1Char('\n'));
    }
    session.orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
    QSignalSpy idle(session.orchestrator()->dispatcher(), &Dispatcher::idle);
    session.orchestrator()->dispatcher()->startAll();
    if (!QTest::qWaitFor([&] { return idle.count() > 0; }, timeoutMs)) {
        return QStringLiteral("the board was not idle after %1 ms").arg(timeoutMs);
    }
    QTest::qWait(0); // as QTRY_COMPARE: a second idle signal would show now
    return idle.count() == 1 ? QString() : QStringLiteral("idle %1 times, expected once").arg(idle.count());
}

inline bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

inline QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// How a program a test ran ended and what it printed; exitCode -1: it did
// not end in time (then it was killed).
struct ProcessOutcome
{
    int exitCode = -1;
    QString out;
    QString err;
    QString all() const { return out + err; }
};

inline ProcessOutcome runProcess(const QString &program, const QStringList &args, const QProcessEnvironment &env,
                                 int timeoutMs)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

// The lines of `type` ("metric", "done", ...) of a run's metrics.jsonl, in file order.
inline QList<QJsonObject> metricsLines(const QString &runDir, const QString &type)
{
    QList<QJsonObject> out;
    for (const QByteArray &line : readFile(runDir + QStringLiteral("/metrics.jsonl")).split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.value(QStringLiteral("type")).toString() == type) {
            out << o;
        }
    }
    return out;
}

// A run of the real worker on tiny generated knowledge-graph data (40
// entities, 400 triples, dim 8): two epochs, evaluated at the end, every
// step reported. Seconds on any CPU.
inline QJsonObject tinyKg(const QString &name, const QString &type = QStringLiteral("transe"))
{
    return QJsonObject{
        {QStringLiteral("name"), name},
        {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), type}, {QStringLiteral("dim"), 8}}},
        {QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("synthetic-kg")},
                                             {QStringLiteral("entities"), 40},
                                             {QStringLiteral("relations"), 3},
                                             {QStringLiteral("triples"), 400}}},
        {QStringLiteral("train"), QJsonObject{{QStringLiteral("epochs"), 2}, {QStringLiteral("batch_size"), 64}}},
        {QStringLiteral("eval"), QJsonObject{{QStringLiteral("every_epochs"), 2}}},
        {QStringLiteral("report"), QJsonObject{{QStringLiteral("every_steps"), 1}}}};
}

inline QJsonObject readJsonFile(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return {};
    }
    return QJsonDocument::fromJson(f.readAll()).object();
}

// Lines of `type` in a run's metrics.jsonl.
inline int countLines(const QString &path, const QByteArray &type)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return -1;
    }
    int n = 0;
    const QByteArray needle = "\"type\":\"" + type + "\"";
    while (!f.atEnd()) {
        if (f.readLine().contains(needle)) {
            ++n;
        }
    }
    return n;
}

} // namespace trainyard::test
