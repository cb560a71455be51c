#include "orchestration/ingest/metricsserver.h"

#include "orchestration/ingest/runtimedir.h"
#include "protocol/protocol.h"
#include "protocol/recorddecoder.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QRandomGenerator>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <sys/stat.h>
#include <unistd.h>

namespace trainyard {

constexpr qint64 kReadBufferBytes = 256 * 1024;

// One accepted connection: decodes lines (RecordDecoder), insists on hello first.
class MetricsServer::Connection : public QObject
{
public:
    Connection(MetricsServer *server, QIODevice *device)
        : QObject(server)
        , m_server(server)
        , m_device(device)
    {
        device->setParent(this);
        m_helloTimer.setSingleShot(true);
        connect(&m_helloTimer, &QTimer::timeout, this, [this] {
            m_server->dropConnection(this, QStringLiteral("no hello within %1 ms").arg(m_server->m_helloTimeoutMs));
        });
        m_helloTimer.start(server->m_helloTimeoutMs);
        connect(device, &QIODevice::readyRead, this, &Connection::onReadyRead);
        // Lines still buffered when the worker hangs up are read first.
        // A bounded read buffer pushes back on a flooding worker (its writes
        // wait in the kernel) instead of piling megabytes up here.
        if (auto *local = qobject_cast<QLocalSocket *>(device)) {
            local->setReadBufferSize(kReadBufferBytes);
        } else if (auto *tcp = qobject_cast<QAbstractSocket *>(device)) {
            tcp->setReadBufferSize(kReadBufferBytes);
        }
        if (auto *local = qobject_cast<QLocalSocket *>(device)) {
            connect(local, &QLocalSocket::disconnected, this, [this] {
                drain();
                m_server->onClosed(this);
            });
        } else if (auto *tcp = qobject_cast<QAbstractSocket *>(device)) {
            connect(tcp, &QAbstractSocket::disconnected, this, [this] {
                drain();
                m_server->onClosed(this);
            });
        }
    }

    void close()
    {
        m_closing = true;
        m_helloTimer.stop();
        if (auto *local = qobject_cast<QLocalSocket *>(m_device)) {
            local->abort();
        } else if (auto *tcp = qobject_cast<QAbstractSocket *>(m_device)) {
            tcp->abort();
        }
    }

    void write(const std::string &line) { m_device->write(line.data(), static_cast<qint64>(line.size())); }

    RunId run = 0; // 0 until hello was accepted
    bool m_closing = false;

private:
    // Reads one chunk per turn of the event loop, so one flooding worker
    // cannot starve the others or the GUI; the rest is read on the next turn.
    void onReadyRead()
    {
        if (m_closing) {
            return;
        }
        // ~600 lines a turn (about 2 ms), then the other connections and
        // timers get their turn.
        char buffer[64 * 1024];
        const qint64 n = m_device->read(buffer, sizeof buffer);
        if (n > 0) {
            split(buffer, static_cast<std::size_t>(n));
        }
        if (!m_closing && !m_again && m_device->bytesAvailable() > 0) {
            m_again = true;
            QMetaObject::invokeMethod(
                this,
                [this] {
                    m_again = false;
                    onReadyRead();
                },
                Qt::QueuedConnection);
        }
    }

    void drain()
    {
        char buffer[64 * 1024];
        while (!m_closing) {
            const qint64 n = m_device->read(buffer, sizeof buffer);
            if (n <= 0) {
                break;
            }
            split(buffer, static_cast<std::size_t>(n));
        }
    }

    void split(const char *data, std::size_t size)
    {
        m_decoder.feed(data, size);
        protocol::RecordDecoder::Status status;
        while (!m_closing && m_decoder.next(&status)) {
            handle(status);
        }
    }

    void handle(protocol::RecordDecoder::Status status)
    {
        if (status != protocol::RecordDecoder::Status::Record) {
            m_server->countRejected(run);
            if (run == 0 && status == protocol::RecordDecoder::Status::Invalid) {
                m_server->dropConnection(this, helloRefused());
            } else if (run == 0) {
                m_server->dropConnection(this, QStringLiteral("first line is not a hello: ")
                                                   + QString::fromStdString(m_decoder.error()));
            }
            return;
        }
        const MetricRecord &record = m_decoder.record();
        if (run == 0) {
            // The token is only in the JSON (a record never keeps it).
            const RunId id =
                record.kind == protocol::MessageType::Hello ? m_server->authenticate(m_decoder.message()) : 0;
            if (id == 0) {
                m_server->countRejected(0);
                m_server->dropConnection(this, helloRefused());
                return;
            }
            m_helloTimer.stop();
            run = id;
            m_server->onAuthenticated(this, id);
        }
        ++m_server->m_accepted;
        if (m_server->m_handler) {
            m_server->m_handler(run, record);
        }
    }

    static QString helloRefused()
    {
        return QStringLiteral("hello refused (wrong token, run name or protocol version)");
    }

