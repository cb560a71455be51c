// trainyard: the desktop app, or `trainyard run FILE.json` headless, or
// `trainyard probe-slots` (how many runs of a spec a device should hold).
//
// The headless command drives the same Session as the desktop app, with
// only QCoreApplication: it needs no display. It prints one progress line
// per run (redrawn in place on a terminal, plain event lines otherwise),
// stops every run gracefully on Ctrl-C (a second Ctrl-C kills them), and
// exits 0 only if every run finished.

#include "desktopapp.h"
#include "metricstore.h"
#include "scheduler.h"
#include "session.h"
#include "slotadvice.h"
#include "slotprobe.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSocketNotifier>
#include <QTimer>

#include <csignal>
#include <functional>
#include <memory>
#include <cstdio>
#include <sys/ioctl.h>
#include <unistd.h>

using namespace trainyard;

namespace {

const char *kUsage =
    "Usage:\n"
    "  trainyard                      open the desktop app on the built-in demo\n"
    "  trainyard FILE.json            open the desktop app on an experiment\n"
    "  trainyard run FILE.json [options]\n"
    "  trainyard run --demo [options] train every run headless (no display needed)\n"
    "  trainyard probe-slots --device DEV --spec RUN.json [--levels 1,2,4] [--steps N]\n"
    "                                 measure how many runs of RUN.json DEV should hold\n"
    "  trainyard --version | --help\n"
    "\n"
    "Options of `trainyard run`:\n"
    "  --cpu-fallback     run lanes naming a GPU this machine lacks on the CPU\n"
    "  --threads N        threads per CPU run (default: the cores shared out)\n"
    "  --retry-failed     run failed, diverged and cancelled runs again\n"
    "  --stop-timeout S   seconds a run gets to stop before SIGTERM/SIGKILL (15)\n"
    "  --stall-timeout S  seconds of silence before a run is marked stalled (30)\n"
    "\n"
    "Exit status of `trainyard run`: 0 every run finished; 1 some run did not;\n"
    "2 bad command line or experiment file.\n"
    "\n"
    "`trainyard probe-slots` trains 1, 2, 4 (--levels) copies of the run spec side by\n"
    "side on DEV (cpu or cuda:N) for N steps each (--steps, default 300; evaluation and\n"
    "checkpoints off) in a temporary folder, prints the total samples/s per level,\n"
    "recommends a slot count and remembers it for the desktop app's lane headers.\n"
    "Exit status: 0 measured; 1 a copy failed or Ctrl-C; 2 bad arguments or spec.\n";

int signalPipe[2] = {-1, -1};

void onSignal(int sig)
{
    const char c = static_cast<char>(sig);
    [[maybe_unused]] const ssize_t n = ::write(signalPipe[1], &c, 1);
}

// Runs `handler` in the event loop for every SIGINT and SIGTERM (and SIGHUP
// with `hangUp`): the signal handler only writes to a pipe, which is all
// that is async-signal-safe. Null when the pipe cannot be made.
std::unique_ptr<QSocketNotifier> handleStopSignals(QObject *context, bool hangUp, std::function<void()> handler)
{
    if (::pipe(signalPipe) != 0)
        return nullptr;
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    if (hangUp)
        sigaction(SIGHUP, &sa, nullptr);
    auto notifier = std::make_unique<QSocketNotifier>(signalPipe[0], QSocketNotifier::Read);
    QObject::connect(notifier.get(), &QSocketNotifier::activated, context, [handler = std::move(handler)] {
        char c = 0;
        [[maybe_unused]] const ssize_t n = ::read(signalPipe[0], &c, 1);
        handler();
    });
    return notifier;
}

QString duration(double seconds)
{
    if (seconds < 0 || !std::isfinite(seconds))
        return QStringLiteral("--:--");
    const qint64 s = static_cast<qint64>(seconds + 0.5);
    if (s >= 3600)
        return QStringLiteral("%1:%2:%3").arg(s / 3600).arg((s / 60) % 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

// Prints the runs' progress: a block of lines redrawn in place on a
// terminal, or plain lines at events and every tenth of a run otherwise.
class ProgressPrinter : public QObject
{
public:
    ProgressPrinter(Session *session, bool terminal)
        : m_session(session)
        , m_scheduler(session->scheduler())
        , m_terminal(terminal)
    {
        connect(m_scheduler, &Scheduler::runChanged, this, &ProgressPrinter::onRunChanged);
        connect(m_scheduler, &Scheduler::progressChanged, this, [this](const QList<RunId> &ids) {
            if (!m_terminal) {
                for (RunId id : ids)
                    plainProgress(id);
            }
        });
        connect(m_scheduler, &Scheduler::warning, this, [this](const QString &text) { message(QStringLiteral("warning: ") + text); });
        for (RunId id : m_scheduler->runIds())
            m_lastState.insert(id, m_scheduler->run(id).state);
        if (m_terminal) {
            connect(&m_timer, &QTimer::timeout, this, &ProgressPrinter::redraw);
            m_timer.start(250);
        }
    }

    void message(const QString &text)
    {
        clearBlock();
        std::fprintf(stdout, "%s\n", qPrintable(text));
        std::fflush(stdout);
        redraw();
    }

    void redraw()
    {
        if (!m_terminal)
            return;
        clearBlock();
        const int width = terminalWidth();
        const QList<RunId> ids = m_scheduler->runIds();
        for (RunId id : ids) {
            QString line = progressLine(m_scheduler->run(id));
            if (line.size() > width - 1)
                line = line.left(width - 1);
            std::fprintf(stdout, "%s\n", qPrintable(line));
        }
        const QString count = QStringLiteral("%1 of %2 finished").arg(m_scheduler->finishedCount()).arg(m_scheduler->totalCount());
        std::fprintf(stdout, "%s\n", qPrintable(count));
        m_drawn = static_cast<int>(ids.size()) + 1;
        std::fflush(stdout);
    }

    void finish()
    {
        m_timer.stop();
        redraw();
        m_drawn = 0; // leave the last picture on screen
    }

private:
    void clearBlock()
    {
        if (m_terminal && m_drawn > 0) {
            std::fprintf(stdout, "\x1b[%dA\x1b[J", m_drawn);
            m_drawn = 0;
        }
    }

    static int terminalWidth()
    {
        struct winsize ws {};
        if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
            return ws.ws_col;
        return 120;
    }

    QString progressLine(const RunInfo &run) const
    {
        int nameWidth = 12;
        for (RunId id : m_scheduler->runIds())
            nameWidth = std::max<int>(nameWidth, static_cast<int>(m_scheduler->run(id).name.size()));
        QString line = run.name.leftJustified(nameWidth + 1);
        const int barWidth = 20;
        double fraction = 0;
        if (run.state == RunState::Finished)
            fraction = 1;
        else if (run.totalSteps > 0 && run.step > 0)
            fraction = std::min(1.0, double(run.step) / double(run.totalSteps));
        const int filled = static_cast<int>(fraction * barWidth + 0.5);
        line += QLatin1Char('[') + QString(filled, QLatin1Char('#')) + QString(barWidth - filled, QLatin1Char('-'))
            + QStringLiteral("] ");
        line += QStringLiteral("%1% ").arg(static_cast<int>(fraction * 100), 3);
        line += runStateName(run.state).leftJustified(9);
        if (run.step >= 0) {
            line += QStringLiteral(" step %1").arg(run.step);
            if (run.totalSteps > 0)
                line += QLatin1Char('/') + QString::number(run.totalSteps);
        }
        if (run.stepsPerSecond > 0)
            line += QStringLiteral("  %1 it/s").arg(run.stepsPerSecond, 0, 'f', 1);
        if (!std::isnan(run.loss))
            line += QStringLiteral("  loss %1").arg(run.loss, 0, 'g', 4);
        if (isActive(run.state) && run.etaSeconds >= 0)
            line += QStringLiteral("  ETA ") + duration(run.etaSeconds);
        if (!isActive(run.state) && !run.message.isEmpty() && run.state != RunState::Finished)
            line += QStringLiteral("  ") + run.message;
        return line;
    }

    void plainProgress(RunId id)
    {
        const RunInfo run = m_scheduler->run(id);
        if (run.totalSteps <= 0 || run.step <= 0)
            return;
        const int tenth = static_cast<int>(10.0 * double(run.step) / double(run.totalSteps));
        if (tenth <= m_lastTenth.value(id, 0) || tenth >= 10)
            return;
        m_lastTenth.insert(id, tenth);
        std::fprintf(stdout, "%s\n", qPrintable(progressLine(run)));
        std::fflush(stdout);
    }

    void onRunChanged(RunId id)
    {
        const RunInfo run = m_scheduler->run(id);
        if (m_lastState.value(id, RunState::Queued) == run.state)
            return;
        m_lastState.insert(id, run.state);
        QString text;
        switch (run.state) {
        case RunState::Starting:
            text = QStringLiteral("%1: starting on %2").arg(run.name, run.device);
            break;
        case RunState::Running:
            text = QStringLiteral("%1: running (pid %2)").arg(run.name).arg(run.pid);
            break;
        case RunState::Stalled:
            text = QStringLiteral("%1: stalled: %2").arg(run.name, run.message);
            break;
        case RunState::Stopping:
            text = QStringLiteral("%1: stopping").arg(run.name);
            break;
        default:
            if (isTerminal(run.state)) {
                text = QStringLiteral("%1: %2").arg(run.name, runStateName(run.state));
                if (run.started.isValid() && run.ended.isValid())
                    text += QStringLiteral(" after ") + duration(run.started.msecsTo(run.ended) / 1000.0);
                if (!std::isnan(run.loss))
                    text += QStringLiteral(", loss %1").arg(run.loss, 0, 'g', 4);
                if (!run.message.isEmpty())
                    text += QStringLiteral(" (") + run.message + QLatin1Char(')');
            }
        }
        if (text.isEmpty())
            return;
        if (m_terminal) {
            // On a terminal the block shows states; only endings get a line.
            if (isTerminal(run.state))
                message(text);
        } else {
            std::fprintf(stdout, "%s\n", qPrintable(text));
            std::fflush(stdout);
        }
    }

    Session *m_session;
    Scheduler *m_scheduler;
    bool m_terminal;
    int m_drawn = 0;
    QTimer m_timer;
    QHash<RunId, RunState> m_lastState;
    QHash<RunId, int> m_lastTenth;
};

int fail(const QString &text)
{
    std::fprintf(stderr, "trainyard: %s\n", qPrintable(text));
    return 2;
}

int runHeadless(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("trainyard"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TRAINYARD_VERSION));

    QString file;
    bool demo = false, cpuFallback = false, retryFailed = false;
    int threads = 0, stopTimeout = 15, stallTimeout = 30;
    const QStringList args = app.arguments().mid(2);
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args.at(i);
        auto number = [&](int *out, int min) {
            bool ok = false;
            const int v = i + 1 < args.size() ? args.at(i + 1).toInt(&ok) : 0;
            if (!ok || v < min)
                return false;
            *out = v;
            ++i;
            return true;
        };
        if (a == QLatin1String("--demo"))
            demo = true;
        else if (a == QLatin1String("--cpu-fallback"))
            cpuFallback = true;
        else if (a == QLatin1String("--retry-failed"))
            retryFailed = true;
        else if (a == QLatin1String("--threads")) {
            if (!number(&threads, 1))
                return fail(QStringLiteral("--threads: expected an integer ≥ 1"));
        } else if (a == QLatin1String("--stop-timeout")) {
            if (!number(&stopTimeout, 1))
                return fail(QStringLiteral("--stop-timeout: expected seconds ≥ 1"));
        } else if (a == QLatin1String("--stall-timeout")) {
            if (!number(&stallTimeout, 1))
                return fail(QStringLiteral("--stall-timeout: expected seconds ≥ 1"));
        } else if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (a.startsWith(QLatin1Char('-')))
            return fail(QStringLiteral("unknown option %1 (see trainyard --help)").arg(a));
        else if (file.isEmpty())
            file = a;
        else
            return fail(QStringLiteral("more than one experiment file given"));
    }
    if (demo == !file.isEmpty())
        return fail(QStringLiteral("`trainyard run` needs an experiment file or --demo (see trainyard --help)"));

    Session session;
    QStringList errors;
    const bool loaded = demo ? session.loadDemo(&errors) : session.load(file, &errors);
    if (!loaded) {
        for (const QString &e : std::as_const(errors))
            std::fprintf(stderr, "trainyard: %s\n", qPrintable(e));
        return 2;
    }
    Scheduler *scheduler = session.scheduler();
    scheduler->setCpuFallback(cpuFallback);
    scheduler->setCpuThreads(threads);
    scheduler->setStopTimeout(stopTimeout * 1000);
    scheduler->setStallTimeout(stallTimeout * 1000);
    if (scheduler->workerProgram().isEmpty())
        return fail(QStringLiteral("trainyard-worker not found (set TRAINYARD_WORKER or install it beside trainyard)"));

    const QStringList problems = scheduler->preflight();
    for (const QString &p : problems)
        std::fprintf(stderr, "trainyard: %s\n", qPrintable(p));
    if (!scheduler->missingDeviceLanes().isEmpty() && !cpuFallback)
        return fail(QStringLiteral("rerun with --cpu-fallback to train those lanes on the CPU"));

    if (retryFailed) {
        for (RunId id : scheduler->runIds()) {
            const RunState s = scheduler->run(id).state;
            if (s == RunState::Failed || s == RunState::Diverged || s == RunState::Cancelled)
                scheduler->retryRun(id);
        }
    }

    const bool terminal = ::isatty(STDOUT_FILENO) != 0;
    ProgressPrinter printer(&session, terminal);
    std::fprintf(stdout, "%s: %d runs in %lld lanes, runs in %s\n", qPrintable(session.name()),
                 scheduler->totalCount(), static_cast<long long>(scheduler->laneCount()), qPrintable(session.runsRoot()));
    std::fflush(stdout);

    int interrupts = 0;
    const auto stopSignals = handleStopSignals(&app, /*hangUp=*/true, [&] {
        ++interrupts;
        if (interrupts == 1) {
            printer.message(QStringLiteral("stopping every run gracefully (Ctrl-C again to kill them)"));
            session.close(false); // stop, SIGTERM, SIGKILL; Session::closed when every run has ended
        } else {
            printer.message(QStringLiteral("killing every run"));
            scheduler->killAll();
        }
    });
    if (!stopSignals)
        return fail(QStringLiteral("cannot create a pipe"));
    QObject::connect(scheduler, &Scheduler::idle, &app, &QCoreApplication::quit);
    QObject::connect(&session, &Session::closed, &app, &QCoreApplication::quit);

    QTimer::singleShot(0, scheduler, [scheduler] { scheduler->startAll(); });
    app.exec();

    printer.finish();
    const int finished = scheduler->finishedCount();
    const int total = scheduler->totalCount();
    if (!terminal) // on a terminal the redrawn block ends with it already
        std::fprintf(stdout, "%d of %d finished\n", finished, total);
    for (RunId id : scheduler->runIds()) {
        const RunInfo run = scheduler->run(id);
        if (run.state != RunState::Finished)
            std::fprintf(stdout, "  %s: %s%s\n", qPrintable(run.name), qPrintable(runStateName(run.state)),
                         run.message.isEmpty() ? "" : qPrintable(QStringLiteral(" (") + run.message + QLatin1Char(')')));
    }
    std::fflush(stdout);
    session.close(false); // nothing runs any more: closes at once
    return finished == total ? 0 : 1;
}

int runProbeSlots(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("trainyard"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TRAINYARD_VERSION));

