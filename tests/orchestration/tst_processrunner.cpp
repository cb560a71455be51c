// Process and ProcessRunner with real programs (sh, sleep): a deadline kills
// the program and the result says so, stdout and stderr stay apart, a
// destroyed context takes its program with it, and a program that does not
// exist is a clear answer from the event loop.

#include "orchestration/process/processrunner.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

#include <cerrno>
#include <signal.h>

using namespace trainyard;

namespace {

// Whether `pid` is gone (not even a zombie: QProcess reaps what it kills).
bool gone(qint64 pid)
{
    return ::kill(pid_t(pid), 0) == -1 && errno == ESRCH;
}

// A shell that writes its pid to `pidFile`, then becomes `sleep 30`.
QStringList sleeper(const QString &pidFile)
{
    return {QStringLiteral("-c"), QStringLiteral("echo $$ > \"$1\"; exec sleep 30"), QStringLiteral("sh"), pidFile};
}

qint64 readPid(const QString &pidFile)
{
    QFile file(pidFile);
    return file.open(QIODevice::ReadOnly) ? file.readAll().trimmed().toLongLong() : 0;
}

const QString kMissing = QStringLiteral("/nonexistent/trainyard-no-such-program");

} // namespace

class TestProcessRunner : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void deadlineKillsTheProgram()
    {
        QTemporaryDir dir;
        const QString pidFile = dir.filePath(QStringLiteral("pid"));
        Process process;
        QSignalSpy done(&process, &Process::done);
        QElapsedTimer clock;
        clock.start();
        process.start({QStringLiteral("sh"), sleeper(pidFile), {}, {}, {}}, 300);
        QVERIFY(done.wait(5000));
        QVERIFY(clock.elapsed() < 5000);
        const auto result = done.at(0).at(0).value<ProcessResult>();
        QVERIFY(result.timedOut);
        QVERIFY(!result.ok());
        QCOMPARE(result.message(QStringLiteral("sh")), QStringLiteral("sh did not answer in time"));
        const qint64 pid = readPid(pidFile);
        QVERIFY(pid > 0);
        QVERIFY(gone(pid));

        // Blocking, the same.
        const ProcessResult now = Process::runNow({QStringLiteral("sleep"), {QStringLiteral("30")}, {}, {}, {}}, 300);
        QVERIFY(now.timedOut);
        QVERIFY(!now.ok());
    }

    void stdoutAndStderrApart()
    {
        const ProcessCommand command{QStringLiteral("sh"),
                                     {QStringLiteral("-c"), QStringLiteral("cat; echo out; echo err >&2; exit 3")},
                                     QByteArray("in\n"),
                                     {},
                                     {}};
        ProcessRunner runner;
        QObject context;
        std::optional<ProcessResult> answer;
        runner.run(command.program, command.args, command.input, {}, &context,
                   [&answer](const ProcessResult &r) { answer = r; });
        QTRY_VERIFY_WITH_TIMEOUT(answer.has_value(), 5000);
        QCOMPARE(answer->out, QByteArray("in\nout\n"));
        QCOMPARE(answer->err, QByteArray("err\n"));
        QCOMPARE(answer->exitCode, 3);
        QVERIFY(answer->started && !answer->timedOut && !answer->crashed && !answer->ok());
        QCOMPARE(answer->message(QStringLiteral("sh")), QStringLiteral("err"));

        const ProcessResult now = Process::runNow(command, 5000);
        QCOMPARE(now.out, QByteArray("in\nout\n"));
        QCOMPARE(now.err, QByteArray("err\n"));
        QCOMPARE(now.exitCode, 3);
    }

    void destroyedContextKillsTheProgram()
    {
        QTemporaryDir dir;
        const QString pidFile = dir.filePath(QStringLiteral("pid"));
        ProcessRunner runner;
        auto *context = new QObject;
        bool answered = false;
        runner.run(QStringLiteral("sh"), sleeper(pidFile), {}, {}, context,
                   [&answered](const ProcessResult &) { answered = true; });
        QTRY_VERIFY_WITH_TIMEOUT(readPid(pidFile) > 0, 5000);
        const qint64 pid = readPid(pidFile);
        QVERIFY(!gone(pid));
        delete context;
        QVERIFY(gone(pid));
        QCoreApplication::processEvents();
        QVERIFY(!answered);

        // Process::cancel() the same, without an answer.
        QFile::remove(pidFile);
        Process process;
        QSignalSpy done(&process, &Process::done);
        process.start({QStringLiteral("sh"), sleeper(pidFile), {}, {}, {}});
        QTRY_VERIFY_WITH_TIMEOUT(readPid(pidFile) > 0, 5000);
        process.cancel();
        QVERIFY(gone(readPid(pidFile)));
        QVERIFY(!process.isRunning());
        QCoreApplication::processEvents();
        QCOMPARE(done.count(), 0);
    }

    void missingProgramIsAClearError()
    {
        ProcessRunner runner;
        QObject context;
        std::optional<ProcessResult> answer;
        runner.run(kMissing, {}, {}, {}, &context, [&answer](const ProcessResult &r) { answer = r; });
        QVERIFY(!answer); // from the event loop, never inside run()
        QTRY_VERIFY_WITH_TIMEOUT(answer.has_value(), 5000);
        QVERIFY(!answer->started);
        QVERIFY(!answer->ok());
        QVERIFY(!answer->errorString.isEmpty());
        const QString message = answer->message(kMissing);
        QVERIFY2(message.startsWith(kMissing + QStringLiteral(" could not be run: ")), qPrintable(message));

        Process process; // an empty program fails inside QProcess::start itself
        QSignalSpy done(&process, &Process::done);
        process.start({});
        QCOMPARE(done.count(), 0);
        QVERIFY(done.wait(5000));
        QVERIFY(!done.at(0).at(0).value<ProcessResult>().started);

        const ProcessResult now = Process::runNow({kMissing, {}, {}, {}, {}}, 5000);
        QVERIFY(!now.started);
        QVERIFY(now.message(kMissing).startsWith(kMissing + QStringLiteral(" could not be run: ")));
    }
};

QTEST_GUILESS_MAIN(TestProcessRunner)
#include "tst_processrunner.moc"
