#pragma once

#include "orchestration/records/runinfo.h"

#include <nlohmann/json_fwd.hpp>

#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>

#include <functional>

class QIODevice;
class QLocalServer;
class QTcpServer;

namespace trainyard {

struct MetricRecord;

// Receives every worker's JSON lines. A QLocalServer whose socket (mode
// 0600) sits in a directory of mode 0700 under the runtime dir; optionally
// also TCP on 127.0.0.1. Each run gets a cryptographically random token; a
// connection must send hello with a registered token (and the matching run
// name) within `helloTimeoutMs` or it is dropped. Lines over the protocol's
// size limit, not UTF-8 or not JSON are rejected and counted, never fatal.
// Lines are decoded once (protocol::RecordDecoder); accepted messages, hello
// included, go synchronously to the handler as records.
class MetricsServer : public QObject
{
    Q_OBJECT
public:
    // `record` is valid during the call only.
    using Handler = std::function<void(RunId run, const MetricRecord &record)>;

    explicit MetricsServer(QObject *parent = nullptr);
    ~MetricsServer() override;

    // Listens on `socketPath`; its directory is created 0700 (an existing
    // one is tightened to 0700) and a stale socket file is replaced.
    bool listen(const QString &socketPath, QString *error = nullptr);
    // A stable socket path for `key` (e.g. the runs root) under the user's
    // runtime folder (userRuntimeDir), so workers left running can
    // reconnect after a restart. Empty, with `error`, when that folder is
    // not private.
    static QString defaultSocketPath(const QString &key, QString *error = nullptr);
    QString socketPath() const;
    // Optional TCP listener on 127.0.0.1 (`port` 0: any free port).
    bool listenTcp(quint16 port = 0, QString *error = nullptr);
    quint16 tcpPort() const;
    void close();

    // A fresh 256-bit token for `run` (hex); replaces any earlier one.
    QString registerRun(RunId run, const QString &name);
    // Re-registers a known token (a worker found running after a restart).
    void registerRun(RunId run, const QString &name, const QString &token);
    void unregisterRun(RunId run); // drops its connection too
    QString token(RunId run) const;

    void setHandler(Handler handler) { m_handler = std::move(handler); }
    void setHelloTimeout(int ms) { m_helloTimeoutMs = ms; }

    bool isConnected(RunId run) const;
    // Sends one control message ({"type":"stop"} ...); false if not connected.
    bool send(RunId run, const nlohmann::json &message);

    quint64 acceptedLines() const { return m_accepted; }
    quint64 rejectedLines() const { return m_rejected; }
    quint64 rejectedLines(RunId run) const { return m_rejectedByRun.value(run); }
    quint64 droppedConnections() const { return m_dropped; }

Q_SIGNALS:
    void runConnected(trainyard::RunId run);
    void runDisconnected(trainyard::RunId run);
    // A connection closed for a reason the user may want to know
    // (wrong token, no hello in time, ...).
    void connectionDropped(const QString &reason);

private:
    class Connection;
    friend class Connection;
    void adopt(QIODevice *device);
    RunId authenticate(const nlohmann::json &message);
    void countRejected(RunId run);
    void onAuthenticated(Connection *connection, RunId run);
    void onClosed(Connection *connection);
    void dropConnection(Connection *connection, const QString &reason);

    struct Registration
    {
        QString name;
        QString token;
    };
    QLocalServer *m_local = nullptr;
    QTcpServer *m_tcp = nullptr;
    QHash<RunId, Registration> m_runs;
    QHash<QString, RunId> m_byToken;
    QHash<RunId, Connection *> m_live;
    QSet<Connection *> m_connections;
    Handler m_handler;
    int m_helloTimeoutMs = 5000;
    quint64 m_accepted = 0;
    quint64 m_rejected = 0;
    quint64 m_dropped = 0;
    QHash<RunId, quint64> m_rejectedByRun;
};

} // namespace trainyard
