// MetricsServer against raw socket clients: tokens, hello deadline, bad
// lines counted, control messages back, private socket, TCP.

#include "orchestration/ingest/metricsserver.h"
#include "protocol/metricrecord.h"
#include "protocol/protocol.h"

#include <QLocalSocket>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace trainyard;

namespace {
QByteArray line(const nlohmann::json &message)
{
    return QByteArray::fromStdString(protocol::encode(message));
}
QByteArray hello(const QString &run, const QString &token)
{
    return line(protocol::hello(run.toStdString(), token.toStdString(), 1234, "cpu", 0.0));
}
} // namespace

class TestMetricsServer : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<MetricsServer> m_server;
    QList<QPair<RunId, MetricRecord>> m_messages;

private Q_SLOTS:
    void init()
    {
        m_server = std::make_unique<MetricsServer>();
        m_messages.clear();
        m_server->setHandler([this](RunId run, const MetricRecord &m) { m_messages << qMakePair(run, m); });
        QString error;
        QVERIFY2(m_server->listen(m_dir.filePath(QStringLiteral("sock/metrics.sock")), &error), qPrintable(error));
    }

    void socketAndFolderArePrivate()
    {
        struct stat st
        {};
        QCOMPARE(::stat(QFile::encodeName(m_dir.filePath(QStringLiteral("sock"))).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0700u);
        QCOMPARE(::stat(QFile::encodeName(m_server->socketPath()).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
    }

    void tokensAreRandomAndLong()
    {
        const QString a = m_server->registerRun(1, QStringLiteral("a"));
        const QString b = m_server->registerRun(2, QStringLiteral("b"));
        QCOMPARE(a.size(), 64);
        QVERIFY(a != b);
    }

    void helloWithTokenIsAcceptedAndMessagesFlow()
    {
        const QString token = m_server->registerRun(7, QStringLiteral("run7"));
        QSignalSpy connected(m_server.get(), &MetricsServer::runConnected);
        QLocalSocket client;
        client.connectToServer(m_server->socketPath());
        QVERIFY(client.waitForConnected(2000));
        client.write(hello(QStringLiteral("run7"), token));
        client.write(line(protocol::metric(1, 0, 0.5, 0.1)));
        QTRY_COMPARE(connected.count(), 1);
        QCOMPARE(connected.at(0).at(0).toInt(), 7);
        QTRY_COMPARE(m_messages.size(), 2); // hello and metric
        QCOMPARE(m_messages.at(1).first, 7);
        QCOMPARE(*m_messages.at(1).second.value("loss"), 0.5);
        QVERIFY(m_server->isConnected(7));

        // Control goes back on the same connection.
        QVERIFY(m_server->send(7, protocol::control(protocol::MessageType::Stop)));
        QTRY_VERIFY(client.canReadLine());
        QCOMPARE(client.readLine(), QByteArray("{\"type\":\"stop\"}\n"));
    }

    void wrongTokenIsDropped()
    {
        m_server->registerRun(1, QStringLiteral("a"));
        QSignalSpy dropped(m_server.get(), &MetricsServer::connectionDropped);
        QLocalSocket client;
        client.connectToServer(m_server->socketPath());
        QVERIFY(client.waitForConnected(2000));
        client.write(hello(QStringLiteral("a"), QString(64, QLatin1Char('0'))));
        QTRY_COMPARE(client.state(), QLocalSocket::UnconnectedState);
        QCOMPARE(dropped.count(), 1);
        QVERIFY(dropped.at(0).at(0).toString().contains(QStringLiteral("hello refused")));
        QCOMPARE(m_server->droppedConnections(), 1u);
        QVERIFY(m_messages.isEmpty());
    }

    void rightTokenWrongRunNameIsDropped()
    {
        const QString token = m_server->registerRun(1, QStringLiteral("a"));
        QLocalSocket client;
        client.connectToServer(m_server->socketPath());
        QVERIFY(client.waitForConnected(2000));
        client.write(hello(QStringLiteral("b"), token));
        QTRY_COMPARE(client.state(), QLocalSocket::UnconnectedState);
        QVERIFY(!m_server->isConnected(1));
    }

    void firstLineMustBeHello()
    {
        const QString token = m_server->registerRun(1, QStringLiteral("a"));
        QLocalSocket client;
        client.connectToServer(m_server->socketPath());
        QVERIFY(client.waitForConnected(2000));
        client.write(line(protocol::metric(1, 0, 0.5, 0.1)));
        QTRY_COMPARE(client.state(), QLocalSocket::UnconnectedState);
        QCOMPARE(m_server->rejectedLines(), 1u);
    }

    void silentConnectionTimesOut()
    {
        m_server->setHelloTimeout(200);
        QSignalSpy dropped(m_server.get(), &MetricsServer::connectionDropped);
        QLocalSocket client;
        client.connectToServer(m_server->socketPath());
        QVERIFY(client.waitForConnected(2000));
        QTRY_COMPARE_WITH_TIMEOUT(client.state(), QLocalSocket::UnconnectedState, 3000);
        QCOMPARE(dropped.count(), 1);
        QVERIFY(dropped.at(0).at(0).toString().contains(QStringLiteral("no hello")));
    }

    void badLinesAreCountedNotFatal()
    {
        const QString token = m_server->registerRun(3, QStringLiteral("g"));
        QLocalSocket client;
        client.connectToServer(m_server->socketPath());
        QVERIFY(client.waitForConnected(2000));
        client.write(hello(QStringLiteral("g"), token));
        client.write("not json at all\n");
        client.write(QByteArray(100 * 1024, 'x') + '\n');           // oversized
        client.write("{\"type\":\"log\",\"text\":\"\xff\xfe\"}\n"); // not UTF-8
        client.write("[1,2,3]\n");                                  // not an object
        client.write("{\"type\":\"metric\",\"step\":\"one\"}\n");   // wrong field types
        client.write(QByteArray(40, '[') + '\n');                   // too deep
        client.write(line(protocol::metric(2, 0, 0.25, 0.2)));
        QTRY_COMPARE(m_messages.size(), 2);
        QCOMPARE(m_messages.last().second.step, std::int64_t(2));
        QCOMPARE(m_server->rejectedLines(), 6u);
        QCOMPARE(m_server->rejectedLines(3), 6u);
        QCOMPARE(client.state(), QLocalSocket::ConnectedState);
    }

    void reconnectReplacesTheOldConnection()
    {
        const QString token = m_server->registerRun(4, QStringLiteral("r"));
        QSignalSpy connected(m_server.get(), &MetricsServer::runConnected);
        QLocalSocket first, second;
        first.connectToServer(m_server->socketPath());
        QVERIFY(first.waitForConnected(2000));
        first.write(hello(QStringLiteral("r"), token));
        QTRY_COMPARE(connected.count(), 1);
        second.connectToServer(m_server->socketPath());
        QVERIFY(second.waitForConnected(2000));
        second.write(hello(QStringLiteral("r"), token));
        QTRY_COMPARE(connected.count(), 2);
        QTRY_COMPARE(first.state(), QLocalSocket::UnconnectedState);
        QVERIFY(m_server->send(4, protocol::control(protocol::MessageType::Pause)));
        QTRY_VERIFY(second.canReadLine());
    }

    void tcpOnLoopback()
    {
        QString error;
        QVERIFY2(m_server->listenTcp(0, &error), qPrintable(error));
        QVERIFY(m_server->tcpPort() > 0);
        const QString token = m_server->registerRun(5, QStringLiteral("t"));
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, m_server->tcpPort());
        QVERIFY(client.waitForConnected(2000));
        client.write(hello(QStringLiteral("t"), token));
        client.write(line(protocol::metric(1, 0, 1.0, 0.1)));
        QTRY_COMPARE(m_messages.size(), 2);
        QCOMPARE(m_messages.at(0).first, 5);
    }

    void unregisterDropsTheConnection()
    {
        const QString token = m_server->registerRun(6, QStringLiteral("u"));
        QLocalSocket client;
        client.connectToServer(m_server->socketPath());
        QVERIFY(client.waitForConnected(2000));
        client.write(hello(QStringLiteral("u"), token));
        QTRY_VERIFY(m_server->isConnected(6));
        m_server->unregisterRun(6);
        QTRY_COMPARE(client.state(), QLocalSocket::UnconnectedState);
        QVERIFY(!m_server->send(6, protocol::control(protocol::MessageType::Stop)));
    }
};

QTEST_GUILESS_MAIN(TestMetricsServer)
#include "tst_metricsserver.moc"
