#include "ui/runs/pastruns.h"

#include "orchestration/runstore/runconfigfile.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/runstore/tensorboardrun.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRunnable>
#include <QSet>
#include <QThread>

#include <algorithm>

#include <sys/stat.h>

namespace trainyard {

namespace {

// Run folders a thread reads at once, and results handed back at once.
constexpr int kChunk = 64;

PastRuns::FileStamp stampOf(const QString &path)
{
    PastRuns::FileStamp stamp;
    struct stat st
    {};
    if (::lstat(QFile::encodeName(path).constData(), &st) == 0) {
        stamp.size = qint64(st.st_size);
        stamp.modifiedNs = qint64(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
        stamp.inode = quint64(st.st_ino);
    }
    return stamp;
}

PastRuns::Stamps stampsOf(const QString &runDir)
{
    PastRuns::Stamps s;
    s.spec = stampOf(runDir + QStringLiteral("/spec.json"));
    s.status = stampOf(runDir + QStringLiteral("/status.json"));
    s.notes = stampOf(runDir + QStringLiteral("/notes.json"));
    s.params = stampOf(runconfigfile::paramsPath(runDir));
    s.metrics = stampOf(runDir + QStringLiteral("/metrics.jsonl"));
    if (s.metrics.size < 0 && s.spec.size < 0 && s.status.size < 0) {
        // Perhaps TensorBoard's: its events files together stand for metrics.jsonl.
        for (const QString &file : TensorBoardRun::eventFiles(runDir)) {
            const PastRuns::FileStamp one = stampOf(file);
            s.metrics.size = std::max<qint64>(s.metrics.size, 0) + std::max<qint64>(one.size, 0);
            s.metrics.modifiedNs = std::max(s.metrics.modifiedNs, one.modifiedNs);
            s.metrics.inode ^= one.inode;
        }
    }
    return s;
}

} // namespace

PastRuns::PastRuns(QObject *parent)
    : QObject(parent)
    , m_cancel(std::make_shared<std::atomic<bool>>(false))
{
    m_pool.setMaxThreadCount(std::max(1, QThread::idealThreadCount()));
}

PastRuns::~PastRuns()
{
    *m_cancel = true;
    m_pool.waitForDone();
}

void PastRuns::setCatalogue(const ModelCatalogue &catalogue)
{
    m_catalogue = catalogue;
    ++m_generation;
    QList<Item> rows;
    for (int i = 0; i < size(); ++i) {
        rows.append(itemOf(i, Work::Row));
    }
    read(rows, 1);
}

void PastRuns::setNotes(int i, const RunNotes &notes)
{
    m_entries[i].run.notes = notes;
    m_entries[i].row.notes = notes;
}

void PastRuns::refresh(const QString &runsRoot, const QString &experiment)
{
    // The listing and the stamps too on the pool: fifty thousand lstat()s
    // are not the window's to wait for.
    ++m_inFlight;
    m_pool.start(QRunnable::create([this, roots = m_roots, tensorBoard = m_tensorBoardFolders, runsRoot, experiment,
                                    scan = ++m_scan, cancel = m_cancel] {
                     Scan result{scan, {}};
                     const auto list = [&result](const QString &root, const QString &name,
                                                 const std::function<bool(const QString &)> &include) {
                         for (const QString &run : RunStore(root).runNames()) {
                             if (!include || include(run)) {
                                 result.listed.append({root, run, name, stampsOf(RunStore(root).runDir(run))});
                             }
                         }
                     };
                     const QString current = QFileInfo(runsRoot).canonicalFilePath();
                     for (const QString &root : roots) {
                         const QDir dir(root);
                         for (const QFileInfo &experimentDir :
                              dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
                             if (*cancel) {
                                 return;
                             }
                             if (experimentDir.canonicalFilePath() == current) {
                                 continue; // the open experiment's runs are the live rows
                             }
                             list(experimentDir.absoluteFilePath(), experimentDir.fileName(), {});
                         }
                     }
                     for (const QString &folder : tensorBoard) {
                         const QFileInfo info(folder);
                         if (TensorBoardRun::eventFiles(folder).isEmpty()) {
                             list(info.absoluteFilePath(), info.fileName(), {});
                         } else { // one run's logs
                             const QString name = info.fileName();
                             list(info.absolutePath(), name, [name](const QString &run) { return run == name; });
                         }
                     }
                     // The open experiment's runs are the live rows; their earlier attempts are its history.
                     if (!runsRoot.isEmpty()) {
                         list(runsRoot, experiment,
                              [](const QString &name) { return RunStore::attemptNumber(name) > 0; });
                     }
                     const QMutexLocker lock(&m_resultsLock);
                     m_scanned.append(std::move(result));
                     queueDrain();
                 }),
                 2);
}

void PastRuns::apply(const Scan &scan)
{
    if (scan.serial != m_scan) {
        return; // a later refresh listed them again
    }
    QSet<QString> seen;
    for (const Listed &l : scan.listed) {
        seen.insert(RunStore(l.root).runDir(l.name));
    }
    // Folders gone (or no longer listed: the roots or the open experiment changed).
    m_newReads.removeIf([&seen](const QHash<QString, quint64>::iterator it) { return !seen.contains(it.key()); });
    bool gone = false;
    for (const Entry &entry : std::as_const(m_entries)) {
        gone = gone || !seen.contains(entry.run.info.runDir);
    }
    if (gone) {
        Q_EMIT removing();
        QList<Entry> kept;
        m_index.clear();
        for (Entry &entry : m_entries) {
            if (seen.contains(entry.run.info.runDir)) {
                m_index.insert(entry.run.info.runDir, int(kept.size()));
                kept.append(std::move(entry));
            }
        }
        m_entries = std::move(kept);
        Q_EMIT removed();
    }

    QList<Item> files;
    QList<Item> metrics;
    for (const Listed &l : scan.listed) {
        const QString dir = RunStore(l.root).runDir(l.name);
        const auto it = m_index.constFind(dir);
        if (it == m_index.constEnd()) {
            if (m_newReads.contains(dir)) {
                continue; // being read
            }
            Item item;
            item.root = l.root;
            item.name = l.name;
            item.serial = ++m_serial;
            item.stamps = l.stamps;
            item.experiment = l.experiment;
            m_newReads.insert(dir, item.serial);
            files.append(item);
            continue;
        }
        Entry &entry = m_entries[*it];
        if (!entry.stamps.sameFiles(l.stamps) || entry.experiment != l.experiment) {
            entry.experiment = l.experiment;
            Item item = itemOf(*it, Work::Files);
            item.serial = entry.serial = ++m_serial;
            item.stamps = l.stamps;
            files.append(item);
        } else if (entry.metricsAsked != l.stamps.metrics) {
            Item item = itemOf(*it, Work::Metrics);
            item.serial = entry.serial = ++m_serial;
            item.stamps = l.stamps;
            if (l.stamps.metrics.inode != entry.metricsApplied.inode && entry.run.metricsOffset > 0) {
                item.run.clearMetrics(); // another file in its place: read from its start
            }
            entry.metricsAsked = l.stamps.metrics;
            metrics.append(item);
        }
    }
    read(files, 1);
    read(metrics, 0);
}

PastRuns::Item PastRuns::itemOf(int index, Work work)
{
    const Entry &entry = m_entries.at(index);
    const QFileInfo dir(entry.run.info.runDir);
    Item item;
    item.root = dir.absolutePath();
    item.name = dir.fileName();
    item.work = work;
    item.serial = entry.serial; // a row made again goes with the read it was made from
    item.experiment = entry.experiment;
    item.run = entry.run;
    item.row = entry.row;
    item.hasRow = entry.generation == m_generation;
    item.reported = entry.reported;
    return item;
}

void PastRuns::read(QList<Item> items, int priority)
{
    m_inFlight += int(items.size());
    for (qsizetype from = 0; from < items.size(); from += kChunk) {
        QList<Item> chunk = items.mid(from, kChunk);
        m_pool.start(QRunnable::create([this, chunk = std::move(chunk), cancel = m_cancel, catalogue = m_catalogue,
                                        generation = m_generation]() mutable {
                         for (Item &item : chunk) {
                             if (*cancel) {
                                 return;
                             }
                             const RunStore store(item.root);
                             if (item.work == Work::Files) {
                                 item.isRun = store.readRunFiles(item.name, &item.run);
                                 if (!item.isRun) {
                                     continue;
                                 }
                                 item.reported = runconfigfile::readParams(item.run.info.runDir);
                             } else if (item.work == Work::Metrics) {
                                 store.readRunMetrics(item.name, &item.run);
                             }
                             const RunRow previous = std::move(item.row);
                             item.row = RunRow::past(item.run, item.experiment, catalogue, item.reported,
                                                     item.hasRow && item.work != Work::Row ? &previous : nullptr);
                             item.generation = generation;
                         }
                         post(std::move(chunk));
                     }),
                     priority);
    }
}

void PastRuns::post(QList<Item> items)
{
    const QMutexLocker lock(&m_resultsLock);
    m_results.append(std::move(items));
    queueDrain();
}

void PastRuns::queueDrain()
{
    if (!m_drainQueued) {
        m_drainQueued = true;
        QMetaObject::invokeMethod(this, &PastRuns::drain, Qt::QueuedConnection);
    }
}

void PastRuns::drain()
{
    QList<Item> results;
    QList<Scan> scans;
    {
        const QMutexLocker lock(&m_resultsLock);
        results.swap(m_results);
        scans.swap(m_scanned);
        m_drainQueued = false;
    }
    m_inFlight -= int(results.size() + scans.size());
    for (const Scan &scan : std::as_const(scans)) {
        apply(scan);
    }
    const int first = size();
    QList<int> changedRuns;
    bool specs = false;
    QList<Item> more;
    for (Item &item : results) {
        const QString dir = RunStore(item.root).runDir(item.name);
        const auto it = m_index.constFind(dir);
        if (it == m_index.constEnd()) {
            if (m_newReads.value(dir) != item.serial) {
                continue; // no longer listed, or read again since: dropped
            }
            m_newReads.remove(dir);
            if (!item.isRun) {
                continue;
            }
            const int index = size();
            m_index.insert(dir, index);
            Entry entry;
            entry.run = std::move(item.run);
            entry.row = std::move(item.row);
            entry.experiment = item.experiment;
            entry.reported = item.reported;
            entry.stamps = item.stamps;
            entry.serial = item.serial;
            entry.generation = item.generation;
            m_entries.append(std::move(entry));
            // Its metrics.jsonl next, and its row again if the catalogue changed meanwhile.
            Item metrics = itemOf(index, Work::Metrics);
            metrics.serial = m_entries[index].serial = ++m_serial;
            metrics.stamps = item.stamps;
            m_entries[index].metricsAsked = item.stamps.metrics;
            more.append(metrics);
            continue;
        }
        Entry &entry = m_entries[*it];
        if (entry.serial != item.serial) {
            continue; // asked again since; that result is to come
        }
        if (item.work == Work::Files && !item.isRun) {
            continue; // no spec nor status any more: dropped at the next refresh
        }
        specs = specs || entry.row.params != item.row.params;
        entry.run = std::move(item.run);
        entry.row = std::move(item.row);
        entry.generation = item.generation;
        if (item.work == Work::Files) {
            entry.reported = item.reported;
            entry.stamps = item.stamps;
            if (entry.metricsApplied != item.stamps.metrics) {
                // Its metrics.jsonl changed too, or a read of it was overtaken by this one.
                Item metrics = itemOf(*it, Work::Metrics);
                metrics.serial = entry.serial = ++m_serial;
                metrics.stamps = item.stamps;
                entry.metricsAsked = item.stamps.metrics;
                more.append(metrics);
            }
        } else if (item.work == Work::Metrics) {
            entry.metricsApplied = item.stamps.metrics;
        }
        if (item.generation != m_generation && entry.serial == item.serial) {
            more.append(itemOf(*it, Work::Row)); // made with the catalogue before the last
        }
        changedRuns.append(*it);
    }
    if (size() > first) {
        Q_EMIT added(first, size() - first);
    }
    if (!changedRuns.isEmpty()) {
        Q_EMIT changed(changedRuns, specs);
    }
    read(more, 0);
}

void PastRuns::waitForReads()
{
    while (m_inFlight > 0) {
        m_pool.waitForDone();
        drain();
    }
}

} // namespace trainyard
