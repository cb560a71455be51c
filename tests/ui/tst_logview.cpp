// LogView, the app's one log viewer: a run's whole worker.log (not a tail of
// it), followed as it grows, started over when a retry replaces it, and cut
// with a word when it is larger than it shows.

#include "ui/runs/logview.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace trainyard;

namespace {

bool append(const QString &path, const QByteArray &bytes, QIODevice::OpenMode mode = QIODevice::Append)
{
    QFile f(path);
    return f.open(mode) && f.write(bytes) == bytes.size();
}

} // namespace

class TestLogView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // A FIFO or a link in place of worker.log: the view says so at once and
    // reads nothing; the window never waits on the FIFO (a writer opened
    // after 3 s would release an open that blocked, and tell).
    void aFifoOrALinkIsRefusedNotWaitedOn()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("fifo/worker.log"));
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("fifo"))));
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        std::atomic<bool> done{false};
        std::atomic<bool> blocked{false};
        std::thread release([&] {
            for (int i = 0; i < 60 && !done; ++i) {
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
            while (!done) {
                const int fd = ::open(QFile::encodeName(fifo).constData(), O_WRONLY | O_NONBLOCK);
                if (fd >= 0) {
                    blocked = true;
                    ::close(fd);
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
        });
        LogView view;
        view.setFile(fifo);
        view.reload();
        done = true;
        release.join();
        QVERIFY(!blocked);
        QVERIFY2(view.toPlainText().contains(QStringLiteral("is not a regular file (a FIFO)")),
                 qPrintable(view.toPlainText()));

        const QString other = dir.filePath(QStringLiteral("other.log"));
        QVERIFY(append(other, "another run's log\n"));
        const QString link = dir.filePath(QStringLiteral("link/worker.log"));
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("link"))));
        QVERIFY(QFile::link(other, link));
        view.setFile(link);
        QVERIFY(!view.toPlainText().contains(QStringLiteral("another run")));
        QVERIFY2(view.toPlainText().contains(QStringLiteral("(a symbolic link)")), qPrintable(view.toPlainText()));
    }

    void wholeFileThenWhatItGains()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("worker.log"));
        LogView view;
        view.setFile(path);
        QVERIFY(view.toPlainText().contains(QStringLiteral("No log yet")));

        QByteArray lines;
        for (int i = 0; i < 30000; ++i) {
            lines += "line " + QByteArray::number(i) + '\n';
        }
        QVERIFY(append(path, lines));
        view.reload();
        // Every line, the first too (the old dialog kept the last 20,000).
        QVERIFY(view.toPlainText().startsWith(QStringLiteral("line 0\nline 1\n")));
        QCOMPARE(view.document()->blockCount(), 30001);

        // A character cut in two by a read shows whole once it is complete.
        const QByteArray euro = "\xe2\x82\xac"; // €
        QVERIFY(append(path, "cost " + euro.left(1)));
        view.reload();
        QVERIFY(append(path, euro.mid(1) + "\n"));
        view.reload();
        QVERIFY(view.toPlainText().endsWith(QStringLiteral("cost \u20ac\n")));

        // Retried: the folder was cleared and the log starts again.
        QVERIFY(append(path, "again\n", QIODevice::WriteOnly | QIODevice::Truncate));
        view.reload();
        QCOMPARE(view.toPlainText(), QStringLiteral("again\n"));
    }

    void aHugeLogSaysWhatItLeavesOut()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("worker.log"));
        const QByteArray row = QByteArray(1023, 'x') + '\n';
        QVERIFY(append(path, row.repeated(int(LogView::kMaxBytes / row.size()) + 3 * 1024) + "the end\n"));
        LogView view;
        view.setFile(path);
        QVERIFY(view.toPlainText().startsWith(QStringLiteral("[the first 3 MiB of")));
        QVERIFY(view.toPlainText().endsWith(QStringLiteral("the end\n")));
    }
};

QTEST_MAIN(TestLogView)
#include "tst_logview.moc"