    MetricsServer *m_server;
    QIODevice *m_device;
    protocol::RecordDecoder m_decoder;
    bool m_again = false; // a read is queued
    QTimer m_helloTimer;
};

MetricsServer::MetricsServer(QObject *parent)
    : QObject(parent)
{
}

MetricsServer::~MetricsServer()
{
    close();
}

QString MetricsServer::defaultSocketPath(const QString &key, QString *error)
{
    const QString runtime = userRuntimeDir(error);
    if (runtime.isEmpty()) {
        return {};
    }
    const QByteArray hash = QCryptographicHash::hash(key.toUtf8(), QCryptographicHash::Sha256).toHex().left(16);
    return runtime + QStringLiteral("/trainyard/") + QString::fromLatin1(hash) + QStringLiteral(".sock");
}

bool MetricsServer::listen(const QString &socketPath, QString *error)
{
    auto fail = [&](const QString &text) {
        if (error) {
            *error = text;
        }
        return false;
    };
    const QString dir = QFileInfo(socketPath).absolutePath();
    if (!QDir().mkpath(dir)) {
        return fail(dir + QStringLiteral(": cannot create the socket folder"));
    }
    struct stat st
    {};
    const QByteArray dirBytes = QFile::encodeName(dir);
    if (::stat(dirBytes.constData(), &st) != 0 || st.st_uid != ::getuid()) {
        return fail(dir + QStringLiteral(": socket folder is not owned by this user"));
    }
    if (::chmod(dirBytes.constData(), 0700) != 0) {
        return fail(dir + QStringLiteral(": cannot make the socket folder private (0700)"));
    }

    delete m_local;
    m_local = new QLocalServer(this);
    m_local->setSocketOptions(QLocalServer::UserAccessOption);
    m_local->setMaxPendingConnections(256);
    QLocalServer::removeServer(socketPath);
    if (!m_local->listen(socketPath)) {
        const QString text = socketPath + QStringLiteral(": cannot listen: ") + m_local->errorString();
        delete m_local;
        m_local = nullptr;
        return fail(text);
    }
    ::chmod(QFile::encodeName(socketPath).constData(), 0600);
    connect(m_local, &QLocalServer::newConnection, this, [this] {
        while (QLocalSocket *socket = m_local->nextPendingConnection()) {
            adopt(socket);
        }
    });
    return true;
}

QString MetricsServer::socketPath() const
{
    return m_local ? m_local->fullServerName() : QString();
}

bool MetricsServer::listenTcp(quint16 port, QString *error)
{
    delete m_tcp;
    m_tcp = new QTcpServer(this);
    if (!m_tcp->listen(QHostAddress::LocalHost, port)) {
        if (error) {
            *error = QStringLiteral("cannot listen on 127.0.0.1:%1: %2").arg(port).arg(m_tcp->errorString());
        }
        delete m_tcp;
        m_tcp = nullptr;
        return false;
    }
    connect(m_tcp, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *socket = m_tcp->nextPendingConnection()) {
            adopt(socket);
        }
    });
    return true;
}

quint16 MetricsServer::tcpPort() const
{
    return m_tcp ? m_tcp->serverPort() : 0;
}

void MetricsServer::close()
{
    const QSet<Connection *> connections = m_connections;
    for (Connection *c : connections) {
        c->m_closing = true;
        c->disconnect();
        delete c;
    }
    m_connections.clear();
    m_live.clear();
    if (m_local) {
        m_local->close();
        delete m_local;
        m_local = nullptr;
    }
    delete m_tcp;
    m_tcp = nullptr;
}

QString MetricsServer::registerRun(RunId run, const QString &name)
{
    QByteArray bytes(32, Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32 *>(bytes.data()), 8);
    const QString token = QString::fromLatin1(bytes.toHex());
    registerRun(run, name, token);
    return token;
}

void MetricsServer::registerRun(RunId run, const QString &name, const QString &token)
{
    if (m_runs.contains(run)) {
        m_byToken.remove(m_runs.value(run).token);
    }
    m_runs.insert(run, Registration{name, token});
    m_byToken.insert(token, run);
}

void MetricsServer::unregisterRun(RunId run)
{
    m_byToken.remove(m_runs.take(run).token);
    if (Connection *c = m_live.take(run)) {
        c->m_closing = true;
        c->close();
        c->deleteLater();
    }
}

QString MetricsServer::token(RunId run) const
{
    return m_runs.value(run).token;
}

bool MetricsServer::isConnected(RunId run) const
{
    return m_live.contains(run);
}

bool MetricsServer::send(RunId run, const nlohmann::json &message)
{
    Connection *c = m_live.value(run);
    if (!c) {
        return false;
    }
    c->write(protocol::encode(message));
    return true;
}

void MetricsServer::adopt(QIODevice *device)
{
    auto *c = new Connection(this, device);
    m_connections.insert(c);
    connect(c, &QObject::destroyed, this, [this, c] { m_connections.remove(c); });
}

RunId MetricsServer::authenticate(const nlohmann::json &message)
{
    // A hello, validated by the decoder (MetricRecord::fromJson).
    if (message.value("version", 0) != protocol::kVersion) {
        return 0;
    }
    const QString token = QString::fromStdString(message.at("token").get<std::string>());
    const RunId run = m_byToken.value(token, 0);
    if (run == 0) {
        return 0;
    }
    const auto it = message.find("run");
    if (it != message.end()
        && (!it->is_string() || QString::fromStdString(it->get<std::string>()) != m_runs.value(run).name)) {
        return 0;
    }
    return run;
}

void MetricsServer::countRejected(RunId run)
{
    ++m_rejected;
    if (run != 0) {
        ++m_rejectedByRun[run];
    }
}

void MetricsServer::onAuthenticated(Connection *connection, RunId run)
{
    // A reconnecting worker replaces its stale connection.
    if (Connection *old = m_live.value(run); old && old != connection) {
        old->run = 0;
        old->close();
        old->deleteLater();
    }
    m_live.insert(run, connection);
    Q_EMIT runConnected(run);
}

void MetricsServer::onClosed(Connection *connection)
{
    const RunId run = connection->run;
    if (run != 0 && m_live.value(run) == connection) {
        m_live.remove(run);
        Q_EMIT runDisconnected(run);
    }
    connection->run = 0;
    connection->m_closing = true;
    connection->deleteLater();
}

void MetricsServer::dropConnection(Connection *connection, const QString &reason)
{
    ++m_dropped;
    connection->close();
    connection->deleteLater();
    Q_EMIT connectionDropped(reason);
}

} // namespace trainyard
