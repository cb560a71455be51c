// `trainyard run --notify`: the real command on a private session bus
// (dbus-daemon --session, started here) sends its notices to a fake
// org.freedesktop.Notifications registered by this test; without a bus it
// warns once and the runs go on. Exits 77 (skipped) without dbus-daemon.

#include "tests/orchestration/testutil.h"

#include <QCoreApplication>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

using namespace trainyard;
using namespace trainyard::test;

// The notification service's one method the command calls, as the
// specification names it; every call is kept for the test to read.
class FakeNotifications : public QObject
{
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")
public:
    struct Call
    {
        QString app, summary, body;
    };
    QList<Call> calls;

public Q_SLOTS:
    uint Notify(const QString &app, uint replacesId, const QString &icon, const QString &summary, const QString &body,
                const QStringList &actions, const QVariantMap &hints, int timeout)
    {
        Q_UNUSED(replacesId)
        Q_UNUSED(icon)
        Q_UNUSED(actions)
        Q_UNUSED(hints)
        Q_UNUSED(timeout)
        calls.append({app, summary, body});
        return uint(calls.size());
    }
};

class TestNotify : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    QProcess m_daemon;
    QString m_address;

    // An experiment of two program runs, one failing, trusted by --trust.
    QString writeExperiment(const QString &name)
    {
        const QJsonObject ok{
            {QStringLiteral("name"), QStringLiteral("fine")},
            {QStringLiteral("program"), QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("true")}}}}};
        const QJsonObject bad{
            {QStringLiteral("name"), QStringLiteral("breaks")},
            {QStringLiteral("program"),
             QJsonObject{{QStringLiteral("argv"),
                          QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("exit 1")}}}}};
        const QString file = m_tmp.filePath(name + QStringLiteral(".json"));
        writeFile(file,
                  QJsonDocument(experimentJson(name, m_tmp.filePath(name), {lane(QStringLiteral("cpu"), 1, {ok, bad})}))
                      .toJson());
        return file;
    }

    static QProcessEnvironment environment(const QString &busAddress)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("DISPLAY")); // no autolaunch of a bus of the desktop's
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        env.insert(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), busAddress);
        return env;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        QVERIFY(!qEnvironmentVariableIsEmpty("TRAINYARD_BIN"));
        m_daemon.start(QStringLiteral("dbus-daemon"),
                       {QStringLiteral("--session"), QStringLiteral("--nofork"), QStringLiteral("--print-address=1")});
        QVERIFY(m_daemon.waitForStarted(5000));
        QTRY_VERIFY_WITH_TIMEOUT(m_daemon.canReadLine(), 5000);
        m_address = QString::fromUtf8(m_daemon.readLine()).trimmed();
        QVERIFY2(m_address.startsWith(QStringLiteral("unix:")), qPrintable(m_address));
    }

    void cleanupTestCase()
    {
        m_daemon.terminate();
        m_daemon.waitForFinished(5000);
    }

    // A failed run and the experiment's end each reach the service, naming
    // the run and how it ended, in the words the app's tray uses.
    void aFailedRunIsNotified()
    {
        QDBusConnection bus = QDBusConnection::connectToBus(m_address, QStringLiteral("fake-notifications"));
        QVERIFY2(bus.isConnected(), qPrintable(bus.lastError().message()));
        FakeNotifications service;
        QVERIFY(bus.registerObject(QStringLiteral("/org/freedesktop/Notifications"), &service,
                                   QDBusConnection::ExportAllSlots));
        QVERIFY2(bus.registerService(QStringLiteral("org.freedesktop.Notifications")),
                 qPrintable(bus.lastError().message()));

        QProcess run;
        run.setProcessEnvironment(environment(m_address));
        run.start(qEnvironmentVariable("TRAINYARD_BIN"),
                  {QStringLiteral("run"), QStringLiteral("--notify"), QStringLiteral("--trust"),
                   writeExperiment(QStringLiteral("notified"))});
        // The fake service answers from this event loop while the command runs.
        QTRY_VERIFY_WITH_TIMEOUT(run.state() == QProcess::NotRunning, 30000);
        const QString err = QString::fromUtf8(run.readAllStandardError());
        QCOMPARE(run.exitCode(), 1); // a run did not finish
        QVERIFY2(!err.contains(QStringLiteral("--notify")), qPrintable(err));

        QStringList seen;
        for (const FakeNotifications::Call &c : std::as_const(service.calls)) {
            seen << c.summary + QStringLiteral(" | ") + c.body;
            QCOMPARE(c.app, QStringLiteral("Trainyard"));
        }
        const QString all = seen.join(QLatin1Char('\n'));
        QVERIFY2(all.contains(QStringLiteral("Run failed | breaks failed: exit 1")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("Run finished | fine finished")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("Experiment done | notified: 2 of 2 ended (1 finished, 1 failed).")),
                 qPrintable(all));
        bus.unregisterService(QStringLiteral("org.freedesktop.Notifications"));
        QDBusConnection::disconnectFromBus(QStringLiteral("fake-notifications"));
    }

    // No session bus: one clear warning at the start, and every run still runs.
    void withoutABusTheRunsGoOn()
    {
        QProcess run;
        run.setProcessEnvironment(environment(QStringLiteral("unix:path=") + m_tmp.filePath(QStringLiteral("no-bus"))));
        run.start(qEnvironmentVariable("TRAINYARD_BIN"),
                  {QStringLiteral("run"), QStringLiteral("--notify"), QStringLiteral("--trust"),
                   writeExperiment(QStringLiteral("unnotified"))});
        QVERIFY(run.waitForFinished(30000));
        const QString err = QString::fromUtf8(run.readAllStandardError());
        const QString out = QString::fromUtf8(run.readAllStandardOutput());
        QCOMPARE(run.exitCode(), 1);
        QCOMPARE(err.count(QStringLiteral("--notify")), 1);
        QVERIFY2(err.contains(QStringLiteral("no D-Bus session bus")), qPrintable(err));
        QVERIFY2(out.contains(QStringLiteral("1 of 2 finished")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("breaks: failed")), qPrintable(out));
    }
};

int main(int argc, char **argv)
{
    if (QStandardPaths::findExecutable(QStringLiteral("dbus-daemon")).isEmpty()) {
        std::fprintf(stderr, "SKIP: dbus-daemon is not installed (the package dbus-daemon or dbus)\n");
        return 77;
    }
    QCoreApplication app(argc, argv);
    TestNotify test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_notify.moc"
