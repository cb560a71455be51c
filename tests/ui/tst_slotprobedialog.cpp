// "Measure slots…": the dialog with trainyard-fake-worker copies (progress,
// table, recommendation remembered, "Set slots to N", cancel), and the lane
// header's remembered recommendation (BoardModel::SlotAdviceRole).

#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/slots/slotadvice.h"
#include "ui/app/desktopapp.h"
#include "ui/app/mainwindow.h"
#include "ui/board/boardcontroller.h"
#include "ui/board/boardmodel.h"
#include "ui/board/boardview.h"
#include "ui/common/prompts.h"
#include "ui/editors/slotprobedialog.h"

#include <QApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

using namespace trainyard;

namespace {

QString fakeWorker()
{
    return qEnvironmentVariable("TRAINYARD_FAKE_WORKER");
}

// A fake run whose steps are CPU work, so copies side by side compete.
QJsonObject busySpec(const QString &name = QStringLiteral("busy"))
{
    return QJsonObject{{QStringLiteral("name"), name},
                       {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("fake")},
                                                             {QStringLiteral("steps"), 100000},
                                                             {QStringLiteral("step_ms"), 0},
                                                             {QStringLiteral("work"), 3000000}}}};
}

} // namespace

class TestSlotProbeDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // the advice file goes to a test location
        initDesktopApp();
        QFile::remove(SlotAdvice::defaultPath());
    }

    void measures_and_sets_slots()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        SlotProbeDialog dialog(QStringLiteral("cpu"), busySpec(), 0);
        dialog.probe()->setWorkerProgram(fakeWorker());
        QSignalSpy setSlots(&dialog, &SlotProbeDialog::setSlotsRequested);
        QSignalSpy recorded(&dialog, &SlotProbeDialog::adviceRecorded);
        dialog.show();
        QVERIFY(dialog.start({1, 2}, 40));
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.probe()->isRunning(), 60000);
        QVERIFY2(dialog.setSlotsButton()->isVisible(), qPrintable(dialog.statusText()));
        QCOMPARE(dialog.table()->rowCount(), 2);
        QCOMPARE(dialog.table()->item(1, 0)->text(), QStringLiteral("2"));
        QVERIFY(dialog.statusText().contains(QStringLiteral("Recommended")));
        QCOMPARE(recorded.size(), 1);

        SlotAdvice advice;
        QVERIFY(advice.load());
        const auto remembered = advice.find(QStringLiteral("cpu"), QStringLiteral("fake"));
        QVERIFY(remembered);
        QCOMPARE(remembered->levels.size(), 2);
        QVERIFY(dialog.setSlotsButton()->text().contains(QString::number(remembered->recommended)));
        QVERIFY(dialog.setSlotsButton()->text().startsWith(QLatin1Char('&'))); // a key: Alt+S

        dialog.setSlotsButton()->click();
        QCOMPARE(setSlots.size(), 1);
        QCOMPARE(setSlots.first().first().toInt(), remembered->recommended);
    }

    void cancel_stops_the_probe()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        SlotProbeDialog dialog(QStringLiteral("cpu"), busySpec(), 0);
        dialog.probe()->setWorkerProgram(fakeWorker());
        QSignalSpy cancelled(dialog.probe(), &SlotProbe::cancelled);
        dialog.show();
        QVERIFY(dialog.start({1, 2}, 100000));
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.probe()->workerPids().isEmpty(), 10000);
        dialog.reject();
        QCOMPARE(cancelled.size(), 1);
        QVERIFY(!dialog.probe()->isRunning());
        QVERIFY(dialog.probe()->workerPids().isEmpty());
    }

    void bad_spec_is_shown()
    {
        SlotProbeDialog dialog(QStringLiteral("cpu"), QJsonObject{}, 0);
        QVERIFY(!dialog.start());
        QVERIFY2(dialog.statusText().contains(QStringLiteral("model.type")), qPrintable(dialog.statusText()));
    }

    void lane_menu_offers_measure_slots()
    {
        QTemporaryDir dir;
        const QJsonObject experiment{
            {QStringLiteral("name"), QStringLiteral("menu-test")},
            {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
            {QStringLiteral("lanes"), QJsonArray{QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")},
                                                             {QStringLiteral("runs"), QJsonArray{busySpec()}}},
                                                 QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")},
                                                             {QStringLiteral("runs"), QJsonArray{}}}}}};
        const QString path = dir.filePath(QStringLiteral("experiment.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QJsonDocument(experiment).toJson());
        file.close();
        MainWindow window;
        window.useScriptedPrompts();
        QVERIFY(window.openFile(path));
        window.show();

        // Opens the lane's menu, reads "Measure slots…" and triggers it when enabled.
        auto measureAction = [&](int lane, bool *enabled, QString *tip) {
            bool found = false;
            QTimer::singleShot(100, this, [&] {
                auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
                if (menu) {
                    for (QAction *a : menu->actions()) {
                        if (a->text() == QStringLiteral("Measure slots…")) {
                            found = true;
                            *enabled = a->isEnabled();
                            *tip = a->toolTip();
                            if (a->isEnabled()) {
                                menu->setActiveAction(a);
                                a->trigger();
                            }
                        }
                    }
                    menu->close();
                }
            });
            Q_EMIT window.boardView()->laneContextMenuRequested(lane, window.mapToGlobal(QPoint(50, 50)));
            return found;
        };
        bool enabled = true;
        QString tip;
        QVERIFY(measureAction(1, &enabled, &tip));
        QVERIFY(!enabled);
        QVERIFY2(tip.contains(QStringLiteral("Queue a run")), qPrintable(tip));
        QVERIFY(window.findChildren<SlotProbeDialog *>().isEmpty());

        QVERIFY(measureAction(0, &enabled, &tip));
        QVERIFY(enabled);
        QTRY_COMPARE(window.findChildren<SlotProbeDialog *>().size(), 1);
        SlotProbeDialog *dialog = window.findChildren<SlotProbeDialog *>().first();
        QVERIFY(dialog->windowTitle().contains(QStringLiteral("fake")));
        // "Set slots to N" is an undoable lane edit.
        Orchestrator *orchestrator = window.session()->orchestrator();
        QCOMPARE(orchestrator->laneDevices()->lane(0).slotCount, 1);
        Q_EMIT dialog->setSlotsRequested(3);
        QCOMPARE(orchestrator->laneDevices()->lane(0).slotCount, 3);
        window.boardController()->undoStack()->undo();
        QCOMPARE(orchestrator->laneDevices()->lane(0).slotCount, 1);
        dialog->reject(); // cancels (the default worker cannot train "fake": either way nothing is left)
        QVERIFY(!dialog->probe()->isRunning());
    }

    void lane_shows_the_remembered_recommendation()
    {
        QTemporaryDir dir;
        SlotProbeResult r;
        r.device = QStringLiteral("cpu");
        r.deviceName = QStringLiteral("cpu");
        r.model = QStringLiteral("transe");
        r.levels = {{1, 100, 1.0}, {2, 190, 1.9}, {4, 230, 2.3}};
        r.recommended = 2;
        r.measured = QDateTime(QDate(2026, 11, 30), QTime(9, 0), Qt::UTC);
        QVERIFY(SlotAdvice().record(r));

        Experiment ex;
        ex.name = QStringLiteral("advice");
        ex.runsRoot = dir.path();
        ExperimentLane transe, mlp;
        transe.runs.append(ExperimentRun{
            QJsonObject{{QStringLiteral("name"), QStringLiteral("t")},
                        {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}}}},
            1});
        mlp.runs.append(ExperimentRun{
            QJsonObject{{QStringLiteral("name"), QStringLiteral("m")},
                        {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("mlp")}}}},
            1});
        ex.lanes = {transe, mlp, ExperimentLane{}};
        Session session;
        QStringList errors;
        QVERIFY2(session.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        ExperimentDocument document(&session);
        BoardController controller;
        BoardModel model(&controller);
        model.setDocument(&document, nullptr);
        model.reloadSlotAdvice();
        QCOMPARE(model.laneIndex(0).data(BoardModel::SlotAdviceRole).toString(),
                 QStringLiteral("recommended: 2 slots for transe (measured 2026-11-30: 1.9×)"));
        QCOMPARE(model.laneIndex(1).data(BoardModel::SlotAdviceRole).toString(), QString()); // mlp: never measured
        QCOMPARE(model.laneIndex(2).data(BoardModel::SlotAdviceRole).toString(), QString()); // empty lane
        model.setDocument(nullptr, nullptr);
    }
};

QTEST_MAIN(TestSlotProbeDialog)
#include "tst_slotprobedialog.moc"
