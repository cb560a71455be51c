#pragma once

#include "orchestration/remote/remotehostconfig.h"
#include "orchestration/remote/remotescripts.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

namespace trainyard {

class ProcessRunner;
struct ProcessResult;

// The one ssh master connection to a host (ControlMaster, ControlPath in
// the user's 0700 runtime folder), the commands that go through it
// (remotescripts' `sh -c SCRIPT sh ARG...`, each word quoted for the remote
// shell), and the Unix-socket forward on it that carries the metrics
// protocol: workers there connect to the remote end, and ssh hands each
// connection to this machine's metrics socket.
//
// `ensure` asks the master (`ssh -O check`: local, no network) and opens
// one when there is none (a command with ControlMaster=auto becomes it and
// stays in the background for ControlPersist). A master that is not the
// one the forward was put on (it was killed, the network dropped, the app
// started again) is "fresh": the caller brings its runs up to date and puts
// the forward on it again (`forward`), so that no line is lost between.
class SshMaster : public QObject
{
    Q_OBJECT
public:
    enum class State {
        Unknown, // never asked
        Up,
        Down, // could not be reached: problem() says why
    };
    explicit SshMaster(RemoteHostConfig config, QObject *parent = nullptr);
    ~SshMaster() override;

    // `up`: a master runs (its pid); `fresh`: it is not the one the forward
    // is on. Down: `why` is ssh's own words.
    using Ensured = std::function<void(bool up, bool fresh, const QString &why)>;
    void ensure(Ensured done);
    // The same, blocking and bounded (an attach, which may not return to
    // the event loop first).
    bool ensureNow(int timeoutMs, QString *why);
    // A command on the host, through the master; `done` from the event
    // loop, never after `context` is gone.
    using Done = std::function<void(const ProcessResult &)>;
    void run(const remotescripts::Command &command, const QByteArray &input, QObject *context, Done done);
    // The same, blocking and bounded (release, attach).
    ProcessResult runNow(const remotescripts::Command &command, const QByteArray &input, int timeoutMs);

    // The metrics forward REMOTE:LOCAL on the current master (cancelled
    // first, as an earlier session's may still be on it; its folder made
    // and a socket file an earlier master left removed:
    // remotescripts::readySocket; then ssh -O forward -R), then `then`; at
    // once when it is on or there is none to put. A fresh master (ensure)
    // needs it again.
    void setForward(const QString &remoteSocket, const QString &localSocket);
    void ensureForward(std::function<void()> then);

    State state() const { return m_state; }
    QString problem() const { return m_problem; }
    qint64 masterPid() const { return m_pid; }
    // ssh invocations so far, remote or local (the cost of keeping it).
    int commandCount() const { return m_commands; }

Q_SIGNALS:
    void stateChanged();

private:
    void setState(State state, const QString &problem);
    void opened(const QString &why, Ensured done);
    static qint64 parsePid(const QByteArray &err);

    RemoteHostConfig m_config;
    std::unique_ptr<ProcessRunner> m_local;  // ssh -O, and the master's opening
    std::unique_ptr<ProcessRunner> m_remote; // commands on the host
    State m_state = State::Unknown;
    QString m_problem;
    qint64 m_pid = 0;
    qint64 m_forwardedPid = 0;
    int m_commands = 0;
    QString m_remoteSocket;
    QString m_localSocket;
    bool m_forwarded = false;                    // the master has the metrics forward
    bool m_forwarding = false;                   // putting it on
    QList<std::function<void()>> m_afterForward; // who waits for it
};

} // namespace trainyard
