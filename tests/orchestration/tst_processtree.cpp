// A run is its whole process tree: a program run that is a shell wrapper
// around a child, a child that ignores SIGTERM, a child that left the
// run's session (setsid; found by its token), each stopped from Trainyard:
// no process of the run is left, and the run ends only after that, saying
// meanwhile which pid it waits for. And whose a GPU process is: a run's
// (its tree), this user's own, another user's (DeviceInventory).

#include "orchestration/board/board.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <pwd.h>
#include <unistd.h>

using namespace trainyard;
using namespace trainyard::test;

namespace {

// A program run of `sh -c SCRIPT`.
QJsonObject shellRun(const QString &name, const QString &script)
{
    return QJsonObject{
        {QStringLiteral("name"), name},
        {QStringLiteral("program"),
         QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"), script}}}}};
}

// Whether `pid` is a process that has not ended (a zombie has: it holds
// nothing and waits for its parent to reap it).
bool alive(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (pid <= 0 || !stat.open(QIODevice::ReadOnly)) {
        return false;
    }
    const QByteArray text = stat.readAll();
    const qsizetype close = text.lastIndexOf(')');
    return close > 0 && text.mid(close + 2, 1) != "Z";
}

qint64 readPid(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return 0;
    }
    return file.readAll().trimmed().toLongLong();
}

} // namespace

class TestProcessTree : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;

    // A child script: writes its pid to $1, then sleeps as that same process.
    QString childScript(bool ignoreTerm) const
    {
        const QString path = m_tmp.filePath(ignoreTerm ? QStringLiteral("stubborn.sh") : QStringLiteral("child.sh"));
        writeFile(path, QByteArray(ignoreTerm ? "trap '' TERM\n" : "")
                            + "echo $$ > \"$1.tmp\"\nmv \"$1.tmp\" \"$1\"\n"
                              "exec sleep 300\n");
        return path;
    }

