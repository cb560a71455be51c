#include "runstore.h"

#include "experiment.h"
#include "metricstore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

#include <cmath>
#include <sys/stat.h>

namespace trainyard {

namespace {

bool writeJson(const QString &path, const QJsonObject &object, QString *error, bool privateFile = false)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = path + QStringLiteral(": cannot write: ") + file.errorString();
        return false;
    }
    if (privateFile)
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(QJsonDocument(object).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        if (error)
            *error = path + QStringLiteral(": cannot write: ") + file.errorString();
        return false;
    }
    if (privateFile)
        ::chmod(QFile::encodeName(path).constData(), 0600);
    return true;
}

QJsonObject readJson(const QString &path)
{
    QFile file(path);
    // Our own small files; anything over 4 MiB is not one of them.
    if (!file.open(QIODevice::ReadOnly) || file.size() > 4 * 1024 * 1024)
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

QString stateFile(const QString &root)
{
    return root + QStringLiteral("/.trainyard-state.json");
}

} // namespace

RunStore::RunStore(const QString &root)
    : m_root(root)
{
}

bool RunStore::ensureRoot(QString *error) const
{
    if (m_root.isEmpty() || !QDir().mkpath(m_root)) {
        if (error)
            *error = m_root + QStringLiteral(": cannot create the runs folder");
        return false;
    }
    return true;
}

QString RunStore::runDir(const QString &name) const
{
    if (!isSafeRunName(name) || m_root.isEmpty())
        return {};
    return m_root + QLatin1Char('/') + name;
}

bool RunStore::prepareRunDir(const QString &name, const QJsonObject &spec, QString *error) const
{
    const QString dir = runDir(name);
    if (dir.isEmpty()) {
        if (error)
            *error = QStringLiteral("\"%1\" is not a safe run name").arg(name);
        return false;
    }
    // A link planted in the runs root would send the worker's writes (and a
    // later clear) somewhere else.
    for (const QString &path : {dir, dir + QStringLiteral("/checkpoints"), dir + QStringLiteral("/metrics.jsonl"),
                                dir + QStringLiteral("/worker.log"), dir + QStringLiteral("/spec.json"),
                                dir + QStringLiteral("/status.json")}) {
        if (QFileInfo(path).isSymLink()) {
            if (error)
                *error = path + QStringLiteral(" is a symbolic link; Trainyard does not follow links in run folders");
            return false;
        }
    }
    if (!QDir().mkpath(dir + QStringLiteral("/checkpoints"))) {
        if (error)
            *error = dir + QStringLiteral(": cannot create the run folder");
        return false;
    }
    QFile::remove(dir + QStringLiteral("/status.json"));
    return writeJson(dir + QStringLiteral("/spec.json"), spec, error);
}

bool RunStore::clearRunDir(const QString &name) const
{
    const QString dir = runDir(name);
    if (dir.isEmpty())
        return false;
    if (QFileInfo(dir).isSymLink())
        return QFile::remove(dir); // the link only, never what it points to
    QDir d(dir);
    return !d.exists() || d.removeRecursively();
}

bool RunStore::hasCheckpoint(const QString &name) const
{
    const QString dir = runDir(name);
    if (dir.isEmpty())
        return false;
    return !QDir(dir + QStringLiteral("/checkpoints")).entryList(QDir::Files | QDir::NoDotAndDotDot).isEmpty();
}

bool RunStore::writeStatus(const RunInfo &run, QString *error) const
{
    const QString dir = runDir(run.name);
    if (dir.isEmpty())
        return false;
    QJsonObject o;
    o.insert(QStringLiteral("state"), runStateName(run.state));
    o.insert(QStringLiteral("exit_code"), run.exitCode >= 0 ? QJsonValue(run.exitCode) : QJsonValue());
    o.insert(QStringLiteral("signal"), run.exitSignal > 0 ? QJsonValue(run.exitSignal) : QJsonValue());
    o.insert(QStringLiteral("pid"), run.pid);
    o.insert(QStringLiteral("device"), run.device);
    o.insert(QStringLiteral("started"), run.started.isValid() ? run.started.toString(Qt::ISODateWithMs) : QString());
    o.insert(QStringLiteral("ended"), run.ended.isValid() ? run.ended.toString(Qt::ISODateWithMs) : QString());
    o.insert(QStringLiteral("message"), run.message);
    o.insert(QStringLiteral("step"), run.step);
    if (!std::isnan(run.loss))
        o.insert(QStringLiteral("loss"), run.loss);
    return writeJson(dir + QStringLiteral("/status.json"), o, error);
}

bool RunStore::readStatus(const QString &name, RunInfo *run) const
{
    const QString dir = runDir(name);
    if (dir.isEmpty() || !QFileInfo::exists(dir + QStringLiteral("/status.json")))
        return false;
    const QJsonObject o = readJson(dir + QStringLiteral("/status.json"));
    RunState state;
    if (!runStateFromName(o.value(QStringLiteral("state")).toString(), &state))
        return false;
    run->state = state;
    run->exitCode = o.value(QStringLiteral("exit_code")).toInt(-1);
    run->exitSignal = o.value(QStringLiteral("signal")).toInt(0);
    run->pid = o.value(QStringLiteral("pid")).toInteger();
    run->device = o.value(QStringLiteral("device")).toString();
    run->started = QDateTime::fromString(o.value(QStringLiteral("started")).toString(), Qt::ISODateWithMs);
    run->ended = QDateTime::fromString(o.value(QStringLiteral("ended")).toString(), Qt::ISODateWithMs);
    run->message = o.value(QStringLiteral("message")).toString();
    return true;
}

