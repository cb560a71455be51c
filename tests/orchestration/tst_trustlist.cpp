// The trust list: an experiment file with program runs never runs a command
// by surprise. `trainyard run` refuses it (exit 2, naming every command, with
// nothing started) unless --trust is given or this version of the file is in
// the user's list; a trusted file edited afterwards is refused again.

#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/trustlist.h"
#include "orchestration/launch/launcher.h"
#include "tests/helpers/buildprograms.h"
#include "testutil.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace trainyard;
using namespace trainyard::test;

class TestTrustList : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;

    QString configHome() const { return m_tmp.filePath(QStringLiteral("config")); }
    // The list `trainyard run` reads with XDG_CONFIG_HOME=configHome().
    TrustList userList() const
    {
        return TrustList(configHome() + QStringLiteral("/trainyard/trusted-experiments.json"));
    }

    // An experiment whose one program run creates `marker`.
    QString writeHostile(const QString &name, const QString &marker, const QString &extra = QString()) const
    {
        const QJsonObject run{
            {QStringLiteral("name"), QStringLiteral("payload")},
            {QStringLiteral("program"),
             QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"),
                                                             QStringLiteral("touch ") + marker + extra}}}}};
        const QJsonObject json = experimentJson(name, m_tmp.filePath(name + QStringLiteral("-runs")),
                                                {lane(QStringLiteral("cpu"), 1, {run})});
        const QString file = m_tmp.filePath(name + QStringLiteral(".json"));
        writeFile(file, QJsonDocument(json).toJson());
        return file;
    }

    // `trainyard COMMAND ARGS` with the user's list in configHome().
    ProcessOutcome trainyard(const QString &command, const QStringList &args) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome());
        env.insert(QStringLiteral("TRAINYARD_WORKER"), fakeWorker());
        return runProcess(buildProgram("TRAINYARD_BIN"), QStringList{command} + args, env, 60000);
    }
    ProcessOutcome runCommand(const QStringList &args) const { return trainyard(QStringLiteral("run"), args); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
    }

    void aVersionIsTrustedByItsHash()
    {
        TrustList list(m_tmp.filePath(QStringLiteral("unit/trusted.json")));
        QVERIFY(!list.isTrusted("abc"));
        QVERIFY(!list.isTrusted(QByteArray()));
        QVERIFY(list.trust("abc", QStringLiteral("/x/y.json"), {}));
        QVERIFY(list.isTrusted("abc"));
        QVERIFY(!list.isTrusted("abd"));
        QVERIFY(list.trust("abc", QStringLiteral("/x/y.json"), {})); // once is enough
        QCOMPARE(readJsonFile(m_tmp.filePath(QStringLiteral("unit/trusted.json")))
                     .value(QStringLiteral("trusted"))
                     .toArray()
                     .size(),
                 1);
        // Garbage in the list trusts nothing and breaks nothing.
        QVERIFY(writeFile(m_tmp.filePath(QStringLiteral("unit/bad.json")), "{\"trusted\": [1, null, \"x\"]"));
        TrustList damaged(m_tmp.filePath(QStringLiteral("unit/bad.json")));
        QVERIFY(!damaged.isTrusted("x"));
        QString error;
        QVERIFY(!damaged.trust("abc", QStringLiteral("/x/y.json"), {}, &error)); // never overwritten
        QVERIFY2(error.contains(QStringLiteral("not a trust list")), qPrintable(error));
        // One version per file: the newer replaces the older.
        QVERIFY(list.trust("abd", QStringLiteral("/x/y.json"), {}));
        QVERIFY(list.isTrusted("abd"));
        QVERIFY(!list.isTrusted("abc"));
    }

    // The same bytes in another folder are another version: a relative
    // program or cwd would run something else there.
    void aCopyElsewhereIsAskedAbout()
    {
        const QString file = writeHostile(QStringLiteral("moved"), m_tmp.filePath(QStringLiteral("moved-marker")));
        const auto ex = Experiment::load(file, nullptr);
        QVERIFY(ex);
        TrustList list(m_tmp.filePath(QStringLiteral("moved/trusted.json")));
        QVERIFY(list.trust(*ex));
        QVERIFY(QDir().mkpath(m_tmp.filePath(QStringLiteral("elsewhere"))));
        const QString copy = m_tmp.filePath(QStringLiteral("elsewhere/moved.json"));
        QVERIFY(QFile::copy(file, copy));
        const auto moved = Experiment::load(copy, nullptr);
        QVERIFY(moved);
        QVERIFY(moved->contentHash != ex->contentHash);
        QVERIFY(!list.refusal(*moved).isEmpty());
    }

    // A shown command cannot hide what it runs behind control characters.
    void commandsShowControlCharacters()
    {
        QCOMPARE(shellText({QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo hi\x1b[2K\rrm -rf ~")}),
                 QStringLiteral("sh -c $'echo hi\\x1b[2K\\x0drm -rf ~'"));
        QCOMPARE(shellText({QStringLiteral("a\u202eb")}), QStringLiteral("$'a\\u202eb'"));
        QCOMPARE(shellText({QStringLiteral("it's")}), QStringLiteral("'it'\\''s'"));
    }

    void refusalNamesEveryCommand()
    {
        const QString marker = m_tmp.filePath(QStringLiteral("unit-marker"));
        const QString file = writeHostile(QStringLiteral("unit"), marker);
        QStringList errors;
        const auto ex = Experiment::load(file, &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(ex->contentHash.size(), 64);
        const QStringList commands = ex->commandLines();
        QCOMPARE(commands.size(), 1);
        QVERIFY2(commands.first().contains(QStringLiteral("sh -c 'touch ") + marker + QLatin1Char('\'')),
                 qPrintable(commands.first()));
        // Without a cwd it runs in its run folder: nothing to show.
        QVERIFY2(!commands.first().startsWith(QStringLiteral("(in ")), qPrintable(commands.first()));
        TrustList list(m_tmp.filePath(QStringLiteral("unit2/trusted.json")));
        const QString refusal = list.refusal(*ex);
        QVERIFY(refusal.contains(file));
        QVERIFY(refusal.contains(commands.first()));
        QVERIFY(list.trust(*ex));
        QVERIFY(list.refusal(*ex).isEmpty());
        // Without program runs there is nothing to trust.
        QVERIFY(
            list.refusal(experiment(experimentJson(QStringLiteral("plain"), m_tmp.path(),
                                                   {lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("a"))})})))
                .isEmpty());
    }

    // The hostile file: exit 2, the program named, nothing run, no run folder.
    void untrustedFileRunsNothing()
    {
        const QString marker = m_tmp.filePath(QStringLiteral("PWNED"));
        const QString file = writeHostile(QStringLiteral("hostile"), marker);
        const ProcessOutcome o = runCommand({file});
        QCOMPARE(o.exitCode, 2);
        QVERIFY2(o.err.contains(QStringLiteral("not trusted")), qPrintable(o.err));
        QVERIFY2(o.err.contains(QStringLiteral("touch ") + marker), qPrintable(o.err));
        QVERIFY2(o.err.contains(QStringLiteral("--trust")), qPrintable(o.err));
        // Nothing signals a process that never ran: one left running would have touched it by now.
        QTest::qWait(300);
        QVERIFY(!QFileInfo::exists(marker));
        QVERIFY(!QFileInfo::exists(m_tmp.filePath(QStringLiteral("hostile-runs/payload"))));
    }

    void trustFlagRunsIt()
    {
        const QString marker = m_tmp.filePath(QStringLiteral("flag-marker"));
        const ProcessOutcome o = runCommand({QStringLiteral("--trust"), writeHostile(QStringLiteral("flag"), marker)});
        QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
        QVERIFY(QFileInfo::exists(marker));
    }

    // --trust is remembered as the app's answer is: the next run of this
    // version needs no flag.
    void trustFlagIsRemembered()
    {
        const QString marker = m_tmp.filePath(QStringLiteral("remembered-marker"));
        const QString file = writeHostile(QStringLiteral("remembered"), marker);
        ProcessOutcome o = runCommand({QStringLiteral("--trust"), file});
        QVERIFY2(o.exitCode == 0, qPrintable(o.all()));
        QVERIFY2(o.err.contains(QStringLiteral("is trusted from now on")), qPrintable(o.err));
        // Not refused (exit 2) this time: the run had finished, nothing starts.
        o = runCommand({file});
        QVERIFY2(o.exitCode == 0, qPrintable(o.all()));
        QVERIFY2(!o.err.contains(QStringLiteral("not trusted")), qPrintable(o.err));
        QVERIFY2(o.out.contains(QStringLiteral("nothing was started")), qPrintable(o.out));
        QVERIFY(userList().isTrusted(Experiment::load(file, nullptr)->contentHash));
    }

    // `trainyard trust FILE` prints what it trusts and asks nothing; --list
    // tells each file's state, --revoke forgets one.
    void trustCommand()
    {
        const QString marker = m_tmp.filePath(QStringLiteral("command-marker"));
        const QString file = writeHostile(QStringLiteral("command"), marker);
        ProcessOutcome o = trainyard(QStringLiteral("trust"), {file});
        QVERIFY2(o.exitCode == 0, qPrintable(o.all()));
        QVERIFY2(o.out.contains(QStringLiteral("is trusted from now on")), qPrintable(o.out));
        QVERIFY2(o.out.contains(QStringLiteral("touch ") + marker), qPrintable(o.out));
        o = runCommand({file});
        QVERIFY2(o.exitCode == 0, qPrintable(o.all()));
        QVERIFY(QFileInfo::exists(marker));

        o = trainyard(QStringLiteral("trust"), {QStringLiteral("--list")});
        QCOMPARE(o.exitCode, 0);
        QVERIFY2(o.out.contains(QFileInfo(file).absoluteFilePath() + QStringLiteral("  (trusted ")), qPrintable(o.out));
        QVERIFY2(o.out.contains(QStringLiteral("; this version)")), qPrintable(o.out));
        writeHostile(QStringLiteral("command"), marker, QStringLiteral("; true"));
        o = trainyard(QStringLiteral("trust"), {QStringLiteral("--list")});
        QVERIFY2(o.out.contains(QStringLiteral("changed since")), qPrintable(o.out));

        o = trainyard(QStringLiteral("trust"), {file}); // the edited version
        QCOMPARE(o.exitCode, 0);
        o = trainyard(QStringLiteral("trust"), {QStringLiteral("--revoke"), file});
        QCOMPARE(o.exitCode, 0);
        QVERIFY2(o.out.contains(QStringLiteral("is no longer trusted")), qPrintable(o.out));
        QVERIFY(QFile::remove(marker));
        o = runCommand({file});
        QCOMPARE(o.exitCode, 2);
        // Nothing signals a process that never ran: one left running would have touched it by now.
        QTest::qWait(300);
        QVERIFY(!QFileInfo::exists(marker));

        // Nothing to trust, a broken file, a bad command line.
        const QString plain = m_tmp.filePath(QStringLiteral("plain.json"));
        writeFile(plain,
                  QJsonDocument(experimentJson(QStringLiteral("plain"), m_tmp.path(),
                                               {lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("a"))})}))
                      .toJson());
        o = trainyard(QStringLiteral("trust"), {plain});
        QCOMPARE(o.exitCode, 0);
        QVERIFY2(o.out.contains(QStringLiteral("runs no command of its own")), qPrintable(o.out));
        o = trainyard(QStringLiteral("trust"), {m_tmp.filePath(QStringLiteral("missing.json"))});
        QCOMPARE(o.exitCode, 2);
        QVERIFY2(o.err.contains(QStringLiteral("missing.json"))
                     && o.err.contains(QStringLiteral("nothing was trusted")),
                 qPrintable(o.err));
        o = trainyard(QStringLiteral("trust"), {});
        QCOMPARE(o.exitCode, 2);
    }

    // Trusted, it runs; edited afterwards, it is refused again.
    void editedAfterTrustIsRefusedAgain()
    {
        const QString marker = m_tmp.filePath(QStringLiteral("edited-marker"));
        const QString file = writeHostile(QStringLiteral("edited"), marker);
        const auto ex = Experiment::load(file, nullptr);
        QVERIFY(ex);
        QVERIFY(userList().trust(*ex));
        ProcessOutcome o = runCommand({file});
        QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
        QVERIFY(QFileInfo::exists(marker));
        QVERIFY(QFile::remove(marker));

        writeHostile(QStringLiteral("edited"), marker, QStringLiteral("; touch ") + marker + QStringLiteral("-more"));
        o = runCommand({file});
        QCOMPARE(o.exitCode, 2);
        QVERIFY2(o.err.contains(QStringLiteral("-more")), qPrintable(o.err));
        // Nothing signals a process that never ran: one left running would have touched it by now.
        QTest::qWait(300);
        QVERIFY(!QFileInfo::exists(marker));
    }

    // Trust covers what the file's keys point at: a host's ssh_config and
    // every file it Includes (a glob's matches too), a local cluster's
    // worker. Changing, adding or removing one asks again, naming it; a
    // FIFO in their place never blocks.
    void pointedAtFilesAreCovered()
    {
        const QString dir = m_tmp.filePath(QStringLiteral("reach"));
        QVERIFY(QDir().mkpath(dir + QStringLiteral("/conf.d")));
        const QString config = dir + QStringLiteral("/ssh_config");
        const QString included = dir + QStringLiteral("/conf.d/a.conf");
        const QString later = dir + QStringLiteral("/later.conf");
        const QString worker = dir + QStringLiteral("/worker.sh");
        QVERIFY(writeFile(config, "Host lab\n  HostName 127.0.0.1\n  Include \"" + dir.toUtf8() + "/conf.d/*.conf\" "
                                      + later.toUtf8() + " # a comment\n"));
        QVERIFY(writeFile(included, "Port 22\n"));
        QVERIFY(writeFile(worker, "#!/bin/sh\nexec trainyard-worker \"$@\"\n"));
        QJsonObject json = experimentJson(QStringLiteral("reach"), dir + QStringLiteral("/runs"),
                                          {lane(QStringLiteral("ssh:lab/cpu"), 1, {fakeSpec(QStringLiteral("a"))})});
        json.insert(QStringLiteral("hosts"),
                    QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("lab")},
                                           {QStringLiteral("host"), QStringLiteral("lab")},
                                           {QStringLiteral("ssh_config"), config},
                                           {QStringLiteral("runs_root"), QStringLiteral("/srv/runs")},
                                           {QStringLiteral("worker"), QStringLiteral("/opt/trainyard-worker")}}});
        json.insert(QStringLiteral("clusters"), QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("hpc")},
                                                                       {QStringLiteral("worker"), worker}}});
        const QString file = m_tmp.filePath(QStringLiteral("reach.json"));
        QVERIFY(writeFile(file, QJsonDocument(json).toJson()));
        QStringList errors;
        const auto ex = Experiment::load(file, &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        const QList<ReachedFile> reached = reachedFiles(*ex);
        QStringList paths;
        for (const ReachedFile &f : reached) {
            paths << f.path;
        }
        QCOMPARE(paths, (QStringList{worker, config, included, later}));
        QCOMPARE(reached.last().sha256, ReachedFile::kAbsent);

        TrustList list(m_tmp.filePath(QStringLiteral("reach/trusted.json")));
        QVERIFY(list.trust(*ex));
        QVERIFY(list.refusal(*ex).isEmpty());
        const QString coverage = TrustList::coverage(*ex);
        QVERIFY2(coverage.contains(config + QStringLiteral(" (host lab's ssh_config)"))
                     && coverage.contains(QStringLiteral("does not cover")),
                 qPrintable(coverage));
        const auto refusedFor = [&](const QString &path, const char *change) {
            const QString refusal = list.refusal(*ex);
            const bool named = refusal.contains(path + QStringLiteral(" (")) && refusal.contains(QLatin1String(change))
                               && refusal.contains(QStringLiteral("since you trusted ") + file);
            if (!named) {
                qWarning("%s", qPrintable(refusal));
            }
            return named && list.trust(*ex) && list.refusal(*ex).isEmpty(); // trusted again, as it is now
        };
        QVERIFY(writeFile(config, readFile(config) + "PermitLocalCommand yes\nLocalCommand touch MARKER\n"));
        QVERIFY(refusedFor(config, "changed"));
        QVERIFY(writeFile(included, "Port 22\nProxyCommand sh -c 'touch MARKER'\n"));
        QVERIFY(refusedFor(included, "changed"));
        QVERIFY(writeFile(dir + QStringLiteral("/conf.d/b.conf"), "LocalCommand touch MARKER\n"));
        QVERIFY(refusedFor(dir + QStringLiteral("/conf.d/b.conf"), "is new"));
        QVERIFY(writeFile(later, "LocalCommand touch MARKER\n"));
        QVERIFY(refusedFor(later, "changed"));
        QVERIFY(QFile::remove(dir + QStringLiteral("/conf.d/b.conf")));
        QVERIFY(refusedFor(dir + QStringLiteral("/conf.d/b.conf"), "no longer read"));
        QVERIFY(writeFile(worker, "#!/bin/sh\ntouch MARKER\n"));
        QVERIFY(refusedFor(worker, "changed"));
        // A FIFO in an Include's place: read without blocking, not trusted.
        QVERIFY(QFile::remove(later));
        QCOMPARE(mkfifo(QFile::encodeName(later).constData(), 0600), 0);
        QVERIFY(refusedFor(later, "changed"));
        // A list entry from before files were covered: asked again.
        QVERIFY(writeFile(m_tmp.filePath(QStringLiteral("reach/old.json")),
                          "{\"version\": 1, \"trusted\": [{\"sha256\": \"" + ex->contentHash + "\", \"path\": \""
                              + file.toUtf8() + "\"}]}"));
        QVERIFY2(
            TrustList(m_tmp.filePath(QStringLiteral("reach/old.json"))).refusal(*ex).contains(QStringLiteral("is new")),
            qPrintable(TrustList(m_tmp.filePath(QStringLiteral("reach/old.json"))).refusal(*ex)));
    }

    // `trainyard trust` says what it covers; once a covered file changes,
    // `check` and `trust --list` name it.
    void commandsNameTheChangedFile()
    {
        const QString config = m_tmp.filePath(QStringLiteral("cmd_ssh_config"));
        QVERIFY(writeFile(config, "Host lab\n  HostName 127.0.0.1\n"));
        QJsonObject json = experimentJson(QStringLiteral("cmdreach"), m_tmp.filePath(QStringLiteral("cmdreach-runs")),
                                          {lane(QStringLiteral("ssh:lab/cpu"), 1, {fakeSpec(QStringLiteral("a"))})});
        json.insert(QStringLiteral("hosts"),
                    QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("lab")},
                                           {QStringLiteral("host"), QStringLiteral("lab")},
                                           {QStringLiteral("ssh_config"), config},
                                           {QStringLiteral("runs_root"), QStringLiteral("/srv/runs")},
                                           {QStringLiteral("worker"), QStringLiteral("/opt/trainyard-worker")}}});
        const QString file = m_tmp.filePath(QStringLiteral("cmdreach.json"));
        QVERIFY(writeFile(file, QJsonDocument(json).toJson()));
        ProcessOutcome o = trainyard(QStringLiteral("trust"), {file});
        QVERIFY2(o.exitCode == 0 && o.out.contains(config + QStringLiteral(" (host lab's ssh_config)"))
                     && o.out.contains(QStringLiteral("does not cover")),
                 qPrintable(o.all()));
        QVERIFY(writeFile(config, "Host lab\n  HostName 127.0.0.1\n  PermitLocalCommand yes\n  LocalCommand true\n"));
        const QString changed = config + QStringLiteral(" (host lab's ssh_config) changed since you trusted");
        o = trainyard(QStringLiteral("check"), {file});
        QVERIFY2(o.out.contains(QStringLiteral("not trusted now: ") + changed), qPrintable(o.all()));
        o = trainyard(QStringLiteral("trust"), {QStringLiteral("--list")});
        QVERIFY2(o.out.contains(QStringLiteral("not trusted now: ") + changed), qPrintable(o.all()));
        o = runCommand({file});
        QCOMPARE(o.exitCode, 2);
        QVERIFY2(o.err.contains(changed), qPrintable(o.all()));
    }

    // What Trainyard saves itself is the user's own: trusted as written.
    void savedFilesAreTrusted()
    {
        const QString file = writeHostile(QStringLiteral("saved"), m_tmp.filePath(QStringLiteral("saved-marker")));
        const auto ex = Experiment::load(file, nullptr);
        QVERIFY(ex);
        const QString copy = m_tmp.filePath(QStringLiteral("saved-copy.json"));
        QString error;
        QVERIFY2(saveOwnExperiment(*ex, copy, &error), qPrintable(error));
        const auto reread = Experiment::load(copy, nullptr);
        QVERIFY(reread);
        QVERIFY(TrustList().isTrusted(reread->contentHash));
        QVERIFY(!TrustList().isTrusted(ex->contentHash)); // the original was never saved by us
    }
};

QTEST_GUILESS_MAIN(TestTrustList)
#include "tst_trustlist.moc"