    std::unique_ptr<Session> openOne(const QString &name, const QString &script) const
    {
        auto session = std::make_unique<Session>();
        QStringList errors;
        const QJsonArray lanes{lane(QStringLiteral("cpu"), 1, {shellRun(name, script)})};
        if (!session->open(experiment(experimentJson(name, m_tmp.filePath(name), lanes)), QString(), &errors)) {
            qWarning("%s", qPrintable(errors.join(QLatin1Char('\n'))));
        }
        return session;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_tmp.isValid()); }

    void stopEndsTheWholeTree_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("launch"); // how the wrapper starts the child (CHILD: its script, PIDFILE)
        QTest::addColumn<bool>("ignoreTerm");
        QTest::addColumn<bool>("waits"); // the run must say it waits for the child
        QTest::newRow("a shell wrapper's child")
            << QStringLiteral("wrapper") << QStringLiteral("sh CHILD PIDFILE & wait") << false << false;
        QTest::newRow("a child that ignores SIGTERM")
            << QStringLiteral("stubborn") << QStringLiteral("sh CHILD PIDFILE & wait") << true << true;
        QTest::newRow("a child that called setsid")
            << QStringLiteral("setsid") << QStringLiteral("setsid sh CHILD PIDFILE & wait") << true << true;
    }

    // The wrapper gets SIGTERM (it is not connected: no stop on a socket),
    // dies, and leaves its child behind: Trainyard ends the child too, and
    // the run ends only then.
    void stopEndsTheWholeTree()
    {
        QFETCH(QString, name);
        QFETCH(QString, launch);
        QFETCH(bool, ignoreTerm);
        QFETCH(bool, waits);
        const QString pidFile = m_tmp.filePath(name + QStringLiteral(".pid"));
        launch.replace(QStringLiteral("CHILD"), childScript(ignoreTerm)).replace(QStringLiteral("PIDFILE"), pidFile);
        auto session = openOne(name, launch);
        Orchestrator *orch = session->orchestrator();
        orch->supervisor()->setStopTimeout(20000); // the tree's own grace (2 s) ends it, not the escalation
        const RunId id = orch->board()->runIds().value(0);

        // Whether the child still lived when the run was reported ended.
        int childAliveAtEnd = -1;
        qint64 child = 0;
        QString waitedMessage;
        connect(orch->runs(), &RunRegistry::changed, this, [&](RunId changed) {
            const RunInfo r = orch->runs()->value(changed);
            if (changed != id) {
                return;
            }
            if (r.message.startsWith(QStringLiteral("waits for "))) {
                waitedMessage = r.message;
            }
            if (isTerminal(r.state) && childAliveAtEnd < 0) {
                childAliveAtEnd = alive(child) ? 1 : 0;
            }
        });
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT((child = readPid(pidFile)) > 0, 20000);
        QVERIFY(alive(child));
        QVERIFY(!isTerminal(orch->runs()->value(id).state));
        QVERIFY(orch->runActions()->stopRun(id));

        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), 15000);
        const RunInfo r = orch->runs()->value(id);
        QVERIFY2(r.state == RunState::Stopped, qPrintable(runStateName(r.state) + QStringLiteral(": ") + r.message));
        QCOMPARE(childAliveAtEnd, 0);
        QVERIFY(!alive(child));
        if (waits) {
            QVERIFY2(waitedMessage.contains(QStringLiteral("pid %1 (sleep)").arg(child)), qPrintable(waitedMessage));
            QVERIFY2(waitedMessage.endsWith(QStringLiteral("of this run to exit")), qPrintable(waitedMessage));
        }
    }

    // A GPU process in a run's tree (the wrapper's child) is Run with the
    // run's top pid; another of this user's Mine; another user's OtherUser
    // with the user's name; a pid not here Unknown.
    void gpuProcessesAreClassifiedByTheirTree()
    {
        const QString pidFile = m_tmp.filePath(QStringLiteral("gpu.pid"));
        auto session =
            openOne(QStringLiteral("gpu"), QStringLiteral("setsid sh %1 %2 & wait").arg(childScript(false), pidFile));
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->board()->runIds().value(0);
        orch->dispatcher()->startAll();
        qint64 child = 0;
        QTRY_VERIFY_WITH_TIMEOUT((child = readPid(pidFile)) > 0, 20000);
        QTRY_VERIFY(orch->runs()->value(id).pid > 0);
        const qint64 top = orch->runs()->value(id).pid;

        QProcess mine;
        mine.start(QStringLiteral("sleep"), {QStringLiteral("60")});
        QVERIFY(mine.waitForStarted());

        // Another user's process, where this test may make one.
        const char *otherName = "trainyard-other";
        QProcess other;
        if (::geteuid() == 0) {
            if (!::getpwnam(otherName)) {
                QProcess::execute(
                    QStringLiteral("useradd"),
                    {QStringLiteral("--system"), QStringLiteral("--no-create-home"), QString::fromLatin1(otherName)});
            }
            if (const passwd *pw = ::getpwnam(otherName)) {
                other.start(QStringLiteral("setpriv"),
                            {QStringLiteral("--reuid=%1").arg(pw->pw_uid), QStringLiteral("--regid=%1").arg(pw->pw_gid),
                             QStringLiteral("--clear-groups"), QStringLiteral("sleep"), QStringLiteral("60")});
                QVERIFY(other.waitForStarted());
                // setpriv execs sleep: the same pid, once it is the other user's.
                QTRY_VERIFY(QFileInfo(QStringLiteral("/proc/%1").arg(other.processId())).ownerId() == pw->pw_uid);
            }
        }

        DeviceInfo gpu;
        gpu.id = QStringLiteral("cuda:0");
        gpu.isGpu = true;
        for (const qint64 pid : {child, qint64(mine.processId()), qint64(other.processId()), qint64(0x3fffffff)}) {
            if (pid <= 0) {
                continue;
            }
            GpuProcess p;
            p.pid = pid;
            gpu.processes << p;
        }
        session->devices()->setFakeGpus({gpu});
        const QList<GpuProcess> seen = session->devices()->device(QStringLiteral("cuda:0")).processes;
        QCOMPARE(seen.at(0).owner, GpuProcess::Owner::Run); // found by its token: it left the session
        QCOMPARE(seen.at(0).runPid, top);
        QCOMPARE(seen.at(0).name, QStringLiteral("sleep"));
        QCOMPARE(seen.at(1).owner, GpuProcess::Owner::Mine);
        QCOMPARE(seen.at(1).runPid, qint64(0));
        QCOMPARE(seen.last().owner, GpuProcess::Owner::Unknown);
        QVERIFY(session->devices()->device(QStringLiteral("cuda:0")).busyWithOthers());
        const bool haveOther = other.processId() > 0;
        if (haveOther) {
            QCOMPARE(seen.at(2).owner, GpuProcess::Owner::OtherUser);
            QCOMPARE(seen.at(2).user, QString::fromLatin1(otherName));
        }
        orch->runActions()->stopRun(id);
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), 15000);
        QVERIFY(!alive(child));
        for (QProcess *p : {&mine, &other}) {
            p->kill();
            p->waitForFinished();
        }
        if (!haveOther) {
            QSKIP("not root: another user's process could not be made (Run, Mine and Unknown were checked)");
        }
    }
};

QTEST_GUILESS_MAIN(TestProcessTree)
#include "tst_processtree.moc"