RunStore::ReadResult RunStore::readMetrics(const QString &name, qint64 offset, const LineCallback &line) const
{
    ReadResult result;
    result.offset = offset;
    const QString dir = runDir(name);
    if (dir.isEmpty())
        return result;
    QFile file(dir + QStringLiteral("/metrics.jsonl"));
    if (!file.open(QIODevice::ReadOnly))
        return result;
    if (file.size() < offset)
        offset = 0; // the file was replaced (retry): read it again
    if (!file.seek(offset))
        return result;
    qint64 position = offset;
    QByteArray pending;
    for (;;) {
        // What is there, up to 1 MiB (read(1 MiB) would allocate 1 MiB each time).
        const QByteArray chunk = file.read(qBound(qint64(1), file.bytesAvailable(), qint64(1) << 20));
        if (chunk.isEmpty())
            break;
        pending += chunk;
        qsizetype start = 0;
        for (;;) {
            const qsizetype nl = pending.indexOf('\n', start);
            if (nl < 0)
                break;
            const QByteArray text = pending.mid(start, nl - start);
            if (!text.trimmed().isEmpty()) {
                if (text.startsWith('{') && text.trimmed().endsWith('}')) {
                    line(text);
                    ++result.lines;
                } else {
                    ++result.skipped;
                }
            }
            position += nl - start + 1;
            start = nl + 1;
        }
        pending.remove(0, start);
    }
    // A torn last line (the writer died mid-line, or is mid-write): not
    // consumed; if the worker is gone for good it is skipped and counted.
    if (!pending.isEmpty())
        ++result.skipped;
    result.offset = position;
    return result;
}

QHash<QString, RunStore::LiveWorker> RunStore::readState(QString *socketPath) const
{
    QHash<QString, LiveWorker> workers;
    const QJsonObject o = readJson(stateFile(m_root));
    if (socketPath)
        *socketPath = o.value(QStringLiteral("socket")).toString();
    const QJsonObject runs = o.value(QStringLiteral("runs")).toObject();
    for (auto it = runs.begin(); it != runs.end(); ++it) {
        const QJsonObject w = it.value().toObject();
        LiveWorker live;
        live.pid = w.value(QStringLiteral("pid")).toInteger();
        live.token = w.value(QStringLiteral("token")).toString();
        live.device = w.value(QStringLiteral("device")).toString();
        live.startTicks = w.value(QStringLiteral("start_ticks")).toInteger();
        live.started = QDateTime::fromString(w.value(QStringLiteral("started")).toString(), Qt::ISODateWithMs);
        live.launcher = w.value(QStringLiteral("launcher")).toObject();
        if ((live.pid > 0 || !live.launcher.isEmpty()) && !live.token.isEmpty() && isSafeRunName(it.key()))
            workers.insert(it.key(), live);
    }
    return workers;
}

bool RunStore::writeState(const QHash<QString, LiveWorker> &workers, const QString &socketPath) const
{
    if (m_root.isEmpty())
        return false;
    QJsonObject runs;
    for (auto it = workers.begin(); it != workers.end(); ++it) {
        QJsonObject w;
        w.insert(QStringLiteral("pid"), it->pid);
        w.insert(QStringLiteral("token"), it->token);
        w.insert(QStringLiteral("device"), it->device);
        w.insert(QStringLiteral("start_ticks"), it->startTicks);
        w.insert(QStringLiteral("started"), it->started.toString(Qt::ISODateWithMs));
        if (!it->launcher.isEmpty())
            w.insert(QStringLiteral("launcher"), it->launcher);
        runs.insert(it.key(), w);
    }
    QJsonObject o;
    o.insert(QStringLiteral("socket"), socketPath);
    o.insert(QStringLiteral("runs"), runs);
    // Holds the tokens: readable by the user only.
    return writeJson(stateFile(m_root), o, nullptr, /*privateFile=*/true);
}

qint64 RunStore::processStartTicks(qint64 pid)
{
    QFile file(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray stat = file.readAll();
    // The command name (field 2) may hold spaces and ')'; fields resume
    // after the last ')'.
    const qsizetype close = stat.lastIndexOf(')');
    if (close < 0)
        return 0;
    const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
    // fields[0] is field 3 (state); field 22 (starttime) is fields[19].
    if (fields.size() < 20)
        return 0;
    if (fields.at(0) == "Z")
        return 0; // a zombie has finished
    return fields.at(19).toLongLong();
}

bool RunStore::exportCsv(const QString &path, const MetricStore &store, const QList<QPair<RunId, QString>> &runs,
                         QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = path + QStringLiteral(": cannot write: ") + file.errorString();
        return false;
    }
    file.write("run,step,wall,metric,value\n");
    QByteArray line;
    for (const auto &[id, name] : runs) {
        const QByteArray runName = name.toUtf8();
        const QStringList metrics = store.metricNames(id);
        for (const QString &metric : metrics) {
            const MetricSeries *s = store.series(id, metric);
            if (!s)
                continue;
            QByteArray m = metric.toUtf8();
            if (m.contains(',') || m.contains('"'))
                m = '"' + m.replace("\"", "\"\"") + '"';
            for (std::size_t i = 0; i < s->size(); ++i) {
                line.clear();
                line += runName;
                line += ',';
                line += QByteArray::number(static_cast<qlonglong>(s->step(i)));
                line += ',';
                line += QByteArray::number(s->wall(i), 'g', 10);
                line += ',';
                line += m;
                line += ',';
                line += QByteArray::number(s->value(i), 'g', 10);
                line += '\n';
                file.write(line);
            }
        }
    }
    if (!file.commit()) {
        if (error)
            *error = path + QStringLiteral(": cannot write: ") + file.errorString();
        return false;
    }
    return true;
}

} // namespace trainyard
