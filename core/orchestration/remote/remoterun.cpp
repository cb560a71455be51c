#include "remote/remoterun.h"

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

bool RemoteRun::mirrorReport(const QString &host, const remotescripts::RunReport &report, QString *warning)
{
    QString error;
    if (!mirror.apply(RemoteMirror::File::Metrics, report.metricsSize, report.metrics, &error)
        || !mirror.apply(RemoteMirror::File::Log, report.logSize, report.log, &error))
        *warning = QStringLiteral("the mirror could not be written: %1").arg(error);
    if (report.checkpointsListed && !mirror.writeCheckpoints(host, spec.runDir, report.checkpoints, &error))
        *warning = error;
    // A link or a FIFO in a run folder there is not read: said once.
    const QString refusedNow = report.metricsSize == -2 ? QStringLiteral("metrics.jsonl")
                               : report.logSize == -2   ? QStringLiteral("worker.log")
                                                        : QString();
    if (!refusedNow.isEmpty() && refusedNow != refused)
        *warning = QStringLiteral("host %1: %2/%3 is not a regular file (a link or a FIFO); Trainyard does not follow "
                                  "links in run folders: not read")
                       .arg(host, spec.runDir, refusedNow);
    refused = refusedNow;
    return report.metricsSize > mirror.offset(RemoteMirror::File::Metrics)
           || report.logSize > mirror.offset(RemoteMirror::File::Log);
}

} // namespace trainyard
