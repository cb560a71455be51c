// bench_pastruns: the desktop app with a year of work on disk, offscreen.
// Generates RUNS past run folders (default 10,000) in one runs root under
// the app's data folder, as the worker and the orchestrator write them:
// spec.json and status.json through RunStore, metrics.jsonl through the
// protocol's encoder (a hello, LINES metric lines with lr, samples_per_s,
// mem_bytes and total_steps, ten evaluations, heartbeats, checkpoints, a
// done line), notes.json with a tag on one run in twenty. Then measures:
//  1. the app opening (the window, a new experiment) and showing them: the
//     Runs tab until its table has every row and has painted (target <= 2 s),
//     cold (the first look) and warm (the tab shown again);
//  2. the runs table sorting by a few columns and filtering with a few
//     queries, each until the view has its rows (target <= 50 ms);
//  3. the memory they take: the process's RSS growth over the first look,
//     per run.
// Exit status 0 when the targets are met.

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/records/runnotes.h"
#include "orchestration/runstore/runstore.h"
#include "protocol/protocol.h"
#include "ui/app/desktopapp.h"
#include "ui/app/mainwindow.h"
#include "ui/runs/runtablemodel.h"
#include "ui/runs/runtablepanel.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHeaderView>
#include <QJsonObject>
#include <QLineEdit>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <thread>
#include <vector>

#include <sys/resource.h>

using namespace trainyard;

namespace {

double rssMiB()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly)) {
        return -1;
    }
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("VmRSS:")) {
            return line.mid(6).trimmed().split(' ').first().toDouble() / 1024.0;
        }
    }
    return -1;
}

double cpuSeconds()
{
    struct rusage usage
    {};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
           + double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

int envInt(const char *name, int fallback)
{
    bool ok = false;
    const int v = qEnvironmentVariableIntValue(name, &ok);
    return ok && v > 0 ? v : fallback;
}

QJsonObject specOf(int i, QRandomGenerator &random)
{
    static const char *models[] = {"transe", "transh", "conv-transe", "sacn"};
    static const char *datasets[] = {"/data/kg/UMLS", "/data/kg/Nations", "/data/kg/FB15k-237", "/data/kg/WN18RR"};
    static const int dims[] = {32, 64, 100, 200};
    static const int batches[] = {256, 512, 1024};
    const double lr = std::pow(10.0, -1.0 - 3.0 * random.generateDouble()); // 1e-4 .. 1e-1, log-uniform
    QJsonObject model{{QStringLiteral("type"), QString::fromLatin1(models[i % 4])},
                      {QStringLiteral("dim"), dims[random.bounded(4)]}};
    if (i % 4 == 0) {
        model.insert(QStringLiteral("margin"), 1.0 + random.bounded(8) * 0.5);
    }
    return QJsonObject{
        {QStringLiteral("name"), QStringLiteral("run-%1").arg(i, 5, 10, QLatin1Char('0'))},
        {QStringLiteral("model"), model},
        {QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("kg")},
                                             {QStringLiteral("path"), QString::fromLatin1(datasets[(i / 4) % 4])}}},
        {QStringLiteral("train"), QJsonObject{{QStringLiteral("epochs"), 50},
                                              {QStringLiteral("batch_size"), batches[random.bounded(3)]},
                                              {QStringLiteral("optimizer"), QStringLiteral("adam")},
                                              {QStringLiteral("lr"), lr},
                                              {QStringLiteral("seed"), 1 + i % 5}}},
        {QStringLiteral("eval"),
         QJsonObject{{QStringLiteral("every_epochs"), 5}, {QStringLiteral("split"), QStringLiteral("valid")}}},
    };
}

