// "Add host…" in the window (docs/remote.md), on a real sshd in a mount
// namespace of its own (tests/orchestration/testremotehost.h; skipped,
// saying why, without root, sshd or unshare): the dialog tests the
// connection, lists the host's GPUs from its nvidia-smi, adds a lane per
// ticked GPU as one undoable edit; the lanes' headers show the host's
// GPUs; a run trains there; the file saved has the host.

#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "tests/orchestration/testremotehost.h"
#include "tests/orchestration/testutil.h"
#include "ui/app/mainwindow.h"
#include "ui/board/boardcontroller.h"
#include "ui/board/boardmodel.h"
#include "ui/editors/addhostdialog.h"
#include "uitesthelpers.h"

#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace trainyard;
using namespace trainyard::testing;

class TestAddHost : public QObject
{
    Q_OBJECT

    QTemporaryDir m_runtime;
    QTemporaryDir m_tmp;
    test::TestRemoteHost m_host;

    static QAction *action(const MainWindow &window, const QString &text)
    {
        for (QAction *a : window.findChildren<QAction *>()) {
            if (a->text() == text) {
                return a;
            }
        }
        return nullptr;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QFile::setPermissions(m_runtime.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        qputenv("XDG_RUNTIME_DIR", m_runtime.path().toUtf8());
        if (test::fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set (run through ctest)");
        }
        QString error;
        QVERIFY2(m_host.start(m_tmp.filePath(QStringLiteral("host")), &error), qPrintable(error));
    }

    void cleanupTestCase() { m_host.stop(); }

    void addHostFromTheWindow()
    {
        if (!m_host.running()) {
            QSKIP(qPrintable(m_host.skipReason()));
        }
        const QString path = writeExperimentFile(
            m_tmp, QJsonObject{{QStringLiteral("name"), QStringLiteral("add-host")},
                               {QStringLiteral("runs_root"), m_tmp.filePath(QStringLiteral("runs"))},
                               {QStringLiteral("lanes"), QJsonArray{test::lane(QStringLiteral("cpu"), 1, {})}}});
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.openFile(path));
        Orchestrator *orchestrator = window.session()->orchestrator();
        QAction *add = action(window, QStringLiteral("Add &host…"));
        QVERIFY(add);
        QVERIFY(add->isEnabled());

        // The dialog is modal: it is filled and driven from inside its own
        // event loop, as a user would.
        QString status;
        QStringList listed;
        bool rejectedName = false;
        QTimer driver;
        driver.setInterval(50);
        int step = 0;
        connect(&driver, &QTimer::timeout, this, [&] {
            auto *dialog = qobject_cast<AddHostDialog *>(QApplication::activeModalWidget());
            if (!dialog) {
                return;
            }
            if (step == 0) {
                dialog->nameEdit()->setText(QStringLiteral("-lab")); // never an option
                rejectedName = !dialog->addButton()->isEnabled() && dialog->host().name.isEmpty();
                dialog->nameEdit()->setText(QStringLiteral("lab"));
                dialog->hostEdit()->setText(QStringLiteral("127.0.0.1"));
                dialog->sshConfigEdit()->setText(m_host.sshConfig());
                dialog->runsRootEdit()->setText(m_host.runsRoot());
                dialog->workerEdit()->setText(test::fakeWorker());
                QVERIFY(!dialog->addButton()->isEnabled()); // not tested yet
                dialog->testConnection();
                step = 1;
            } else if (step == 1 && !dialog->isTesting() && dialog->deviceList()->count() > 0) {
                status = dialog->statusText();
                for (int i = 0; i < dialog->deviceList()->count(); ++i) {
                    listed << dialog->deviceList()->item(i)->text();
                }
                QVERIFY(dialog->addButton()->isEnabled());
                dialog->addButton()->click();
                step = 2;
            }
        });
        driver.start();
        QTimer::singleShot(0, add, &QAction::trigger);
        QTRY_COMPARE_WITH_TIMEOUT(step, 2, 60000);
        driver.stop();
        QVERIFY(rejectedName);
        QVERIFY2(status.contains(QStringLiteral("Reached 127.0.0.1")) && status.contains(QStringLiteral("2 GPUs")),
                 qPrintable(status));
        QCOMPARE(listed.size(), 3);
        // 81559 MiB: 80 GiB, as nvidia-smi counts (not "86 GB").
        QCOMPARE(listed.at(0), QStringLiteral("GPU 0 · NVIDIA H100 80GB HBM3 · 80 GiB"));
        QCOMPARE(listed.at(2), QStringLiteral("CPU of lab"));

        // A lane per GPU, one undo step; the host is the experiment's.
        Board *board = orchestrator->board();
        QTRY_COMPARE(board->laneCount(), 3);
        QCOMPARE(board->lane(1).device.toString(), QStringLiteral("ssh:lab/cuda:0"));
        QCOMPARE(board->lane(2).device.toString(), QStringLiteral("ssh:lab/cuda:1"));
        QCOMPARE(window.session()->experiment().hosts.size(), 1);
        QCOMPARE(window.session()->experiment().hosts.first().ssh.sshConfig, m_host.sshConfig());
        // The header shows the host's GPU from its nvidia-smi.
        const QModelIndex header = window.boardModel()->laneIndex(1);
        QTRY_COMPARE_WITH_TIMEOUT(header.data(BoardModel::DeviceNameRole).toString(),
                                  QStringLiteral("lab · NVIDIA H100 80GB HBM3"), 20000);
        QTRY_COMPARE(header.data(BoardModel::DeviceStatsRole).toMap().value(QStringLiteral("utilization")).toInt(), 37);
        QVERIFY(window.boardModel()
                    ->laneIndex(2)
                    .data(BoardModel::DeviceStatsRole)
                    .toMap()
                    .value(QStringLiteral("busyWithOthers"))
                    .toBool());

        QAction *undo = action(window, QStringLiteral("&Undo Add host lab"));
        QVERIFY(undo);
        undo->trigger();
        QCOMPARE(board->laneCount(), 1);
        QVERIFY(window.session()->experiment().hosts.isEmpty());
        QAction *redo = action(window, QStringLiteral("&Redo Add host lab"));
        QVERIFY(redo);
        redo->trigger();
        QCOMPARE(board->laneCount(), 3);

        // A run there from the window's board, to its end.
        QList<RunId> queued;
        QVERIFY(window.document()->queueSpec(1, -1, test::fakeSpec(QStringLiteral("there"), 30, 10), 1, &queued));
        orchestrator->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(orchestrator->runs()->value(queued.first()).state, RunState::Finished, 60000);
        QCOMPARE(orchestrator->runs()->value(queued.first()).host, QStringLiteral("lab"));

        // Saved, the file has the host and opens again (the app's own file is trusted).
        QVERIFY(window.saveTo(path));
        QStringList errors;
        const auto saved = Experiment::load(path, &errors);
        QVERIFY2(saved, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(saved->hosts.size(), 1);
        QCOMPARE(saved->lanes.at(2).device.toString(), QStringLiteral("ssh:lab/cuda:1"));
        window.close();
    }
};

QTEST_MAIN(TestAddHost)
#include "tst_addhost.moc"
