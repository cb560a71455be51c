// The program run editor: the command as a table of arguments, the folder,
// the environment, the seed; the accept button refuses what validateRunSpec
// would, and the spec it gives back is what the board queues.

#include "editors/programeditordialog.h"
#include "experiment/experiment.h"
#include "experiment/runspecview.h"

#include <QDialogButtonBox>
#include <QJsonArray>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTest>

using namespace trainyard;

class TestProgramEditorDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void editsTheCommandAsATable()
    {
        const QJsonObject spec = pythonScriptRunSpec(QStringLiteral("/home/u/exp/train.py"));
        ProgramEditorDialog dialog(spec, 1);
        QVERIFY(dialog.canAccept());
        QTableWidget *argv = dialog.argumentTable();
        QCOMPARE(argv->rowCount(), 2);
        QCOMPARE(argv->item(0, 0)->text(), QStringLiteral("python3"));
        QCOMPARE(argv->item(1, 0)->text(), QStringLiteral("/home/u/exp/train.py"));
        QCOMPARE(dialog.folderEdit()->text(), QStringLiteral("/home/u/exp"));

        // Arguments are cells: one word each, spaces and quotes as typed.
        argv->insertRow(2);
        argv->setItem(2, 0, new QTableWidgetItem(QStringLiteral("--note")));
        argv->insertRow(3);
        argv->setItem(3, 0, new QTableWidgetItem(QStringLiteral("it's a test")));
        QVERIFY(dialog.canAccept());
        const RunSpecView view(dialog.spec());
        QCOMPARE(view.programArgv(), (QStringList{QStringLiteral("python3"), QStringLiteral("/home/u/exp/train.py"),
                                                  QStringLiteral("--note"), QStringLiteral("it's a test")}));
        QCOMPARE(view.programCwd(), QStringLiteral("/home/u/exp"));
        QCOMPARE(view.seed().value_or(-1), 1);
        QCOMPARE(view.effectiveName(), QStringLiteral("train"));
    }

    void refusesWhatTheBoardWould()
    {
        ProgramEditorDialog dialog(pythonScriptRunSpec(QStringLiteral("/x/a.py")), 3);
        QCOMPARE(dialog.repeat(), 3);
        QTableWidget *argv = dialog.argumentTable();
        argv->item(0, 0)->setText(QString()); // no program
        QVERIFY(!dialog.canAccept());
        QVERIFY2(dialog.problem().contains(QStringLiteral("program.argv[0]")), qPrintable(dialog.problem()));
        argv->item(0, 0)->setText(QStringLiteral("python3"));
        QVERIFY(dialog.canAccept());

        dialog.setTakenNames({QStringLiteral("a")});
        QVERIFY(!dialog.canAccept());
        QVERIFY2(dialog.problem().contains(QStringLiteral("already used")), qPrintable(dialog.problem()));
        dialog.setTakenNames({});

        auto *env = dialog.findChildren<QTableWidget *>().value(1);
        QVERIFY(env && env != argv);
        env->insertRow(0);
        env->setItem(0, 1, new QTableWidgetItem(QStringLiteral("1")));
        env->setItem(0, 0, new QTableWidgetItem(QStringLiteral("TRAINYARD_TOKEN")));
        QVERIFY(!dialog.canAccept());
        QVERIFY2(dialog.problem().contains(QStringLiteral("set by Trainyard")), qPrintable(dialog.problem()));
        env->item(0, 0)->setText(QStringLiteral("MY_FLAG"));
        QVERIFY(dialog.canAccept());
        QCOMPARE(RunSpecView(dialog.spec()).programEnv().value(0),
                 (std::pair<QString, QString>{QStringLiteral("MY_FLAG"), QStringLiteral("1")}));
    }

    // The program's keys the dialog does not show (requires) survive an edit.
    void keepsTheKeysItDoesNotEdit()
    {
        QJsonObject spec = pythonScriptRunSpec(QStringLiteral("/x/a.py"));
        QJsonObject program = spec.value(QStringLiteral("program")).toObject();
        program.insert(QStringLiteral("requires"), QJsonArray{QStringLiteral("torch")});
        spec.insert(QStringLiteral("program"), program);
        ProgramEditorDialog dialog(spec, 1);
        dialog.argumentTable()->item(0, 0)->setText(QStringLiteral("python3.11"));
        QVERIFY2(dialog.canAccept(), qPrintable(dialog.problem()));
        const QJsonObject edited = RunSpecView(dialog.spec()).program();
        QCOMPARE(edited.value(QStringLiteral("requires")).toArray(), QJsonArray{QStringLiteral("torch")});
        QCOMPARE(edited.value(QStringLiteral("argv")).toArray().first().toString(), QStringLiteral("python3.11"));
        dialog.argumentTable()->item(0, 0)->setText(QStringLiteral("bash")); // requires needs a Python
        QVERIFY(!dialog.canAccept());
        QVERIFY2(dialog.problem().contains(QStringLiteral("program.requires")), qPrintable(dialog.problem()));
    }
};

QTEST_MAIN(TestProgramEditorDialog)
#include "tst_programeditordialog.moc"