// What a worker writes in `lines` metric lines: its metrics.jsonl.
QByteArray metricsOf(const QString &name, int lines, QRandomGenerator &random)
{
    QByteArray out;
    const auto put = [&out](const nlohmann::json &m) { out += QByteArray::fromStdString(protocol::encode(m)); };
    put(protocol::hello(name.toStdString(), "", 4242, "cuda:0", 0.0));
    const std::int64_t total = std::int64_t(lines) * 10;
    double loss = 2.0 + random.generateDouble();
    double mrr = 0.05;
    for (int k = 1; k <= lines; ++k) {
        const std::int64_t step = std::int64_t(k) * 10;
        const double wall = 0.05 * double(step);
        loss *= 0.995 + 0.004 * random.generateDouble();
        nlohmann::json m = protocol::metric(step, step * 50 / total, loss, wall);
        m["lr"] = 0.001;
        m["samples_per_s"] = 51200.0 + 1000.0 * random.generateDouble();
        m["mem_bytes"] = 734003200 + random.bounded(1 << 20);
        m["total_steps"] = total;
        put(m);
        if (k % 20 == 0) {
            put(protocol::heartbeat(step, wall + 0.01));
        }
        if (k % (lines / 10 > 0 ? lines / 10 : 1) == 0) {
            mrr = std::min(0.9, mrr + 0.05 * random.generateDouble());
            nlohmann::json e = protocol::evalResult(step, "valid", wall + 0.02);
            e["mrr"] = mrr;
            e["hits@1"] = mrr * 0.7;
            e["hits@3"] = mrr * 1.1;
            e["hits@10"] = std::min(1.0, mrr * 1.5);
            put(e);
            put(protocol::checkpoint(step, "checkpoints/latest.pt", wall + 0.03));
        }
    }
    put(protocol::done("finished", 0, 0.05 * double(total) + 0.1));
    return out;
}

// Run folders `from` to `to` (excluded) of the runs root.
bool generate(const QString &root, int from, int to, int lines)
{
    const RunStore store(root);
    const QDateTime first(QDate(2026, 1, 5), QTime(9, 0), Qt::UTC);
    for (int i = from; i < to; ++i) {
        QRandomGenerator random(quint32(23 + i));
        const QJsonObject spec = specOf(i, random);
        const QString name = spec.value(QStringLiteral("name")).toString();
        QString error;
        if (!store.prepareRunDir(name, spec, &error)) {
            std::fprintf(stderr, "%s\n", qPrintable(error));
            return false;
        }
        QFile metrics(store.runDir(name) + QStringLiteral("/metrics.jsonl"));
        if (!metrics.open(QIODevice::WriteOnly) || metrics.write(metricsOf(name, lines, random)) < 0) {
            return false;
        }
        RunInfo info;
        info.name = name;
        info.state = i % 50 == 7 ? RunState::Failed : RunState::Finished;
        info.exitCode = info.state == RunState::Failed ? 1 : 0;
        info.device = Device::gpus({i % 4});
        info.host = QStringLiteral("workstation");
        info.command = {QStringLiteral("/usr/bin/trainyard-worker"),
                        QStringLiteral("--spec"),
                        store.runDir(name) + QStringLiteral("/spec.json"),
                        QStringLiteral("--run-dir"),
                        store.runDir(name),
                        QStringLiteral("--device"),
                        info.device.toString()};
        info.started = first.addSecs(qint64(i) * 3000);
        info.ended = info.started.addSecs(qint64(lines) / 2);
        info.step = qint64(lines) * 10;
        if (!store.writeStatus(info, &error)) {
            std::fprintf(stderr, "%s\n", qPrintable(error));
            return false;
        }
        if (i % 20 == 3) {
            RunNotes notes;
            notes.tags = {i % 40 == 3 ? QStringLiteral("best") : QStringLiteral("baseline")};
            notes.note = QStringLiteral("kept for the paper");
            store.writeNotes(name, notes);
        }
    }
    return true;
}

// Every run folder, written by a few threads: the files are written as the
// app writes them (QSaveFile, synced), which waits on the disk.
bool generate(const QString &root, int runs, int lines)
{
    const int threads = 8;
    std::vector<std::thread> workers;
    std::atomic<bool> ok{true};
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            if (!generate(root, runs * t / threads, runs * (t + 1) / threads, lines)) {
                ok = false;
            }
        });
    }
    for (std::thread &w : workers) {
        w.join();
    }
    return ok;
}

// Runs the event loop until the view has painted what it shows now.
void settle(QTableView *view)
{
    QApplication::processEvents();
    view->viewport()->repaint();
    QApplication::processEvents();
}

// The GUI thread's CPU time, in milliseconds: what a step costs it, whatever
// else the machine runs meanwhile.
double threadCpuMs()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

double lastCpuMs = 0; // of the last timed() step

double timed(const std::function<void()> &step)
{
    QElapsedTimer clock;
    clock.start();
    const double cpu = threadCpuMs();
    step();
    lastCpuMs = threadCpuMs() - cpu;
    return double(clock.nsecsElapsed()) / 1e6;
}

} // namespace

