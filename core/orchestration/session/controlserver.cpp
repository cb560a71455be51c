#include "orchestration/session/controlserver.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalServer>
#include <QLocalSocket>
#include <QTimer>

#include <sys/stat.h>

namespace trainyard {

namespace {

constexpr qint64 kMaxRequestBytes = 4096;
// A status answer holds a line per run: a sweep's thousands fit.
constexpr qint64 kMaxReplyBytes = 64 * 1024 * 1024;
constexpr int kRequestTimeoutMs = 5000;

QByteArray encode(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
}

} // namespace

ControlServer::ControlServer(QObject *parent)
    : QObject(parent)
{
}

ControlServer::~ControlServer()
{
    close();
}

QString ControlServer::socketPathFor(const QString &metricsSocketPath)
{
    QString path = metricsSocketPath;
    if (path.endsWith(QLatin1String(".sock"))) {
        path.chop(5);
    }
    return path + QStringLiteral(".control");
}

bool ControlServer::listen(const QString &path, QString *error)
{
    close();
    m_server = new QLocalServer(this);
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    QLocalServer::removeServer(path);
    if (!m_server->listen(path)) {
        if (error) {
            *error = path + QStringLiteral(": cannot listen: ") + m_server->errorString();
        }
        delete m_server;
        m_server = nullptr;
        return false;
    }
    ::chmod(QFile::encodeName(path).constData(), 0600);
    connect(m_server, &QLocalServer::newConnection, this, [this] {
        while (QLocalSocket *socket = m_server->nextPendingConnection()) {
            adopt(socket);
        }
    });
    return true;
}

void ControlServer::close()
{
    if (!m_server) {
        return;
    }
    m_server->close();
    delete m_server; // its connections with it (their parent)
    m_server = nullptr;
}

QString ControlServer::socketPath() const
{
    return m_server ? m_server->fullServerName() : QString();
}

void ControlServer::adopt(QLocalSocket *socket)
{
    auto *timer = new QTimer(socket);
    timer->setSingleShot(true);
    connect(timer, &QTimer::timeout, socket, &QLocalSocket::abort);
    timer->start(kRequestTimeoutMs);
    connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
    connect(socket, &QLocalSocket::readyRead, socket, [this, socket, timer] {
        if (!timer->isActive()) {
            return; // answered already
        }
        if (!socket->canReadLine()) {
            if (socket->bytesAvailable() > kMaxRequestBytes) {
                timer->stop();
                socket->write(encode(
                    {{QStringLiteral("ok"), false}, {QStringLiteral("message"), QStringLiteral("request too long")}}));
                socket->disconnectFromServer();
            }
            return;
        }
        timer->stop();
        const Reply reply = answer(socket->readLine(kMaxRequestBytes + 1));
        QJsonObject out{{QStringLiteral("ok"), reply.ok}, {QStringLiteral("message"), reply.message}};
        if (!reply.runs.isEmpty()) {
            out.insert(QStringLiteral("runs"), reply.runs);
        }
        socket->write(encode(out));
        socket->disconnectFromServer(); // after the answer is written
    });
}

ControlServer::Reply ControlServer::answer(const QByteArray &line) const
{
    QJsonParseError parseError{};
    const QJsonObject o = QJsonDocument::fromJson(line, &parseError).object();
    Request request{o.value(QStringLiteral("run")).toString(), o.value(QStringLiteral("token")).toString(),
                    o.value(QStringLiteral("action")).toString()};
    const bool status = request.action == QLatin1String("status");
    if (parseError.error != QJsonParseError::NoError
        || (!status && (request.run.isEmpty() || request.token.isEmpty()))) {
        return {false, QStringLiteral("not a request: expected {\"run\", \"token\", \"action\"} or "
                                      "{\"action\": \"status\"}")};
    }
    if (!status && request.action != QLatin1String("stop") && request.action != QLatin1String("pause")
        && request.action != QLatin1String("resume")) {
        return {false,
                QStringLiteral("unknown action \"%1\" (expected stop, pause, resume or status)").arg(request.action)};
    }
    if (!m_handler) {
        return {false, QStringLiteral("this Trainyard takes no requests")};
    }
    return m_handler(request);
}

ControlServer::Reply ControlServer::ask(const QString &path, const Request &request, int timeoutMs)
{
    QLocalSocket socket;
    socket.connectToServer(path);
    if (!socket.waitForConnected(timeoutMs)) {
        return {false, QStringLiteral("%1: nothing listens there (%2)").arg(path, socket.errorString())};
    }
    QJsonObject out{{QStringLiteral("action"), request.action}};
    if (request.action != QLatin1String("status")) {
        out.insert(QStringLiteral("run"), request.run);
        out.insert(QStringLiteral("token"), request.token);
    }
    socket.write(encode(out));
    QByteArray line;
    while (!line.endsWith('\n') && line.size() <= kMaxReplyBytes) {
        if (!socket.bytesAvailable() && !socket.waitForReadyRead(timeoutMs)) {
            break;
        }
        line += socket.readLine(kMaxReplyBytes + 1 - line.size());
    }
    const QJsonObject o = QJsonDocument::fromJson(line).object();
    if (!line.endsWith('\n') || !o.value(QStringLiteral("ok")).isBool()) {
        return {false, QStringLiteral("%1: no answer (%2)").arg(path, socket.errorString())};
    }
    return {o.value(QStringLiteral("ok")).toBool(), o.value(QStringLiteral("message")).toString(),
            o.value(QStringLiteral("runs")).toArray()};
}

} // namespace trainyard
