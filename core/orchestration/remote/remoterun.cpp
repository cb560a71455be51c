#include "orchestration/remote/remoterun.h"

namespace trainyard {

remotescripts::PollRun RemoteRun::pollRun(bool listCheckpoints) const
{
    return remotescripts::PollRun{spec.runDir,
                                  pid,
                                  ticks,
                                  wrapper,
                                  mirror.offset(RemoteMirror::File::Metrics),
                                  mirror.offset(RemoteMirror::File::Log),
                                  listCheckpoints};
}

remotescripts::Command RemoteRun::verifyCommand(const QString &signal) const
{
    // A program run is known by its TRAINYARD_RUN_DIR (it may exec another
    // program), a worker by its executable and --run-dir.
    return remotescripts::verify(pid, ticks, spec.runDir, spec.isProgram() ? QString() : spec.program, signal);
}

bool RemoteRun::takeProvedWrapper(const QString &answer)
{
    const QStringList words = answer.split(QLatin1Char(' '));
    const qint64 proved = words.size() == 2 && words.first() == QLatin1String("ours") ? words.at(1).toLongLong() : 0;
    const bool same = proved == wrapper;
    wrapper = proved;
    return same;
}

bool RemoteRun::mirrorReport(const QString &host, const remotescripts::RunReport &report, QString *warning)
{
    QString error;
    bool behind = false;
    bool notRegular = false;
    const auto apply = [&](RemoteMirror::File file, qint64 size, const QByteArray &bytes, bool torn) {
        if (size == -2) { // a link or a FIFO there: never read, never taken for the run's file
            notRegular = true;
            if (!(warned & (1 << int(file)))) {
                *warning = QStringLiteral("%1/%2 on host %3 is a link or not a regular file; it is not read")
                               .arg(spec.runDir, RemoteMirror::fileName(file), host);
            }
            warned |= 1 << int(file);
            return true;
        }
        // Read short: the bytes read are the file's, its size is not known
        // (the next poll asks again).
        const qint64 known = torn ? mirror.offset(file) + bytes.size() : size;
        if (!mirror.apply(file, known, bytes, &error)) {
            return false;
        }
        behind = behind || (!torn && size > mirror.offset(file));
        return true;
    };
    if (!apply(RemoteMirror::File::Metrics, report.metricsSize, report.metrics, report.metricsTorn)
        || !apply(RemoteMirror::File::Log, report.logSize, report.log, report.logTorn)) {
        *warning = QStringLiteral("the mirror could not be written: %1").arg(error);
    }
    if (!notRegular) {
        warned = 0;
    }
    if (report.checkpointsListed && !mirror.writeCheckpoints(host, spec.runDir, report.checkpoints, &error)) {
        *warning = error;
    }
    return behind;
}

} // namespace trainyard