    QString device, specPath;
    QList<int> levels = SlotProbe::defaultLevels();
    int steps = SlotProbe::kDefaultSteps;
    const QStringList args = app.arguments().mid(2);
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args.at(i);
        const bool hasValue = i + 1 < args.size();
        if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (a == QLatin1String("--device") && hasValue) {
            device = args.at(++i);
        } else if (a == QLatin1String("--spec") && hasValue) {
            specPath = args.at(++i);
        } else if (a == QLatin1String("--levels") && hasValue) {
            levels.clear();
            const QStringList parts = args.at(++i).split(QLatin1Char(','));
            for (const QString &part : parts) {
                bool ok = false;
                const int k = part.trimmed().toInt(&ok);
                if (!ok)
                    return fail(QStringLiteral("--levels: \"%1\" is not an integer (expected e.g. 1,2,4)").arg(part));
                levels.append(k);
            }
        } else if (a == QLatin1String("--steps") && hasValue) {
            bool ok = false;
            steps = args.at(++i).toInt(&ok);
            if (!ok || steps < 10)
                return fail(QStringLiteral("--steps: expected an integer ≥ 10, got \"%1\"").arg(args.at(i)));
        } else if (a.startsWith(QLatin1Char('-'))) {
            return fail(QStringLiteral("probe-slots: unknown option or missing value: %1 (see trainyard --help)").arg(a));
        } else {
            return fail(QStringLiteral("probe-slots: unexpected argument %1 (see trainyard --help)").arg(a));
        }
    }
    if (device.isEmpty() || specPath.isEmpty())
        return fail(QStringLiteral("probe-slots needs --device DEV and --spec RUN.json (see trainyard --help)"));
    QFile file(specPath);
    if (!file.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("%1: %2").arg(specPath, file.errorString()));
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return fail(QStringLiteral("%1: not JSON at offset %2: %3").arg(specPath).arg(parseError.offset).arg(parseError.errorString()));
    if (!doc.isObject())
        return fail(QStringLiteral("%1: expected a run spec (a JSON object)").arg(specPath));

    SlotProbe probe;
    QString error;
    if (!probe.start(device, doc.object(), levels, steps, &error))
        return fail(QStringLiteral("probe-slots: ") + error);
    const QString model = doc.object().value(QStringLiteral("model")).toObject().value(QStringLiteral("type")).toString();
    std::fprintf(stdout, "probing %s on %s: %s copies side by side, %d steps each\n", qPrintable(model), qPrintable(device),
                 qPrintable([&] {
                     QStringList l;
                     for (int k : std::as_const(levels))
                         l << QString::number(k);
                     return l.join(QLatin1Char(','));
                 }()),
                 steps);
    std::fflush(stdout);

    const auto stopSignals = handleStopSignals(&app, /*hangUp=*/false, [&] { probe.cancel(); });
    if (!stopSignals)
        return fail(QStringLiteral("cannot create a pipe"));

    int status = 1;
    int lastLevel = 0;
    QObject::connect(&probe, &SlotProbe::progress, &app, [&](int level, int count, int percent) {
        if (level != lastLevel && percent < 100) {
            lastLevel = level;
            std::fprintf(stdout, "level %d of %d: %d cop%s (%d%% of the probe done)\n", level, count, levels.at(level - 1),
                         levels.at(level - 1) == 1 ? "y" : "ies", percent);
            std::fflush(stdout);
        }
    });
    QObject::connect(&probe, &SlotProbe::failed, &app, [&](const QString &message) {
        std::fprintf(stderr, "trainyard: probe failed: %s\n", qPrintable(message));
        app.quit();
    });
    QObject::connect(&probe, &SlotProbe::cancelled, &app, [&] {
        std::fprintf(stderr, "trainyard: probe cancelled, every copy stopped\n");
        app.quit();
    });
    QObject::connect(&probe, &SlotProbe::finished, &app, [&](const SlotProbeResult &result) {
        std::fprintf(stdout, "\n%8s %14s %10s\n", "copies", "samples/s", "vs 1 copy");
        for (const SlotProbeLevel &l : result.levels)
            std::fprintf(stdout, "%8d %14.1f %9.2fx\n", l.copies, l.samplesPerSecond, l.ratio);
        const QString where = result.deviceName == result.device
            ? result.device
            : QStringLiteral("%1 (%2)").arg(result.device, result.deviceName);
        std::fprintf(stdout, "recommended slots for %s on %s: %d\n", qPrintable(result.model), qPrintable(where),
                     result.recommended);
        SlotAdvice advice;
        QString storeError;
        if (advice.record(result, &storeError))
            std::fprintf(stdout, "remembered in %s\n", qPrintable(advice.path()));
        else
            std::fprintf(stderr, "trainyard: warning: not remembered: %s\n", qPrintable(storeError));
        std::fflush(stdout);
        status = 0;
        app.quit();
    });
    app.exec();
    return status;
}

} // namespace

int main(int argc, char **argv)
{
    const QString first = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QString();
    if (first == QLatin1String("run"))
        return runHeadless(argc, argv);
    if (first == QLatin1String("probe-slots"))
        return runProbeSlots(argc, argv);
    if (first == QLatin1String("--version") || first == QLatin1String("-v")) {
        std::printf("trainyard %s\n", TRAINYARD_VERSION);
        return 0;
    }
    if (first == QLatin1String("--help") || first == QLatin1String("-h")) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    if (first.startsWith(QLatin1Char('-'))) {
        std::fprintf(stderr, "trainyard: unknown option %s\n%s", argv[1], kUsage);
        return 2;
    }
    if (argc > 2) {
        std::fprintf(stderr, "trainyard: expected at most one experiment file\n%s", kUsage);
        return 2;
    }
    return runDesktopApp(argc, argv, first);
}
