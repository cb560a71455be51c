#include "orchestration/slurm/slurmjob.h"

#include "orchestration/process/processrunner.h"

#include <QRegularExpression>
#include <QSet>

namespace trainyard {

SlurmJob::Phase SlurmJob::phaseOf(const QString &state)
{
    // Slurm's job states (squeue(1) "JOB STATE CODES"). CONFIGURING: nodes
    // are allocated but booting, the worker does not run yet. COMPLETING:
    // the batch script may have ended, but its exit code is final only once
    // the job leaves COMPLETING. A requeued job is pending again.
    static const QSet<QString> pending{
        QStringLiteral("PENDING"),     QStringLiteral("CONFIGURING"),  QStringLiteral("REQUEUED"),
        QStringLiteral("REQUEUE_FED"), QStringLiteral("REQUEUE_HOLD"), QStringLiteral("RESV_DEL_HOLD"),
        QStringLiteral("RESIZING"),
    };
    static const QSet<QString> running{
        QStringLiteral("RUNNING"), QStringLiteral("COMPLETING"), QStringLiteral("SUSPENDED"),
        QStringLiteral("STOPPED"), QStringLiteral("SIGNALING"),  QStringLiteral("STAGE_OUT"),
    };
    const QString s = state.section(QLatin1Char(' '), 0, 0).toUpper(); // "CANCELLED by 0"
    if (pending.contains(s)) {
        return Phase::Pending;
    }
    if (running.contains(s)) {
        return Phase::Running;
    }
    return Phase::Ended;
}

QHash<QString, SlurmJob> SlurmJob::parseSqueue(const QByteArray &out)
{
    QHash<QString, SlurmJob> jobs;
    const QList<QByteArray> lines = out.split('\n');
    for (const QByteArray &raw : lines) {
        const QStringList f = QString::fromUtf8(raw).trimmed().split(QLatin1Char('|'));
        if (f.size() < 3 || f.at(0).isEmpty() || f.at(1).isEmpty()) {
            continue;
        }
        SlurmJob job;
        job.id = f.at(0);
        job.state = f.at(1);
        job.reason = f.at(2) == QLatin1String("None") ? QString() : f.at(2);
        job.nodes = f.value(3);
        jobs.insert(job.id, job);
    }
    return jobs;
}

SlurmJob SlurmJob::parseScontrol(const QByteArray &out)
{
    SlurmJob job;
    // One line of space-separated Key=Value fields. A key is a word (with
    // ':' and '/': "AllocNode:Sid", "CPUs/Task") right after a space; its
    // value runs to the next key, so values with spaces (WorkDir=, Command=)
    // stay whole.
    static const QRegularExpression keyAt(QStringLiteral("(?:^|\\s)([A-Za-z][A-Za-z0-9_:/]*)="));
    const QString line = QString::fromUtf8(out).section(QLatin1Char('\n'), 0, 0);
    QList<std::pair<QString, QString>> fields;
    QRegularExpressionMatchIterator it = keyAt.globalMatch(line);
    qsizetype valueStart = -1;
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        if (!fields.isEmpty()) {
            fields.last().second = line.mid(valueStart, m.capturedStart() - valueStart);
        }
        fields.append({m.captured(1), QString()});
        valueStart = m.capturedEnd();
    }
    if (!fields.isEmpty()) {
        fields.last().second = line.mid(valueStart).trimmed();
    }
    QSet<QString> seen;
    for (const auto &[key, value] : std::as_const(fields)) {
        const bool again = seen.contains(key);
        seen.insert(key);
        if (key == QLatin1String("JobId")) {
            job.ambiguous |= again;
            if (!again) {
                job.id = value;
            }
        } else if (key == QLatin1String("JobState")) {
            job.state = value;
        } else if (key == QLatin1String("Reason")) {
            job.reason = value == QLatin1String("None") ? QString() : value;
        } else if (key == QLatin1String("NodeList")) {
            job.nodes = value == QLatin1String("(null)") ? QString() : value;
        } else if (key == QLatin1String("JobName")) {
            job.ambiguous |= again;
            job.name = value;
        } else if (key == QLatin1String("WorkDir")) {
            job.ambiguous |= again;
            job.workDir = value;
        } else if (key == QLatin1String("UserId")) {
            job.ambiguous |= again;
            // "alice(1000)"
            const qsizetype open = value.lastIndexOf(QLatin1Char('('));
            bool ok = false;
            const qint64 uid = open > 0 && value.endsWith(QLatin1Char(')'))
                                   ? value.mid(open + 1, value.size() - open - 2).toLongLong(&ok)
                                   : -1;
            job.uid = ok ? uid : -1;
            job.userName = open > 0 ? value.left(open) : value;
        } else if (key == QLatin1String("ExitCode")) {
            bool codeOk = false, signalOk = false;
            const int code = value.section(QLatin1Char(':'), 0, 0).toInt(&codeOk);
            const int signal = value.section(QLatin1Char(':'), 1, 1).toInt(&signalOk);
            if (codeOk && signalOk) {
                job.exitCode = code;
                job.signal = signal;
            }
        }
    }
    if (job.state.isEmpty()) {
        job.id.clear();
    }
    return job;
}

QString SlurmJob::parseSubmitted(const QByteArray &out)
{
    const QString line = QString::fromUtf8(out).trimmed().section(QLatin1Char('\n'), 0, 0).trimmed();
    const QString id = line.section(QLatin1Char(';'), 0, 0);
    return isJobId(id) ? id : QString();
}

bool SlurmJob::isJobId(const QString &id)
{
    if (id.isEmpty() || id.size() > 20) {
        return false;
    }
    for (const QChar c : id) {
        if (c < QLatin1Char('0') || c > QLatin1Char('9')) {
            return false;
        }
    }
    return true;
}

QStringList SlurmJob::showArguments(const QString &id)
{
    return {QStringLiteral("show"), QStringLiteral("job"), QStringLiteral("-o"), QStringLiteral("--"), id};
}

QString SlurmJob::shellQuote(const QString &word)
{
    return ProcessRunner::shellQuote(word);
}

QByteArray SlurmJob::script(const QString &program, const QStringList &args,
                            const QList<std::pair<QString, QString>> &exports)
{
    QString line;
    for (const auto &[key, value] : exports) {
        line += QStringLiteral("export %1=%2\n").arg(key, shellQuote(value));
    }
    line += QStringLiteral("exec ") + shellQuote(program);
    for (const QString &arg : args) {
        line += QLatin1Char(' ') + shellQuote(arg);
    }
    // USR2 (the time-limit warning) is ignored until the worker installs its
    // own handler: one that comes before the exec must not end the job.
    return QByteArrayLiteral("#!/bin/sh\n# Written by trainyard: the run's command, nothing else.\ntrap '' USR2\n")
           + line.toUtf8() + '\n';
}

} // namespace trainyard
