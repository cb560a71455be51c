// Every key of an experiment file that makes something run is a command,
// covered by the trust list as program runs are: a cluster's worker (any
// executable), its ssh_config (a ProxyCommand runs here), its sbatch
// extra_args (sbatch takes any unique start of an option for it). An
// untrusted file is refused by `trainyard run` (exit 2, every command named,
// --trust suggested) and by Session::load, and `trainyard check` lists them
// with their trust state; trusted, they run. Values that reach another
// program's option parser (ssh's host and user) can never be read as options.
//
// Each test function's first comment line ("Fault: ... | User sees: ... |
// Kept: ...") feeds docs/reliability.md.

#include "orchestration/experiment/experiment.h"
#include "orchestration/session/session.h"
#include "orchestration/slurm/slurmcommand.h"
#include "orchestration/slurm/slurmlauncher.h"
#include "tests/helpers/buildprograms.h"
#include "tests/orchestration/testutil.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include <tuple>

using namespace trainyard;
using namespace trainyard::test;

class TestCommands : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;

    QString path(const QString &name) const { return m_tmp.filePath(name); }

    bool writeScript(const QString &file, const QByteArray &body) const
    {
        return writeFile(file, "#!/bin/sh\n" + body)
               && QFile::setPermissions(file, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    }

    // An experiment `name` with one fake-worker run on a lane of `cluster`
    // (its name "c"), its runs root in the temporary folder.
    QString writeClusterFile(const QString &name, QJsonObject cluster) const
    {
        cluster.insert(QStringLiteral("name"), QStringLiteral("c"));
        QJsonObject json = experimentJson(name, path(name + QStringLiteral("-runs")),
                                          {lane(QStringLiteral("slurm:c/debug"), 1, {fakeSpec(QStringLiteral("r"))})});
        json.insert(QStringLiteral("clusters"), QJsonArray{cluster});
        const QString file = path(name + QStringLiteral(".json"));
        writeFile(file, QJsonDocument(json).toJson());
        return file;
    }

    // `trainyard ARGS` with a trust list of its own (empty: nothing is
    // trusted) and, first on PATH, Slurm commands of this test: its sbatch
    // records its options, runs the job script (what a node would) and
    // submits nothing; the others fail at once.
    ProcessOutcome trainyard(const QStringList &args) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), path(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_RUNTIME_DIR"), path(QStringLiteral("rt")));
        env.insert(QStringLiteral("TRAINYARD_WORKER"), fakeWorker());
        env.insert(QStringLiteral("PATH"),
                   path(QStringLiteral("bin")) + QLatin1Char(':') + env.value(QStringLiteral("PATH")));
        return runProcess(buildProgram("TRAINYARD_BIN"), args, env, 90000);
    }

    // The refusal of an untrusted file, the same words as for program runs:
    // exit 2, `command` named, --trust suggested, nothing started.
    void verifyRefused(const QString &file, const QString &command, const QString &marker)
    {
        const ProcessOutcome o = trainyard({QStringLiteral("run"), file});
        QCOMPARE(o.exitCode, 2);
        QVERIFY2(o.err.contains(QStringLiteral("not trusted")), qPrintable(o.err));
        QVERIFY2(o.err.contains(command), qPrintable(o.err));
        QVERIFY2(o.err.contains(QStringLiteral("--trust")), qPrintable(o.err));
        QVERIFY2(!QFileInfo::exists(marker), qPrintable(o.err));
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("sbatch-args"))));
        QVERIFY(!QFileInfo::exists(QFileInfo(file).path() + QLatin1Char('/') + QFileInfo(file).completeBaseName()
                                   + QStringLiteral("-runs/r/spec.json")));
        // The app and every other opener refuse it too.
        QStringList errors;
        Session session;
        QVERIFY(!session.load(file, &errors));
        QVERIFY2(errors.join(QLatin1Char('\n')).contains(command), qPrintable(errors.join(QLatin1Char('\n'))));
        // `check` names it among the commands, not trusted, and runs nothing.
        const ProcessOutcome check = trainyard({QStringLiteral("check"), file});
        QVERIFY2(check.out.contains(QStringLiteral("not trusted")), qPrintable(check.all()));
        QVERIFY2(check.out.contains(command), qPrintable(check.all()));
        QVERIFY2(!QFileInfo::exists(marker), qPrintable(check.all()));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        QVERIFY(QDir().mkpath(path(QStringLiteral("bin"))));
        QVERIFY(QDir().mkpath(path(QStringLiteral("rt"))));
        QVERIFY(::chmod(QFile::encodeName(path(QStringLiteral("rt"))).constData(), 0700) == 0);
        const QByteArray dir = QFile::encodeName(m_tmp.path());
        QVERIFY(writeScript(path(QStringLiteral("bin/sbatch")),
                            "case \" $* \" in *' --test-only '*) exit 1 ;; esac\n"
                            "printf '%s\\n' \"$@\" > '"
                                + dir + "/sbatch-args'\ncat > '" + dir + "/job.sh'\nsh '" + dir
                                + "/job.sh' >/dev/null 2>&1\necho 'sbatch: error: the test cluster submits nothing' "
                                  ">&2\nexit 1\n"));
        for (const char *name : {"squeue", "scontrol", "scancel", "sinfo"}) {
            QVERIFY(writeScript(path(QStringLiteral("bin/") + QLatin1String(name)), "exit 1\n"));
        }
    }

    void cleanup()
    {
        QFile::remove(path(QStringLiteral("sbatch-args")));
        QFile::remove(path(QStringLiteral("job.sh")));
    }

    // Fault: an experiment file from elsewhere names a script as its cluster's worker (any executable, run in every worker job) | User sees: `trainyard run` exits 2: "... runs commands and is not trusted ...: (cluster c, every worker job) /…/evil-worker.sh" and "rerun with --trust"; the app asks first; `trainyard check` lists it "not trusted" | Kept: nothing is submitted or run; with --trust the job runs that worker
    void clusterWorkerIsACommand()
    {
        const QString marker = path(QStringLiteral("worker-ran"));
        const QString worker = path(QStringLiteral("evil-worker.sh"));
        QVERIFY(writeScript(worker, "touch '" + QFile::encodeName(marker) + "'\n"));
        const QString file = writeClusterFile(QStringLiteral("worker"), {{QStringLiteral("worker"), worker}});
        verifyRefused(file, QStringLiteral("(cluster c, every worker job) ") + worker, marker);

        const ProcessOutcome o = trainyard({QStringLiteral("run"), QStringLiteral("--trust"), file});
        QVERIFY2(!o.err.contains(QStringLiteral("not trusted")), qPrintable(o.err));
        QVERIFY2(QFileInfo::exists(marker), qPrintable(o.all())); // the job ran the file's worker
        QVERIFY(readFile(path(QStringLiteral("job.sh"))).contains("exec '" + QFile::encodeName(worker) + "'"));
    }

    // Fault: an experiment file names an ssh_config whose ProxyCommand runs a command on this machine | User sees: `trainyard run` exits 2 naming "(cluster c, every Slurm command) ssh -F /…/evil_ssh_config -- 127.0.0.1" and --trust; `check` lists it "not trusted" | Kept: ssh is never started; with --trust ssh runs with that config
    void sshConfigIsACommand()
    {
        const QString marker = path(QStringLiteral("proxy-ran"));
        const QString config = path(QStringLiteral("evil_ssh_config"));
        QVERIFY(writeFile(config, "Host *\n  ProxyCommand sh -c 'touch " + QFile::encodeName(marker) + "; exit 1'\n"));
        const QString file = writeClusterFile(QStringLiteral("sshconfig"),
                                              {{QStringLiteral("reach"), QStringLiteral("ssh")},
                                               {QStringLiteral("host"), QStringLiteral("127.0.0.1")},
                                               {QStringLiteral("ssh_config"), config},
                                               {QStringLiteral("runs_root"), path(QStringLiteral("sshconfig-runs"))},
                                               {QStringLiteral("worker"), QStringLiteral("/bin/true")}});
        verifyRefused(file, QStringLiteral("(cluster c, every Slurm command) ssh -F %1 -- 127.0.0.1").arg(config),
                      marker);

        const ProcessOutcome o = trainyard({QStringLiteral("run"), QStringLiteral("--trust"), file});
        QVERIFY2(!o.err.contains(QStringLiteral("not trusted")), qPrintable(o.err));
        QVERIFY2(QFileInfo::exists(marker), qPrintable(o.all())); // ssh ran with the file's config
    }

    // Fault: sbatch extra_args in an experiment file: a harmless-looking option, and "--wr=touch …" (sbatch's unique prefix of --wrap), "--ou=", "--uid=0", "--export-f=" | User sees: untrusted, `trainyard run` exits 2 naming "(cluster c, every job) sbatch --comment=hello" and --trust; a prefix of an option Trainyard sets is refused at load even with --trust: "clusters[0].sbatch.extra_args[0]: --wr is sbatch's --wrap (...), which is Trainyard's to set" | Kept: nothing is submitted; trusted, sbatch gets the option as one argument
    void sbatchExtraArgsAreCommands()
    {
        const QString file = writeClusterFile(
            QStringLiteral("extra"),
            {{QStringLiteral("sbatch"),
              QJsonObject{{QStringLiteral("extra_args"), QJsonArray{QStringLiteral("--comment=hello")}}}}});
        verifyRefused(file, QStringLiteral("(cluster c, every job) sbatch --comment=hello"),
                      path(QStringLiteral("none")));
        ProcessOutcome o = trainyard({QStringLiteral("run"), QStringLiteral("--trust"), file});
        QVERIFY2(!o.err.contains(QStringLiteral("not trusted")), qPrintable(o.err));
        QVERIFY2(readFile(path(QStringLiteral("sbatch-args"))).split('\n').contains("--comment=hello"),
                 qPrintable(o.all()));
        cleanup();

        // sbatch reads "--wr" as --wrap: the job would be that shell line.
        const QString marker = path(QStringLiteral("wrap-ran"));
        const QString wrap = writeClusterFile(
            QStringLiteral("wrap"),
            {{QStringLiteral("sbatch"),
              QJsonObject{{QStringLiteral("extra_args"),
                           QJsonArray{QStringLiteral("--wr=touch ") + marker, QStringLiteral("--ou=/tmp/x"),
                                      QStringLiteral("--uid=0"), QStringLiteral("--export-f=/tmp/env"),
                                      QStringLiteral("--mem=4G")}}}}});
        for (const QStringList &args : {QStringList{QStringLiteral("run"), wrap},
                                        QStringList{QStringLiteral("run"), QStringLiteral("--trust"), wrap},
                                        QStringList{QStringLiteral("check"), wrap}}) {
            o = trainyard(args);
            QCOMPARE(o.exitCode, 2);
            for (const QString &expected :
                 {QStringLiteral("clusters[0].sbatch.extra_args[0]: --wr is sbatch's --wrap"),
                  QStringLiteral("clusters[0].sbatch.extra_args[1]: --ou is sbatch's --output"),
                  QStringLiteral("clusters[0].sbatch.extra_args[2]: --uid is not allowed"),
                  QStringLiteral("clusters[0].sbatch.extra_args[3]: --export-f is sbatch's --export-file")}) {
                QVERIFY2(o.err.contains(expected), qPrintable(o.err));
            }
            QVERIFY2(!o.err.contains(QStringLiteral("extra_args[4]")), qPrintable(o.err));
            QVERIFY(!QFileInfo::exists(path(QStringLiteral("sbatch-args"))));
            QVERIFY(!QFileInfo::exists(marker));
        }
    }

    // Fault: a cluster with only Trainyard's defaults (no worker, no extra_args, local reach) and sbatch's named settings | User sees: no trust question: the file runs no command of its own | Kept: its runs go to Slurm as before
    void defaultClusterNeedsNoTrust()
    {
        const QString file = writeClusterFile(
            QStringLiteral("plain"),
            {{QStringLiteral("sbatch"), QJsonObject{{QStringLiteral("partition"), QStringLiteral("debug")},
                                                    {QStringLiteral("account"), QStringLiteral("lab")},
                                                    {QStringLiteral("time"), QStringLiteral("1:00:00")}}}});
        QStringList errors;
        const auto ex = Experiment::load(file, &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        QVERIFY2(ex->commandLines().isEmpty(), qPrintable(ex->commandLines().join(QLatin1Char('\n'))));
        const ProcessOutcome o = trainyard({QStringLiteral("run"), file});
        QVERIFY2(!o.err.contains(QStringLiteral("not trusted")), qPrintable(o.err));
        // It got as far as sbatch (the test's, which submits nothing).
        QVERIFY2(readFile(path(QStringLiteral("sbatch-args"))).contains("--partition=debug"), qPrintable(o.all()));
    }

    // Fault: ssh host or user values that are ssh options ("-oProxyCommand=touch MARKER", "-G", "-F/x" style) | User sees: the file is refused at load: "clusters[0].host: expected a host name, address or ssh config alias (... not starting with "-"), got ..." (user likewise) | Kept: ssh is never started; even a host that skipped validation comes after "--" in ssh's argument list
    void sshDestinationIsNeverAnOption()
    {
        const QString marker = path(QStringLiteral("host-ran"));
        const auto sshCluster = [&](const QString &host, const QString &user) {
            QJsonObject c{{QStringLiteral("reach"), QStringLiteral("ssh")},
                          {QStringLiteral("host"), host},
                          {QStringLiteral("runs_root"), path(QStringLiteral("dash-runs"))},
                          {QStringLiteral("worker"), QStringLiteral("/bin/true")}};
            if (!user.isEmpty()) {
                c.insert(QStringLiteral("user"), user);
            }
            return c;
        };
        const QString proxy = QStringLiteral("-oProxyCommand=touch ") + marker;
        for (const auto &[host, user, key] :
             {std::tuple{proxy, QString(), QStringLiteral("host")},
              std::tuple{QStringLiteral("-G"), QString(), QStringLiteral("host")},
              std::tuple{QStringLiteral("-v"), QString(), QStringLiteral("host")},
              std::tuple{QStringLiteral("h\nx"), QString(), QStringLiteral("host")},
              std::tuple{QStringLiteral("login"), proxy, QStringLiteral("user")},
              std::tuple{QStringLiteral("login"), QStringLiteral("-v"), QStringLiteral("user")}}) {
            const QString file = writeClusterFile(QStringLiteral("dash"), sshCluster(host, user));
            for (const QStringList &args : {QStringList{QStringLiteral("run"), QStringLiteral("--trust"), file},
                                            QStringList{QStringLiteral("check"), file}}) {
                const ProcessOutcome o = trainyard(args);
                QCOMPARE(o.exitCode, 2);
                QVERIFY2(o.err.contains(QStringLiteral("clusters[0].%1: expected").arg(key)), qPrintable(o.err));
                QVERIFY2(o.err.contains(QStringLiteral("not starting with \"-\"")), qPrintable(o.err));
                QVERIFY(!QFileInfo::exists(marker));
            }
        }

        // Past validation (a cluster built in memory), the argument list
        // still has every option before "--" and the host alone after it,
        // then the one remote command line, quoted.
        ExperimentCluster hostile;
        hostile.name = QStringLiteral("c");
        hostile.reach = QStringLiteral("ssh");
        hostile.host = proxy;
        hostile.user = QStringLiteral("-oProxyCommand=x");
        hostile.port = 2222;
        const QStringList ssh = SlurmClusterConfig::forCluster(hostile).sshCommand;
        QCOMPARE(ssh.mid(ssh.size() - 2), (QStringList{QStringLiteral("--"), proxy}));
        QCOMPARE(ssh.indexOf(QStringLiteral("--")), ssh.size() - 2);
        QCOMPARE(ssh.at(ssh.indexOf(hostile.user) - 1), QStringLiteral("-l")); // an option's value, never an option
        // What is really run: a stand-in for ssh prints its arguments.
        const QString argvFile = path(QStringLiteral("ssh-argv"));
        const QString fakeSsh = path(QStringLiteral("fake-ssh"));
        QVERIFY(writeScript(fakeSsh, "printf '%s\\n' \"$@\" > '" + QFile::encodeName(argvFile) + "'\n"));
        SlurmProcessRunner runner(10000);
        runner.setRemote(QStringList{fakeSsh} + ssh.mid(1));
        const SlurmCommandResult r =
            runner.runNow(QStringLiteral("squeue"), {QStringLiteral("--jobs=1"), QStringLiteral("-x y")}, 10000);
        QVERIFY(r.ok());
        QStringList argv = QString::fromUtf8(readFile(argvFile)).split(QLatin1Char('\n'));
        argv.removeLast(); // after the last newline
        const qsizetype dashes = argv.indexOf(QStringLiteral("--"));
        QVERIFY2(dashes > 0 && dashes == argv.size() - 3, qPrintable(argv.join(QLatin1Char('|'))));
        QCOMPARE(argv.at(dashes + 1), proxy);
        QCOMPARE(argv.last(), QStringLiteral("'squeue' '--jobs=1' '-x y'"));
    }
};

QTEST_GUILESS_MAIN(TestCommands)
#include "tst_commands.moc"
