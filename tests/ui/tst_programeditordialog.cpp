// The program run editor: the command as a table of arguments, the folder,
// the environment, the seed; the accept button refuses what validateRunSpec
// would, and the spec it gives back is what the board queues.

#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/pythonscript.h"
#include "orchestration/runspec/runspecview.h"
#include "ui/editors/programeditordialog.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace trainyard;

class TestProgramEditorDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Each label with a key takes it to its field (a "&Folder:" without one
    // showed its "&"); the words hold on a CPU lane as on a GPU lane.
    void keysAndWordsForAnyLane()
    {
        QTemporaryDir dir;
        ProgramEditorDialog dialog(pythonScriptRunSpec(script(dir, QStringLiteral("train.py"))), 1);
        for (const QLabel *label : dialog.findChildren<QLabel *>()) {
            const QString text = label->text();
            if (text.contains(QLatin1Char('&')) && !Qt::mightBeRichText(text)) {
                QVERIFY2(label->buddy(), qPrintable(text));
            }
            QVERIFY2(!text.contains(QLatin1String("lane's GPU")), qPrintable(text));
        }
        auto *folder = dialog.folderEdit();
        const QList<QLabel *> labels = dialog.findChildren<QLabel *>();
        QVERIFY(
            std::any_of(labels.cbegin(), labels.cend(), [folder](const QLabel *l) { return l->buddy() == folder; }));
        QVERIFY(
            dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->text().contains(QLatin1Char('&')));
    }

    void editsTheCommandAsATable()
    {
        QTemporaryDir dir;
        const QString train = script(dir, QStringLiteral("train.py"));
        const QJsonObject spec = pythonScriptRunSpec(train);
        ProgramEditorDialog dialog(spec, 1);
        QVERIFY2(dialog.canAccept(), qPrintable(dialog.problem()));
        QTableWidget *argv = dialog.argumentTable();
        QCOMPARE(argv->rowCount(), 2);
        QCOMPARE(argv->item(0, 0)->text(), QStringLiteral("python3"));
        QCOMPARE(argv->item(1, 0)->text(), train);
        QCOMPARE(dialog.folderEdit()->text(), dir.path());

        // Arguments are cells: one word each, spaces and quotes as typed.
        argv->insertRow(2);
        argv->setItem(2, 0, new QTableWidgetItem(QStringLiteral("--note")));
        argv->insertRow(3);
        argv->setItem(3, 0, new QTableWidgetItem(QStringLiteral("it's a test")));
        QVERIFY(dialog.canAccept());
        const RunSpecView view(dialog.spec());
        QCOMPARE(view.programArgv(), (QStringList{QStringLiteral("python3"), train, QStringLiteral("--note"),
                                                  QStringLiteral("it's a test")}));
        QCOMPARE(view.programCwd(), dir.path());
        QCOMPARE(view.seed().value_or(-1), 1);
        QCOMPARE(view.effectiveName(), QStringLiteral("train"));
    }

    void refusesWhatTheBoardWould()
    {
        QTemporaryDir dir;
        ProgramEditorDialog dialog(pythonScriptRunSpec(script(dir, QStringLiteral("a.py"))), 3);
        QCOMPARE(dialog.repeat(), 3);
        QTableWidget *argv = dialog.argumentTable();
        argv->item(0, 0)->setText(QString()); // no program
        QVERIFY(!dialog.canAccept());
        QVERIFY2(dialog.problem().contains(QStringLiteral("program.argv[0]")), qPrintable(dialog.problem()));
        argv->item(0, 0)->setText(QStringLiteral("python3"));
        QVERIFY(dialog.canAccept());

        dialog.setTakenNames({QStringLiteral("a")});
        QVERIFY(dialog.canAccept()); // three repeats: a-1, a-2, a-3
        dialog.setTakenNames({QStringLiteral("a-2")});
        QVERIFY(!dialog.canAccept());
        QVERIFY2(dialog.problem().contains(QStringLiteral("\"a-2\" is already used")), qPrintable(dialog.problem()));
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

    // "python3 train.py" was queued with no train.py where it
    // runs, and failed at once. The editor says so and keeps Queue off;
    // a command that runs no script file is left alone.
    void aMissingPythonScriptIsRefused()
    {
        QTemporaryDir dir;
        ProgramEditorDialog dialog(pythonScriptRunSpec(dir.filePath(QStringLiteral("train.py"))), 1);
        auto *queue = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        QVERIFY(!dialog.canAccept());
        QVERIFY(!queue->isEnabled());
        QVERIFY2(dialog.problem().contains(dir.filePath(QStringLiteral("train.py")) + QStringLiteral(": no such file")),
                 qPrintable(dialog.problem()));

        // A relative script is looked for in the program's folder.
        QTableWidget *argv = dialog.argumentTable();
        argv->item(1, 0)->setText(QStringLiteral("train.py"));
        QVERIFY2(dialog.problem().contains(QStringLiteral("train.py: no such file in %1").arg(dir.path())),
                 qPrintable(dialog.problem()));
        script(dir, QStringLiteral("train.py"));
        argv->item(1, 0)->setText(QStringLiteral("./train.py"));
        QVERIFY2(dialog.canAccept(), qPrintable(dialog.problem()));
        QVERIFY(queue->isEnabled());

        // Without a folder it runs in its new run folder, where no script is.
        dialog.folderEdit()->clear();
        QVERIFY(!dialog.canAccept());
        QVERIFY2(dialog.problem().contains(QStringLiteral("./train.py: no such file in the run's own folder")),
                 qPrintable(dialog.problem()));

        // python3 -m, -c, another program: no script file to look for.
        argv->item(1, 0)->setText(QStringLiteral("-m"));
        argv->insertRow(2);
        argv->setItem(2, 0, new QTableWidgetItem(QStringLiteral("http.server")));
        QVERIFY2(dialog.canAccept(), qPrintable(dialog.problem()));
        argv->item(0, 0)->setText(QStringLiteral("bash"));
        argv->item(1, 0)->setText(QStringLiteral("train.py"));
        QVERIFY2(dialog.canAccept(), qPrintable(dialog.problem()));
    }

    // The script of a command as the interpreter reads its options.
    void thePythonScriptOfACommand_data()
    {
        QTest::addColumn<QStringList>("command");
        QTest::addColumn<QString>("script");
        const auto row = [](const char *name, const QString &command, const QString &script) {
            QTest::newRow(name) << command.split(QLatin1Char(' ')) << script;
        };
        row("plain", QStringLiteral("python3 train.py --lr 0.1"), QStringLiteral("train.py"));
        row("path to python", QStringLiteral("/opt/venv/bin/python train.py"), QStringLiteral("train.py"));
        row("versioned", QStringLiteral("python3.12 a/b.py"), QStringLiteral("a/b.py"));
        row("pypy", QStringLiteral("pypy3 t.py"), QStringLiteral("t.py"));
        row("flags", QStringLiteral("python3 -u -B t.py"), QStringLiteral("t.py"));
        row("flags together", QStringLiteral("python3 -uO t.py"), QStringLiteral("t.py"));
        row("-W with its argument", QStringLiteral("python3 -W ignore t.py"), QStringLiteral("t.py"));
        row("-W attached", QStringLiteral("python3 -Wignore t.py"), QStringLiteral("t.py"));
        row("-X with its argument", QStringLiteral("python3 -uX dev t.py"), QStringLiteral("t.py"));
        row("hash pycs", QStringLiteral("python3 --check-hash-based-pycs never t.py"), QStringLiteral("t.py"));
        row("--", QStringLiteral("python3 -- -odd.py"), QStringLiteral("-odd.py"));
        row("-m", QStringLiteral("python3 -m torch.distributed.run t.py"), QString());
        row("-c", QStringLiteral("python3 -c print(1)"), QString());
        row("-c attached", QStringLiteral("python3 -uc print(1)"), QString());
        row("stdin", QStringLiteral("python3 - t.py"), QString());
        row("--version", QStringLiteral("python3 --version"), QString());
        row("unknown option", QStringLiteral("python3 -Z t.py"), QString());
        row("no script", QStringLiteral("python3 -u"), QString());
        row("not python", QStringLiteral("torchrun t.py"), QString());
        row("python in a name", QStringLiteral("python-config t.py"), QString());
    }
    void thePythonScriptOfACommand()
    {
        QFETCH(QStringList, command);
        QFETCH(QString, script);
        QCOMPARE(pythonscript::of(command), script);
    }

    // The program's keys the dialog does not show (requires) survive an edit.
    void keepsTheKeysItDoesNotEdit()
    {
        QTemporaryDir dir;
        QJsonObject spec = pythonScriptRunSpec(script(dir, QStringLiteral("a.py")));
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

private:
    static QString script(const QTemporaryDir &dir, const QString &name)
    {
        QFile file(dir.filePath(name));
        if (!file.open(QIODevice::WriteOnly)) {
            return {};
        }
        file.write("print('hi')\n");
        return file.fileName();
    }
};

QTEST_MAIN(TestProgramEditorDialog)
#include "tst_programeditordialog.moc"
