#include "orchestration/remote/sshmaster.h"

#include "orchestration/logcategories.h"
#include "orchestration/process/processrunner.h"

#include <QRegularExpression>

namespace trainyard {

SshMaster::SshMaster(RemoteHostConfig config, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_local(std::make_unique<ProcessRunner>(m_config.commandTimeoutMs))
    , m_remote(std::make_unique<ProcessRunner>(m_config.commandTimeoutMs))
{
    m_remote->setRemote(m_config.sshCommand());
}

SshMaster::~SshMaster() = default;

qint64 SshMaster::parsePid(const QByteArray &err)
{
    static const QRegularExpression pid(QStringLiteral("pid=([0-9]+)"));
    const QRegularExpressionMatch m = pid.match(QString::fromUtf8(err));
    return m.hasMatch() ? m.captured(1).toLongLong() : 0;
}

void SshMaster::setState(State state, const QString &problem)
{
    if (state == m_state && problem == m_problem) {
        return;
    }
    m_state = state;
    m_problem = problem;
    if (state == State::Down) {
        qCWarning(lcRemote, "host %s: %s", qUtf8Printable(m_config.name), qUtf8Printable(problem));
    } else {
        qCInfo(lcRemote, "host %s: master connection up (pid %lld)", qUtf8Printable(m_config.name),
               static_cast<long long>(m_pid));
    }
    Q_EMIT stateChanged();
}

void SshMaster::ensure(Ensured done)
{
    const QStringList check = m_config.controlCommand(QStringLiteral("check"));
    ++m_commands;
    m_local->run(check.first(), check.mid(1), {}, {}, this, [this, done](const ProcessResult &r) {
        if (r.ok()) {
            m_pid = parsePid(r.err + r.out);
            setState(State::Up, QString());
            const bool fresh = m_pid != m_forwardedPid;
            m_forwarded = m_forwarded && !fresh;
            done(true, fresh, QString());
            return;
        }
        // No master: a command becomes one (ControlMaster=auto) and stays
        // for ControlPersist.
        QStringList open = m_config.sshCommand();
        open << QStringLiteral("true");
        ++m_commands;
        m_local->run(open.first(), open.mid(1), {}, {}, this, [this, done](const ProcessResult &r) {
            opened(r.ok() ? QString() : r.message(QStringLiteral("ssh")), done);
        });
    });
}

void SshMaster::opened(const QString &why, Ensured done)
{
    if (!why.isEmpty()) {
        m_pid = 0;
        setState(State::Down,
                 QStringLiteral("host %1 (%2) cannot be reached: %3").arg(m_config.name, m_config.target.host, why));
        done(false, false, m_problem);
        return;
    }
    const QStringList check = m_config.controlCommand(QStringLiteral("check"));
    ++m_commands;
    m_local->run(check.first(), check.mid(1), {}, {}, this, [this, done](const ProcessResult &r) {
        m_pid = r.ok() ? parsePid(r.err + r.out) : 0;
        // Reached, but without a master (ssh could not make the control
        // socket): commands still go, each on its own connection.
        setState(State::Up, QString());
        m_forwarded = false;
        done(true, true, QString());
    });
}

bool SshMaster::ensureNow(int timeoutMs, QString *why)
{
    const QStringList check = m_config.controlCommand(QStringLiteral("check"));
    ++m_commands;
    ProcessResult r = m_local->runNow(check.first(), check.mid(1), {}, timeoutMs);
    if (!r.ok()) {
        QStringList open = m_config.sshCommand();
        open << QStringLiteral("true");
        ++m_commands;
        r = m_local->runNow(open.first(), open.mid(1), {}, timeoutMs);
        if (!r.ok()) {
            m_pid = 0;
            setState(State::Down, QStringLiteral("host %1 (%2) cannot be reached: %3")
                                      .arg(m_config.name, m_config.target.host, r.message(QStringLiteral("ssh"))));
            if (why) {
                *why = m_problem;
            }
            return false;
        }
        ++m_commands;
        r = m_local->runNow(check.first(), check.mid(1), {}, timeoutMs);
    }
    m_pid = r.ok() ? parsePid(r.err + r.out) : 0;
    setState(State::Up, QString());
    return true;
}

void SshMaster::run(const remotescripts::Command &command, const QByteArray &input, QObject *context, Done done)
{
    ++m_commands;
    m_remote->run(command.program, command.arguments, input, {}, context, std::move(done));
}

ProcessResult SshMaster::runNow(const remotescripts::Command &command, const QByteArray &input, int timeoutMs)
{
    ++m_commands;
    return m_remote->runNow(command.program, command.arguments, input, timeoutMs);
}

void SshMaster::setForward(const QString &remoteSocket, const QString &localSocket)
{
    if (remoteSocket == m_remoteSocket && localSocket == m_localSocket) {
        return;
    }
    m_remoteSocket = remoteSocket;
    m_localSocket = localSocket;
    m_forwarded = false;
}

void SshMaster::ensureForward(std::function<void()> then)
{
    if (m_forwarded || m_remoteSocket.isEmpty() || m_localSocket.isEmpty()) {
        if (then) {
            then();
        }
        return;
    }
    if (then) {
        m_afterForward << std::move(then);
    }
    if (m_forwarding) {
        return;
    }
    m_forwarding = true;
    const auto finish = [this](bool ok, const QString &why) {
        if (!ok) { // the start that waits says why in its own words
            qCWarning(lcRemote, "host %s: the metrics forward failed: %s", qUtf8Printable(m_config.name),
                      qUtf8Printable(why));
        }
        m_forwarding = false;
        const QList<std::function<void()>> waiting = std::exchange(m_afterForward, {});
        for (const auto &f : waiting) {
            f();
        }
    };
    // A master that outlived an earlier session (ControlPersist) may hold
    // this forward already: it would answer "forward" with success and do
    // nothing, while readySocket takes the socket file of its listener
    // away, leaving workers nothing to connect to. So it is cancelled first
    // (sshd closes its listener; failing when the master has none is fine),
    // and put on again anew.
    const QString spec = m_remoteSocket + QLatin1Char(':') + m_localSocket;
    const QStringList cancel = m_config.controlCommand(QStringLiteral("cancel"), {QStringLiteral("-R"), spec});
    ++m_commands;
    m_local->run(cancel.first(), cancel.mid(1), {}, {}, this, [this, spec, finish](const ProcessResult &) {
        run(remotescripts::readySocket(m_config.runsRoot, m_remoteSocket), {}, this,
            [this, spec, finish](const ProcessResult &r) {
                if (!r.ok()) {
                    finish(false, r.message(QStringLiteral("ssh")));
                    return;
                }
                const qint64 pid = m_pid;
                const QStringList command =
                    m_config.controlCommand(QStringLiteral("forward"), {QStringLiteral("-R"), spec});
                ++m_commands;
                m_local->run(command.first(), command.mid(1), {}, {}, this,
                             [this, pid, finish](const ProcessResult &r) {
                                 m_forwarded = r.ok();
                                 if (r.ok()) {
                                     m_forwardedPid = pid;
                                 }
                                 finish(r.ok(), r.message(QStringLiteral("ssh -O forward")));
                             });
            });
    });
}

} // namespace trainyard