int main(int argc, char **argv)
{
    const int runs = envInt("RUNS", 10000);
    const int lines = envInt("LINES", 300);
    // The app's data folder (the runs table's history root) in a folder of
    // our own, before Qt reads where it is: a temporary one, or BENCH_DIR,
    // kept and reused when it holds the runs already (to measure again).
    QTemporaryDir temporary(QDir::tempPath() + QStringLiteral("/bench-pastruns-XXXXXX"));
    const QString dataDir = qEnvironmentVariable("BENCH_DIR", temporary.path());
    qputenv("XDG_DATA_HOME", QFile::encodeName(dataDir));
    QApplication app(argc, argv);
    initDesktopApp();
    const QString history = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    const QString root = history + QStringLiteral("/year-of-work");

    QElapsedTimer clock;
    clock.start();
    const bool reuse = QFileInfo::exists(root + QStringLiteral("/run-%1").arg(runs - 1, 5, 10, QLatin1Char('0')));
    if (!reuse && !generate(root, runs, lines)) {
        std::fprintf(stderr, "bench_pastruns: cannot write the run folders under %s\n", qPrintable(root));
        return 2;
    }
    qint64 bytes = 0;
    for (const QFileInfo &dir : QDir(root).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        for (const QFileInfo &file : QDir(dir.filePath()).entryInfoList(QDir::Files)) {
            bytes += file.size();
        }
    }
    std::printf("%s %d run folders (%d metric lines each, %.0f MiB) in %.1f s under %s\n",
                reuse ? "reused" : "generated", runs, lines, double(bytes) / 1048576.0,
                double(clock.elapsed()) / 1000.0, qPrintable(root));
    std::fflush(stdout);

    const double rssBefore = rssMiB();
    MainWindow *window = nullptr;
    QTableView *view = nullptr;
    QTabWidget *tabs = nullptr;
    const double windowMs = timed([&] {
        window = new MainWindow;
        window->useScriptedPrompts();
        window->newExperiment();
        window->show();
        QApplication::processEvents();
        view = window->runTablePanel()->view();
        tabs = window->findChild<QTabWidget *>();
    });
    // The worker's catalogue, as the app has it from its cache at start:
    // every row's spec is resolved with its defaults (about 40 keys a run).
    const QString worker = qEnvironmentVariable("TRAINYARD_WORKER");
    ModelCatalogue catalogue;
    QString catalogueError;
    if (!worker.isEmpty() && ModelCatalogueLoader::loadNow(worker, &catalogue, &catalogueError)) {
        window->setCatalogue(catalogue);
        std::printf("catalogue: %s (%lld models)\n", qPrintable(worker), qint64(catalogue.models().size()));
    } else {
        std::printf("catalogue: none (%s): specs as written\n",
                    qPrintable(worker.isEmpty() ? QStringLiteral("TRAINYARD_WORKER not set") : catalogueError));
    }
    const double rssWindow = rssMiB();
    // The first look: the tab shown until every run is a row and painted
    // (their small files read), then until every metrics.jsonl is read too
    // (their evaluations). The reading runs on a thread pool meanwhile.
    RunTableModel *table = window->runTable();
    const auto until = [&](const std::function<bool()> &done) {
        QElapsedTimer limit;
        limit.start();
        while (!done() && limit.elapsed() < 600000) {
            // Waits in the event loop (a busy loop would take a core from the readers).
            QEventLoop wait;
            QTimer::singleShot(2, &wait, &QEventLoop::quit);
            wait.exec();
        }
        settle(view);
    };
    const double cpuBefore = cpuSeconds();
    QElapsedTimer first;
    first.start();
    tabs->setCurrentWidget(window->runTablePanel());
    settle(view);
    const double tabMs = double(first.nsecsElapsed()) / 1e6;
    const double guiBefore = threadCpuMs();
    until([&] { return table->rowCount() >= runs; });
    const double rowsMs = double(first.nsecsElapsed()) / 1e6;
    const double rowsCpu = cpuSeconds() - cpuBefore;
    const double rowsGui = (threadCpuMs() - guiBefore) / 1000.0;
    until([&] { return table->historyPending() == 0; });
    const double completeMs = double(first.nsecsElapsed()) / 1e6;
    const double cpu = cpuSeconds() - cpuBefore;
    const double rssShown = rssMiB();
    const int shown = table->rowCount();
    tabs->setCurrentIndex(0);
    settle(view);
    const double againMs = timed([&] {
        tabs->setCurrentWidget(window->runTablePanel());
        settle(view);
        until([&] { return table->historyPending() == 0; });
    });

    std::printf("\nopening and showing %d past runs (target <= 2000 ms)\n", shown);
    std::printf("  window and a new experiment:    %8.1f ms\n", windowMs);
    std::printf("  Runs tab shown (event loop free) %7.1f ms\n", tabMs);
    std::printf("  every run a row, painted:       %8.1f ms  (%.1f CPU-s, %.1f of them the GUI thread's)\n", rowsMs,
                rowsCpu, rowsGui);
    std::printf("  every metrics.jsonl read:       %8.1f ms  (%.1f CPU-s over %d threads)\n", completeMs, cpu,
                QThread::idealThreadCount());
    std::printf("  app opened and showing them:    %8.1f ms  (window + every run a row)\n", windowMs + rowsMs);
    std::printf("  Runs tab, shown again:          %8.1f ms  (nothing changed on disk)\n", againMs);

    const RunTableModel *model = window->runTable();
    const QList<QPair<QString, int>> sorts = {
        {QStringLiteral("Run"), RunTableModel::NameColumn},
        {QStringLiteral("Loss"), RunTableModel::LossColumn},
        {QStringLiteral("MRR"), RunTableModel::MrrColumn},
        {QStringLiteral("Started"), RunTableModel::StartedColumn},
        {QStringLiteral("train.lr"), model->paramColumn(QStringLiteral("train.lr"))},
        {QStringLiteral("model.dim"), model->paramColumn(QStringLiteral("model.dim"))},
    };
    double worstSort = 0;
    std::printf("\nsorting (target <= 50 ms)\n");
    for (const auto &[label, column] : sorts) {
        if (column < 0) {
            std::printf("  %-12s no such column\n", qPrintable(label));
            worstSort = 1e9;
            continue;
        }
        for (Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            const double ms = timed([&] {
                view->sortByColumn(column, order);
                settle(view);
            });
            worstSort = std::max(worstSort, ms);
            std::printf("  %-12s %-10s %8.1f ms  (GUI thread CPU %.1f ms)\n", qPrintable(label),
                        order == Qt::AscendingOrder ? "ascending" : "descending", ms, lastCpuMs);
        }
    }

    auto *filter = window->runTablePanel()->findChild<QLineEdit *>();
    const QStringList queries = qEnvironmentVariable("QUERIES").isEmpty()
                                    ? QStringList{QStringLiteral("run-00999"),
                                                  QStringLiteral("model=transh"),
                                                  QStringLiteral("model=sacn lr<0.01 tag:best"),
                                                  QStringLiteral("lr>=0.001 dim=100 mrr>0.3"),
                                                  QStringLiteral("zzz-no-such-run"),
                                                  QString()}
                                    : qEnvironmentVariable("QUERIES").split(QLatin1Char(';'));
    double worstFilter = 0;
    std::printf("\nfiltering (target <= 50 ms)\n");
    for (const QString &query : queries) {
        const double ms = timed([&] {
            filter->setText(query);
            settle(view);
        });
        worstFilter = std::max(worstFilter, ms);
        std::printf("  %-44s %8.1f ms  (GUI thread CPU %.1f ms; %d rows)\n",
                    qPrintable(QStringLiteral("\"%1\"").arg(query)), ms, lastCpuMs, view->model()->rowCount());
    }

    const double perRun = (rssShown - rssWindow) * 1048576.0 / double(std::max(1, shown));
    std::printf("\nmemory\n");
    std::printf("  RSS: %.0f MiB before the window, %.0f MiB with it, %.0f MiB showing the runs\n", rssBefore,
                rssWindow, rssShown);
    std::printf("  per past run: %.1f KiB (RSS growth over the first look / runs shown)\n", perRun / 1024.0);

    const bool ok = shown >= runs && windowMs + rowsMs <= 2000 && worstSort <= 50 && worstFilter <= 50;
    std::printf("\n%s: open and show %.0f ms (<= 2000), worst sort %.1f ms (<= 50), worst filter %.1f ms (<= 50)\n",
                ok ? "PASS" : "FAIL", windowMs + rowsMs, worstSort, worstFilter);
    delete window;
    return ok ? 0 : 1;
}
