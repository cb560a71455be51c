// ExperimentHost: one entry of the experiment file's "hosts".

#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/jsonchecks.h"
#include "orchestration/experiment/keytables.h"
#include "orchestration/experiment/shelltext.h"

#include <QRegularExpression>

namespace trainyard {

using namespace jsonchecks;

ExperimentHost ExperimentHost::fromJson(const QJsonObject &o, const QString &path, QStringList &errors)
{
    static const QRegularExpression name(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_][A-Za-z0-9._-]{0,99}")));
    // Absolute, and nothing a remote shell or a socket path would trip on:
    // no NUL, no line break.
    static const QRegularExpression absolute(QRegularExpression::anchoredPattern(QStringLiteral("/[^\\x00-\\x1f]*")));
    ExperimentHost h;
    checkKeys(o, keytables::host(), path, errors);
    const QString nameWhat = QStringLiteral("a host name for lanes (\"ssh:NAME/cuda:0\") of 1–100 letters, digits or "
                                            "._-, not starting with . or -");
    if (!o.contains(QStringLiteral("name"))) {
        errors << expected(child(path, QStringLiteral("name")), nameWhat, QJsonValue(QJsonValue::Undefined));
    }
    checkString(o, QStringLiteral("name"), path, nameWhat, name, &h.name, errors);
    h.ssh = SshTarget::fromJson(o, path, QStringLiteral("the host to ssh to"), errors);
    const QString folderWhat = QStringLiteral("an absolute folder path on the host");
    if (!o.contains(QStringLiteral("runs_root"))) {
        errors << expected(child(path, QStringLiteral("runs_root")), folderWhat, QJsonValue(QJsonValue::Undefined));
    }
    checkString(o, QStringLiteral("runs_root"), path, folderWhat, absolute, &h.runsRoot, errors);
    const QString workerWhat = QStringLiteral("an absolute path to trainyard-worker on the host");
    if (!o.contains(QStringLiteral("worker"))) {
        errors << expected(child(path, QStringLiteral("worker")), workerWhat, QJsonValue(QJsonValue::Undefined));
    }
    checkString(o, QStringLiteral("worker"), path, workerWhat, absolute, &h.worker, errors);
    checkString(o, QStringLiteral("python"), path, QStringLiteral("an absolute path to Python on the host"), absolute,
                &h.python, errors);
    checkInt(o, QStringLiteral("poll_seconds"), path, 1, 3600, errors);
    h.pollSeconds = o.value(QStringLiteral("poll_seconds")).toInt(2);
    return h;
}

QJsonObject ExperimentHost::toJson() const
{
    QJsonObject o{{QStringLiteral("name"), name}};
    ssh.insertInto(o);
    o.insert(QStringLiteral("runs_root"), runsRoot);
    if (!worker.isEmpty()) {
        o.insert(QStringLiteral("worker"), worker);
    }
    if (!python.isEmpty()) {
        o.insert(QStringLiteral("python"), python);
    }
    if (pollSeconds != 2) {
        o.insert(QStringLiteral("poll_seconds"), pollSeconds);
    }
    return o;
}

QStringList ExperimentHost::commandLines() const
{
    QStringList lines;
    const auto line = [this](const QString &what, const QStringList &words) {
        return QStringLiteral("(host %1, %2) %3").arg(shellText({name}), what, shellText(words));
    };
    lines << line(QStringLiteral("every command there"), QStringList{QStringLiteral("ssh")} + ssh.arguments());
    if (!worker.isEmpty()) {
        lines << line(QStringLiteral("every worker run there"), {worker});
    }
    if (!python.isEmpty()) {
        lines << line(QStringLiteral("every Python program run there"), {python});
    }
    return lines;
}

const ExperimentHost *Experiment::host(const QString &name) const
{
    for (const ExperimentHost &h : hosts) {
        if (h.name == name) {
            return &h;
        }
    }
    return nullptr;
}

} // namespace trainyard
