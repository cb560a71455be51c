#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/jsonchecks.h"
#include "orchestration/experiment/keytables.h"
#include "orchestration/experiment/shelltext.h"
#include "orchestration/experiment/sshtarget.h"

#include <QJsonArray>
#include <QRegularExpression>

namespace trainyard {

using namespace jsonchecks;

namespace {

// sbatch options Trainyard sets itself: a cluster's extra arguments may not
// replace the job (--wrap), its log, its name or its environment.
const QStringList &trainyardsSbatchOptions()
{
    static const QStringList options{
        QStringLiteral("--wrap"),     QStringLiteral("--output"), QStringLiteral("--error"),
        QStringLiteral("--input"),    QStringLiteral("--export"), QStringLiteral("--parsable"),
        QStringLiteral("--job-name"), QStringLiteral("--chdir"),  QStringLiteral("--open-mode"),
        QStringLiteral("--signal"),   QStringLiteral("--gres"),   QStringLiteral("--partition"),
    };
    return options;
}

// sbatch options a run's one job may not have: another user's or group's
// job, an environment from a file, many jobs, a submission that waits for
// the job or submits nothing.
const QStringList &refusedSbatchOptions()
{
    static const QStringList options{
        QStringLiteral("--uid"),   QStringLiteral("--gid"),  QStringLiteral("--export-file"),
        QStringLiteral("--array"), QStringLiteral("--wait"), QStringLiteral("--test-only"),
    };
    return options;
}

// Why the extra argument `arg` ("--name" or "--name=value") may not go to
// sbatch, empty when it may. sbatch (getopt_long) reads any unique start of a
// long option as that option, so "--wr=..." is --wrap: a name that begins one
// of the options above is refused as that option.
QString sbatchOptionProblem(const QString &arg)
{
    const QString name = arg.section(QLatin1Char('='), 0, 0);
    for (const QStringList *list : {&trainyardsSbatchOptions(), &refusedSbatchOptions()}) {
        for (const QString &option : *list) {
            if (!option.startsWith(name)) {
                continue;
            }
            const QString why = list == &trainyardsSbatchOptions()
                                    ? QStringLiteral("Trainyard's to set")
                                    : QStringLiteral("not allowed (a run is one job of yours, handed over at once)");
            if (name == option) {
                return QStringLiteral("%1 is %2").arg(name, why);
            }
            return QStringLiteral("%1 is sbatch's %2 (sbatch takes the start of an option for it), which is %3")
                .arg(name, option, why);
        }
    }
    return {};
}

} // namespace

ExperimentCluster ExperimentCluster::fromJson(const QJsonObject &o, const QString &path, QStringList &errors)
{
    static const QRegularExpression name(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_][A-Za-z0-9._-]{0,99}")));
    static const QRegularExpression absolute(QRegularExpression::anchoredPattern(QStringLiteral("/[^\\x00]*")));
    // Slurm's time formats: minutes, m:s, h:m:s, d-h, d-h:m, d-h:m:s.
    static const QRegularExpression time(
        QRegularExpression::anchoredPattern(QStringLiteral("([0-9]+-)?[0-9]+(:[0-9]{1,2}){0,2}|UNLIMITED|INFINITE")));
    static const QRegularExpression word(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_.,+-]{1,200}")));

    ExperimentCluster c;
    checkKeys(o, keytables::cluster(), path, errors);
    if (!o.contains(QStringLiteral("name"))) {
        errors << expected(child(path, QStringLiteral("name")),
                           QStringLiteral("a cluster name of 1–100 letters, digits or ._-"),
                           QJsonValue(QJsonValue::Undefined));
    }
    checkString(o, QStringLiteral("name"), path, QStringLiteral("a cluster name of 1–100 letters, digits or ._-"), name,
                &c.name, errors);
    const QJsonValue reach = o.value(QStringLiteral("reach"));
    if (!reach.isUndefined() && reach != QJsonValue(QStringLiteral("local"))
        && reach != QJsonValue(QStringLiteral("ssh"))) {
        errors << expected(child(path, QStringLiteral("reach")), QStringLiteral("\"local\" or \"ssh\""), reach);
    } else if (reach.isString()) {
        c.reach = reach.toString();
    }
    const bool ssh = c.reach == QLatin1String("ssh");
    if (ssh) {
        const SshTarget target =
            SshTarget::fromJson(o, path, QStringLiteral("the host to ssh to (reach \"ssh\")"), errors);
        c.host = target.host;
        c.user = target.user;
        c.port = target.port;
        c.sshConfig = target.sshConfig;
        for (const QString &key : {QStringLiteral("runs_root"), QStringLiteral("worker")}) {
            if (!o.contains(key)) {
                errors << expected(child(path, key), QStringLiteral("an absolute path on the cluster (reach \"ssh\")"),
                                   QJsonValue(QJsonValue::Undefined));
            }
        }
    } else {
        for (const QString &key :
             {QStringLiteral("host"), QStringLiteral("user"), QStringLiteral("port"), QStringLiteral("ssh_config")}) {
            if (o.contains(key)) {
                errors << QStringLiteral("%1: only with reach \"ssh\"").arg(child(path, key));
            }
        }
    }
    checkString(o, QStringLiteral("runs_root"), path, QStringLiteral("an absolute folder path"), absolute, &c.runsRoot,
                errors);
    checkString(o, QStringLiteral("worker"), path, QStringLiteral("an absolute path to trainyard-worker"), absolute,
                &c.worker, errors);

    checkInt(o, QStringLiteral("poll_seconds"), path, 1, 3600, errors);
    c.pollSeconds = o.value(QStringLiteral("poll_seconds")).toInt(10);

    QJsonObject holder;
    if (const QJsonObject *sbatch = objectAt(o, QStringLiteral("sbatch"), path, errors, holder)) {
        const QString sp = child(path, QStringLiteral("sbatch"));
        checkKeys(*sbatch, keytables::sbatch(), sp, errors);
        checkString(*sbatch, QStringLiteral("partition"), sp, QStringLiteral("a partition name"), word, &c.partition,
                    errors);
        checkString(*sbatch, QStringLiteral("account"), sp, QStringLiteral("an account name"), word, &c.account,
                    errors);
        checkString(*sbatch, QStringLiteral("qos"), sp, QStringLiteral("a QOS name"), word, &c.qos, errors);
        checkString(*sbatch, QStringLiteral("time"), sp,
                    QStringLiteral("a Slurm time limit (\"30\", \"4:00:00\", \"2-00:00:00\")"), time, &c.time, errors);
        checkInt(*sbatch, QStringLiteral("warn_seconds"), sp, 0, 86400, errors);
        c.warnSeconds = sbatch->value(QStringLiteral("warn_seconds")).toInt(300);
        const QJsonValue extra = sbatch->value(QStringLiteral("extra_args"));
        if (!extra.isUndefined() && !extra.isArray()) {
            errors << expected(child(sp, QStringLiteral("extra_args")),
                               QStringLiteral("an array of sbatch options, one \"--name=value\" each"), extra);
        } else {
            const QJsonArray args = extra.toArray();
            for (int i = 0; i < args.size(); ++i) {
                const QString ap = child(sp, QStringLiteral("extra_args[%1]").arg(i));
                const QString arg = args.at(i).toString();
                // "--name=value" only: a word without "--" would be taken
                // for the job script, a split "-p gpu" is two of them.
                if (!args.at(i).isString() || !arg.startsWith(QStringLiteral("--")) || arg.size() < 3) {
                    errors << expected(ap, QStringLiteral("one sbatch option as \"--name=value\""), args.at(i));
                } else if (const QString problem = sbatchOptionProblem(arg); !problem.isEmpty()) {
                    errors << QStringLiteral("%1: %2").arg(ap, problem);
                } else {
                    c.extraArgs << arg;
                }
            }
        }
    }
    return c;
}

SshTarget ExperimentCluster::sshTarget() const
{
    return SshTarget{host, user, port, sshConfig};
}

QStringList ExperimentCluster::sshArguments() const
{
    return sshTarget().arguments();
}

QStringList ExperimentCluster::commandLines() const
{
    QStringList lines;
    const auto line = [this](const QString &what, const QStringList &words) {
        return QStringLiteral("(cluster %1, %2) %3").arg(shellText({name}), what, shellText(words));
    };
    if (!worker.isEmpty()) {
        lines << line(QStringLiteral("every worker job"), {worker});
    }
    if (reach == QLatin1String("ssh")) {
        lines << line(QStringLiteral("every Slurm command"), QStringList{QStringLiteral("ssh")} + sshArguments());
    }
    if (!extraArgs.isEmpty()) {
        lines << line(QStringLiteral("every job"), QStringList{QStringLiteral("sbatch")} + extraArgs);
    }
    return lines;
}

const ExperimentCluster *Experiment::cluster(const QString &name) const
{
    for (const ExperimentCluster &c : clusters) {
        if (c.name == name) {
            return &c;
        }
    }
    return nullptr;
}

QJsonObject ExperimentCluster::toJson() const
{
    QJsonObject o{{QStringLiteral("name"), name}, {QStringLiteral("reach"), reach}};
    if (reach == QLatin1String("ssh")) {
        sshTarget().insertInto(o);
    }
    if (!runsRoot.isEmpty()) {
        o.insert(QStringLiteral("runs_root"), runsRoot);
    }
    if (!worker.isEmpty()) {
        o.insert(QStringLiteral("worker"), worker);
    }
    if (pollSeconds != 10) {
        o.insert(QStringLiteral("poll_seconds"), pollSeconds);
    }
    QJsonObject sbatch;
    const QList<QPair<QString, QString>> fields{{QStringLiteral("partition"), partition},
                                                {QStringLiteral("account"), account},
                                                {QStringLiteral("qos"), qos},
                                                {QStringLiteral("time"), time}};
    for (const auto &[key, value] : fields) {
        if (!value.isEmpty()) {
            sbatch.insert(key, value);
        }
    }
    if (warnSeconds != 300) {
        sbatch.insert(QStringLiteral("warn_seconds"), warnSeconds);
    }
    if (!extraArgs.isEmpty()) {
        sbatch.insert(QStringLiteral("extra_args"), QJsonArray::fromStringList(extraArgs));
    }
    if (!sbatch.isEmpty()) {
        o.insert(QStringLiteral("sbatch"), sbatch);
    }
    return o;
}

} // namespace trainyard
