#include "orchestration/remote/remoteattachcheck.h"

#include "orchestration/logcategories.h"
#include "orchestration/process/processrunner.h"
#include "orchestration/remote/remoterun.h"
#include "orchestration/remote/sshmaster.h"

#include <QCoreApplication>

namespace trainyard {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("RemoteAttachCheck", text);
}

} // namespace

RemoteAttachCheck::RemoteAttachCheck(const RemoteHostConfig &config, SshMaster &master)
    : m_config(config)
    , m_master(master)
{
}

Launcher::AttachResult RemoteAttachCheck::check(const QJsonObject &handle, const LaunchSpec &spec, RemoteRun *run,
                                                QString *why) const
{
    using AttachResult = Launcher::AttachResult;
    const auto refuse = [why](AttachResult result, const QString &reason) {
        *why = reason;
        return result;
    };
    const QString kind = handle.value(QStringLiteral("kind")).toString();
    const QString host = handle.value(QStringLiteral("host")).toString();
    if (kind != QLatin1String("remote") || host != m_config.name) {
        return refuse(AttachResult::Gone,
                      tr("a %1 run on %2; this launcher is host %3's").arg(kind, host, m_config.name));
    }
    run->spec = spec;
    run->pid = handle.value(QStringLiteral("pid")).toInteger();
    run->ticks = handle.value(QStringLiteral("start_ticks")).toInteger();
    run->wrapper = handle.value(QStringLiteral("wrapper")).toInteger();
    run->live = true;
    run->mirror = RemoteMirror(spec.mirrorDir);
    if (run->pid <= 0 || run->ticks <= 0) {
        return refuse(AttachResult::Gone, tr("no pid and start time to check"));
    }
    const QString dir = handle.value(QStringLiteral("run_dir")).toString();
    if (dir != spec.runDir) {
        return refuse(AttachResult::Gone,
                      tr("its folder on host %1 is %2, not this run's %3").arg(m_config.name, dir, spec.runDir));
    }
    const int timeout = qMin(20000, m_config.commandTimeoutMs);
    QString down;
    if (!m_master.ensureNow(timeout, &down)) {
        // Whether it still runs cannot be known now.
        run->verified = false;
        qCWarning(lcRemote, "%s; its run is watched unverified until it answers", qUtf8Printable(down));
        return AttachResult::Attached;
    }
    const ProcessResult result = m_master.runNow(run->verifyCommand(QString()), run->verifyInput(), timeout);
    const QString answer = QString::fromUtf8(result.out.trimmed());
    if (!result.ok()) {
        run->verified = false;
        qCWarning(lcRemote, "host %s did not answer (%s); its run is watched unverified", qUtf8Printable(m_config.name),
                  qUtf8Printable(result.message(QStringLiteral("ssh"))));
        return AttachResult::Attached;
    }
    if (answer.startsWith(QLatin1String("notours "))) {
        return refuse(AttachResult::NotOurs,
                      tr("on host %1: %2; nothing was signalled").arg(m_config.name, answer.mid(8)));
    }
    // Ours or ended: what it wrote meanwhile comes here first (the done
    // line of an ended one says how it ended).
    sync(*run, timeout);
    if (answer.startsWith(QLatin1String("gone "))) {
        return refuse(AttachResult::Gone, tr("on host %1: %2").arg(m_config.name, answer.mid(5)));
    }
    const qint64 claimed = run->wrapper;
    if (!run->takeProvedWrapper(answer)) {
        qCWarning(lcRemote, "host %s: pid %lld is not the waiting sh of pid %lld (%s); not taken as the run's",
                  qUtf8Printable(m_config.name), static_cast<long long>(claimed), static_cast<long long>(run->pid),
                  run->wrapper > 0 ? qPrintable(QStringLiteral("that is %1").arg(run->wrapper)) : "none was found");
    }
    run->verified = true;
    return AttachResult::Attached;
}

bool RemoteAttachCheck::sync(RemoteRun &run, int timeoutMs) const
{
    for (int round = 0; round < 64; ++round) {
        const ProcessResult result =
            m_master.runNow(remotescripts::poll(false, m_config.maxBytesPerPoll, {run.pollRun(true)}), {}, timeoutMs);
        const remotescripts::PollReport report = remotescripts::parsePoll(result.out, 1);
        if (!result.ok() || !report.complete) {
            return false;
        }
        QString warning;
        const bool behind = run.mirrorReport(m_config.name, report.runs.first(), &warning);
        if (!warning.isEmpty()) {
            qCWarning(lcRemote, "host %s: %s", qUtf8Printable(m_config.name), qUtf8Printable(warning));
        }
        if (!behind) {
            return true;
        }
    }
    return false;
}

} // namespace trainyard
