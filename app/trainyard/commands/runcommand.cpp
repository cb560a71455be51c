// `trainyard run`: drives the same Session as the desktop app, with only
// QCoreApplication. It prints one progress line per run (redrawn in place on
// a terminal, plain event lines otherwise), stops every run gracefully on
// Ctrl-C (a second Ctrl-C kills them), and exits 0 only if every run
// finished.

#include "commands/runcommand.h"

#include "commandline.h"
#include "commands/desktopnotifier.h"
#include "commands/progressprinter.h"
#include "commands/stopsignals.h"
#include "commands/workercatalogue.h"
#include "orchestration/board/board.h"
#include "orchestration/dispatch/cpuonlyworker.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/trustlist.h"
#include "orchestration/launch/workerprocess.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/onendcommands.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "orchestration/sweep/sweeprunner.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QHash>
#include <QTimer>

#include <cstdio>
#include <unistd.h>

namespace trainyard {

int runCommand(const QStringList &args)
{
    CommandLine commandLine(
        QStringLiteral("run"),
        {QStringLiteral("trainyard run FILE.json [options]"), QStringLiteral("trainyard run --demo [options]")},
        QStringLiteral("Trains every run of the experiment headless (no display needed), after\n"
                       "checking every run spec against the worker's catalogue (--list-models)."));
    const QCommandLineOption demoOption(QStringLiteral("demo"), QStringLiteral("train the built-in demo experiment"));
    const QCommandLineOption cpuFallbackOption(QStringLiteral("cpu-fallback"),
                                               QStringLiteral("run lanes naming a GPU this machine lacks on the CPU"));
    const QCommandLineOption threadsOption(QStringLiteral("threads"),
                                           QStringLiteral("threads per CPU run (default: the cores shared out)"),
                                           QStringLiteral("N"));
    const QCommandLineOption retryFailedOption(
        QStringLiteral("retry-failed"),
        QStringLiteral("run failed, diverged and cancelled runs again: from their last checkpoint where they have "
                       "one, else as a new attempt (the old run folder is kept as NAME.attempt-N)"));
    const QCommandLineOption stopTimeoutOption(QStringLiteral("stop-timeout"),
                                               QStringLiteral("seconds a run gets to stop before SIGTERM/SIGKILL (15)"),
                                               QStringLiteral("S"));
    const QCommandLineOption stallTimeoutOption(
        QStringLiteral("stall-timeout"), QStringLiteral("seconds of silence before a run is marked stalled (30)"),
        QStringLiteral("S"));
    const QCommandLineOption leaveQueuedOption(
        QStringLiteral("leave-queued"),
        QStringLiteral("on Ctrl-C, leave every run going (cluster jobs stay queued or running); running this "
                       "command on the file again reattaches to them"));
    const QCommandLineOption trustOption(
        QStringLiteral("trust"),
        QStringLiteral("run the file's program runs (their commands) even though this version of the file is not in "
                       "your trust list"));
    const QCommandLineOption notifyOption(
        QStringLiteral("notify"),
        QStringLiteral(
            "send a desktop notification when a run finishes, fails, diverges or is lost and when every run has "
            "ended (the app's notices, over the D-Bus session bus)"));
    for (const QCommandLineOption &option :
         {demoOption, cpuFallbackOption, threadsOption, retryFailedOption, stopTimeoutOption, stallTimeoutOption,
          leaveQueuedOption, trustOption, notifyOption}) {
        commandLine.addOption(option);
    }
    commandLine.addPositionalArgument(QStringLiteral("file"), QStringLiteral("the experiment file"),
                                      QStringLiteral("FILE.json"));
    commandLine.setNotes(QStringLiteral("Exit status: 0 every run finished; 1 some run did not; 2 bad command line "
                                        "or experiment file."));
    if (const auto exit = commandLine.parse(args)) {
        return *exit;
    }
    const QCommandLineParser &options = commandLine.parser();

    const bool demo = options.isSet(demoOption);
    const bool cpuFallback = options.isSet(cpuFallbackOption);
    const bool retryFailed = options.isSet(retryFailedOption);
    const bool leaveQueued = options.isSet(leaveQueuedOption);
    const auto threads = commandLine.intValue(threadsOption, 1, 0);
    if (!threads) {
        return usageError(QStringLiteral("--threads: expected an integer ≥ 1"));
    }
    const auto stopTimeout = commandLine.intValue(stopTimeoutOption, 1, 15);
    if (!stopTimeout) {
        return usageError(QStringLiteral("--stop-timeout: expected seconds ≥ 1"));
    }
    const auto stallTimeout = commandLine.intValue(stallTimeoutOption, 1, 30);
    if (!stallTimeout) {
        return usageError(QStringLiteral("--stall-timeout: expected seconds ≥ 1"));
    }
    const QStringList files = options.positionalArguments();
    if (files.size() > 1) {
        return usageError(QStringLiteral("more than one experiment file given"));
    }
    const QString file = files.value(0);
    if (demo == !file.isEmpty()) {
        return usageError(QStringLiteral("`trainyard run` needs an experiment file or --demo (see trainyard --help)"));
    }

    // Every run spec is checked against the worker's catalogue before
    // anything starts (Session::load would check structurally only).
    const std::optional<ModelCatalogue> catalogue = workerCatalogue(WorkerProcess::findWorkerProgram());
    QStringList errors;
    const auto experiment = demo ? Experiment::loadDemo(&errors, catalogue ? &*catalogue : nullptr)
                                 : Experiment::load(file, &errors, catalogue ? &*catalogue : nullptr);
    // A file from elsewhere never runs a command by surprise (TrustList).
    // --trust is the user's answer, remembered as the app's is: the next
    // run of this version needs no flag.
    if (experiment) {
        TrustList trust;
        const QString refusal = trust.refusal(*experiment);
        if (!refusal.isEmpty() && !options.isSet(trustOption)) {
            printError(refusal);
            printError(QStringLiteral("nothing was started; if you wrote this file or checked every command above, "
                                      "rerun with --trust or run `trainyard trust %1` (or open it in the app once "
                                      "and allow it)")
                           .arg(file));
            return kExitBadUsage;
        }
        if (!refusal.isEmpty()) {
            QString error;
            if (trust.trust(*experiment, &error)) {
                printError(QStringLiteral("note: %1 (this version) is trusted from now on; `trainyard trust --revoke "
                                          "%1` forgets it")
                               .arg(file));
            } else {
                printWarning(error + QStringLiteral(" (--trust applies to this run only)"));
            }
        }
    }
    Session session;
    QStringList opened; // open's refusal, or its warnings (a refused state file, lost runs)
    if (!experiment || !session.open(*experiment, demo ? QString() : QFileInfo(file).absoluteFilePath(), &opened)) {
        const QStringList problems = errors + opened;
        for (const QString &e : problems) {
            printError(e);
        }
        return kExitBadUsage;
    }
    for (const QString &w : std::as_const(opened)) {
        printWarning(w);
    }
    Orchestrator *orchestrator = session.orchestrator();
    orchestrator->laneDevices()->setCpuFallback(cpuFallback);
    orchestrator->laneDevices()->setCpuThreads(*threads);
    orchestrator->supervisor()->setStopTimeout(*stopTimeout * 1000);
    orchestrator->supervisor()->setStallTimeout(*stallTimeout * 1000);
    if (orchestrator->supervisor()->workerProgram().isEmpty() && experiment->hasWorkerRuns()) {
        return usageError(
            QStringLiteral("trainyard-worker not found (set TRAINYARD_WORKER or install it beside trainyard)"));
    }

    const QStringList problems = orchestrator->laneDevices()->preflight();
    for (const QString &p : problems) {
        printError(p);
    }
    if (!orchestrator->laneDevices()->missingDeviceLanes().isEmpty() && !cpuFallback) {
        return usageError(QStringLiteral("rerun with --cpu-fallback to train those lanes on the CPU"));
    }
    // Each of their runs would fail at its start: stop before the first.
    if (!cpuFallback
        && !cpuonlyworker::lanes(*orchestrator->laneDevices(), *orchestrator->board(), *orchestrator->runs(),
                                 catalogue ? &*catalogue : nullptr)
                .isEmpty()) {
        return usageError(QStringLiteral("trainyard-worker was built without CUDA (%1): rebuild it against a CUDA "
                                         "LibTorch (see docs/gpu.md) or rerun with --cpu-fallback")
                              .arg(catalogue->libTorch().text()));
    }

    if (retryFailed) {
        for (RunId id : orchestrator->board()->runIds()) {
            const RunState s = orchestrator->runs()->value(id).state;
            if (s == RunState::Failed || s == RunState::Diverged || s == RunState::Cancelled) {
                // Resumes from a checkpoint, else a new attempt: nothing is cleared.
                orchestrator->runActions()->retryRun(id);
            }
        }
    }

    QCoreApplication *app = QCoreApplication::instance();
    const bool terminal = ::isatty(STDOUT_FILENO) != 0;
    ProgressPrinter printer(&session, terminal);
    std::fprintf(stdout, "%s: %d runs in %lld lanes, runs in %s\n", qPrintable(session.name()),
                 orchestrator->dispatcher()->totalCount(), static_cast<long long>(orchestrator->board()->laneCount()),
                 qPrintable(session.runsRoot()));
    std::fflush(stdout);

    int interrupts = 0;
    const auto stopSignals = handleStopSignals(app, /*hangUp=*/true, [&] {
        ++interrupts;
        if (interrupts == 1 && leaveQueued) {
            printer.message(QStringLiteral("leaving every run going (--leave-queued); run this command again to "
                                           "reattach"));
            session.close(true);
        } else if (interrupts == 1) {
            printer.message(QStringLiteral("stopping every run gracefully (Ctrl-C again to kill them)"));
            session.close(false); // stop, SIGTERM, SIGKILL; Session::closed when every run has ended
        } else {
            printer.message(QStringLiteral("killing every run"));
            orchestrator->dispatcher()->killAll();
        }
    });
    if (!stopSignals) {
        return usageError(QStringLiteral("cannot create a pipe"));
    }
    QObject::connect(orchestrator->supervisor(), &Supervisor::attemptArchived, app,
                     [&printer, orchestrator](RunId id, const QString &dir) {
                         printer.message(QStringLiteral("%1: a new attempt; the earlier one is kept in %2")
                                             .arg(orchestrator->runs()->value(id).name, dir));
                     });
    // One line per sweep whenever it changes.
    QHash<QString, QString> sweepLines;
    SweepRunner *sweeps = orchestrator->sweeps();
    QObject::connect(sweeps, &SweepRunner::trialsChanged, app, [&](const QString &sweep) {
        const QString line = sweeps->progressLine(sweep);
        if (line != sweepLines.value(sweep)) {
            sweepLines.insert(sweep, line);
            printer.message(sweep + QStringLiteral(": ") + line);
        }
    });
    // Before the quit below: the last notice is sent before the loop ends.
    DesktopNotifier notifier;
    if (options.isSet(notifyOption)) {
        if (const QString why = notifier.unavailable(); !why.isEmpty()) {
            printWarning(QStringLiteral("--notify: %1; no desktop notification will be sent, the runs go on").arg(why));
        } else {
            notifier.follow(&session);
        }
    }
    // The file's on_end commands: what goes wrong with one is said, never fatal.
    OnEndCommands *onEnd = orchestrator->onEnd();
    QObject::connect(onEnd, &OnEndCommands::problem, app,
                     [&printer](const QString &problem) { printer.message(QStringLiteral("warning: ") + problem); });
    QObject::connect(orchestrator->dispatcher(), &Dispatcher::idle, app, &QCoreApplication::quit);
    QObject::connect(&session, &Session::closed, app, &QCoreApplication::quit);

    // What ran before this command: a rerun that starts nothing says so,
    // rather than print the old outcomes as if they were new.
    const bool activeAtStart = orchestrator->dispatcher()->activeCount() > 0;
    QHash<RunId, QDateTime> startedBefore;
    for (RunId id : orchestrator->board()->runIds()) {
        startedBefore.insert(id, orchestrator->runs()->value(id).started);
    }

    QTimer::singleShot(0, orchestrator, [orchestrator] { orchestrator->dispatcher()->startAll(); });
    app->exec();
    if (const int running = onEnd->runningCount(); running > 0) {
        printer.message(QStringLiteral("waiting for %1 on_end command(s) to end (each at most %2 s)")
                            .arg(running)
                            .arg(OnEndCommands::kDefaultTimeoutMs / 1000));
        onEnd->finish();
    }
    notifier.flush();

    printer.finish();
    int finished = orchestrator->dispatcher()->finishedCount();
    const int total = orchestrator->dispatcher()->totalCount();
    // A trial its sweep paused or stopped has ended as the search meant.
    int endedBySweep = 0;
    for (const SweepSpec &sweep : sweeps->sweeps()) {
        for (const TrialInfo &t : sweeps->trials(sweep.name)) {
            endedBySweep += t.phase == TrialInfo::Phase::Paused || t.phase == TrialInfo::Phase::Stopped ? 1 : 0;
        }
    }
    bool startedNow = activeAtStart;
    int retryable = 0; // what --retry-failed would start again
    for (RunId id : orchestrator->board()->runIds()) {
        const RunInfo run = orchestrator->runs()->value(id);
        const auto before = startedBefore.constFind(id);
        startedNow =
            startedNow || (run.started.isValid() && (before == startedBefore.constEnd() || *before != run.started));
        retryable +=
            run.state == RunState::Failed || run.state == RunState::Diverged || run.state == RunState::Cancelled ? 1
                                                                                                                 : 0;
    }
    if (!startedNow && total > 0) {
        const QString what = finished == total
                                 ? QStringLiteral("every run of %1 had finished already").arg(session.name())
                                 : QStringLiteral("every run of %1 had ended already; what follows is "
                                                  "from before")
                                       .arg(session.name());
        const QString retry =
            retryable > 0 && !retryFailed
                ? QStringLiteral("; `trainyard run --retry-failed %1` retries the %2 that failed, diverged or "
                                 "were cancelled (from a checkpoint where there is one; an old "
                                 "folder is kept)")
                      .arg(file.isEmpty() ? QStringLiteral("--demo") : file)
                      .arg(retryable)
                : QString();
        std::fprintf(stdout, "nothing was started: %s (results in %s)%s\n", qPrintable(what),
                     qPrintable(session.runsRoot()), qPrintable(retry));
    }
    if (!terminal) { // on a terminal the redrawn block ends with it already
        std::fprintf(stdout, "%d of %d finished\n", finished, total);
    }
    for (RunId id : orchestrator->board()->runIds()) {
        const RunInfo run = orchestrator->runs()->value(id);
        if (run.state != RunState::Finished) {
            const QString why =
                run.message.isEmpty() ? QString() : QStringLiteral(" (") + run.message + QLatin1Char(')');
            std::fprintf(stdout, "  %s: %s%s\n", qPrintable(run.name), qPrintable(runStateName(run.state)),
                         qPrintable(why));
        }
    }
    bool sweepsDone = true; // a paused sweep, or trials a missing lane never got, are not
    for (const SweepSpec &sweep : sweeps->sweeps()) {
        sweepsDone = sweepsDone && sweeps->isDone(sweep.name);
        std::fprintf(stdout, "%s: %s%s\n", qPrintable(sweep.name), qPrintable(sweeps->progressLine(sweep.name)),
                     sweeps->isDone(sweep.name) ? "" : " (not done)");
    }
    std::fflush(stdout);
    session.close(false); // nothing runs any more: closes at once
    finished += endedBySweep;
    return finished == total && sweepsDone ? kExitSuccess : kExitIncomplete;
}

} // namespace trainyard
