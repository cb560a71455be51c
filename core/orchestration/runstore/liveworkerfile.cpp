#include "orchestration/runstore/liveworkerfile.h"

#include "orchestration/experiment/experiment.h"
#include "orchestration/logcategories.h"
#include "orchestration/runstore/jsonfile.h"

#include <QFile>
#include <QJsonArray>

namespace trainyard {

namespace {

QString stateFile(const QString &root)
{
    return root + QStringLiteral("/.trainyard-state.json");
}

} // namespace

LiveWorkerFile::LiveWorkerFile(const QString &root)
    : m_root(root)
{
}

QHash<QString, LiveWorkerFile::Worker> LiveWorkerFile::read(QString *socketPath, QString *refusal) const
{
    QHash<QString, Worker> workers;
    if (refusal) {
        refusal->clear();
    }
    if (socketPath) {
        socketPath->clear();
    }
    const QString path = stateFile(m_root);
    // Its pids and job ids are what Stop would signal: only the user's own
    // file is believed, and only one nobody else can rewrite.
    QString why;
    const std::optional<QJsonObject> read = readOwnJsonFile(path, 4 * 1024 * 1024, &why);
    if (!why.isEmpty()) {
        why += QStringLiteral("; none of its runs is adopted");
        qCWarning(lcRunStore).noquote() << why;
        if (refusal) {
            *refusal = why;
        }
        return workers;
    }
    if (!read) {
        return workers; // none yet
    }
    const QJsonObject &o = *read;
    if (socketPath) {
        *socketPath = o.value(QStringLiteral("socket")).toString();
    }
    const QJsonObject runs = o.value(QStringLiteral("runs")).toObject();
    for (auto it = runs.begin(); it != runs.end(); ++it) {
        const QJsonObject w = it.value().toObject();
        Worker live;
        live.pid = w.value(QStringLiteral("pid")).toInteger();
        live.token = w.value(QStringLiteral("token")).toString();
        live.device = Device::parse(w.value(QStringLiteral("device")).toString());
        live.startTicks = w.value(QStringLiteral("start_ticks")).toInteger();
        live.started = QDateTime::fromString(w.value(QStringLiteral("started")).toString(), Qt::ISODateWithMs);
        live.launcher = w.value(QStringLiteral("launcher")).toObject();
        live.command = jsonStringList(w.value(QStringLiteral("command")));
        if (w.value(QStringLiteral("follow_file")).isBool()) {
            live.followFile = w.value(QStringLiteral("follow_file")).toBool();
        }
        if ((live.pid > 0 || !live.launcher.isEmpty()) && !live.token.isEmpty() && isSafeRunName(it.key())) {
            workers.insert(it.key(), live);
        }
    }
    return workers;
}

bool LiveWorkerFile::write(const QHash<QString, Worker> &workers, const QString &socketPath) const
{
    if (m_root.isEmpty()) {
        return false;
    }
    QJsonObject runs;
    for (auto it = workers.begin(); it != workers.end(); ++it) {
        QJsonObject w;
        w.insert(QStringLiteral("pid"), it->pid);
        w.insert(QStringLiteral("token"), it->token);
        w.insert(QStringLiteral("device"), it->device.toString());
        w.insert(QStringLiteral("start_ticks"), it->startTicks);
        w.insert(QStringLiteral("started"), it->started.toString(Qt::ISODateWithMs));
        if (!it->launcher.isEmpty()) {
            w.insert(QStringLiteral("launcher"), it->launcher);
        }
        if (!it->command.isEmpty()) {
            w.insert(QStringLiteral("command"), QJsonArray::fromStringList(it->command));
        }
        if (it->followFile) {
            w.insert(QStringLiteral("follow_file"), *it->followFile);
        }
        runs.insert(it.key(), w);
    }
    QJsonObject o;
    o.insert(QStringLiteral("socket"), socketPath);
    o.insert(QStringLiteral("runs"), runs);
    // Holds the tokens: readable by the user only.
    QString error;
    if (!writeOwnJsonFile(stateFile(m_root), o, &error, /*privateFile=*/true)) {
        qCWarning(lcRunStore).noquote() << error << "; this session's runs are not recorded for reattachment";
        return false;
    }
    return true;
}

qint64 LiveWorkerFile::processStartTicks(qint64 pid)
{
    QFile file(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!file.open(QIODevice::ReadOnly)) {
        return 0;
    }
    const QByteArray stat = file.readAll();
    // The command name (field 2) may hold spaces and ')'; fields resume
    // after the last ')'.
    const qsizetype close = stat.lastIndexOf(')');
    if (close < 0) {
        return 0;
    }
    const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
    // fields[0] is field 3 (state); field 22 (starttime) is fields[19].
    if (fields.size() < 20) {
        return 0;
    }
    if (fields.at(0) == "Z") {
        return 0; // a zombie has finished
    }
    return fields.at(19).toLongLong();
}

} // namespace trainyard
