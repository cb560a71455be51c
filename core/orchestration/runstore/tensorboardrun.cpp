#include "orchestration/runstore/tensorboardrun.h"

#include "metrics/tensorboard/eventfilereader.h"
#include "orchestration/experiment/sweepspec.h"
#include "protocol/metricrecord.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <map>

#include <sys/stat.h>

namespace trainyard {

namespace {

bool exists(const QString &path)
{
    struct stat st
    {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0; // a link in its place counts: not ours to read
}

} // namespace

QStringList TensorBoardRun::eventFiles(const QString &dir)
{
    QStringList files;
    const QFileInfoList entries = QDir(dir).entryInfoList({QStringLiteral("events.out.tfevents.*")},
                                                          QDir::Files | QDir::NoSymLinks | QDir::Hidden, QDir::Name);
    for (const QFileInfo &entry : entries) {
        files << entry.absoluteFilePath();
    }
    return files;
}

bool TensorBoardRun::isRunFolder(const QString &dir)
{
    for (const char *own : {"/metrics.jsonl", "/spec.json", "/status.json"}) {
        if (exists(dir + QLatin1String(own))) {
            return false;
        }
    }
    return !QFileInfo(dir).isSymLink() && !eventFiles(dir).isEmpty();
}

bool TensorBoardRun::isLogsFolder(const QString &dir)
{
    if (!eventFiles(dir).isEmpty()) {
        return true;
    }
    const QFileInfoList subs = QDir(dir).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks);
    return std::any_of(subs.begin(), subs.end(),
                       [](const QFileInfo &sub) { return isRunFolder(sub.absoluteFilePath()); });
}

qint64 TensorBoardRun::bytes(const QString &dir)
{
    qint64 total = 0;
    for (const QString &file : eventFiles(dir)) {
        total += QFileInfo(file).size();
    }
    return total;
}

TensorBoardRun::Result TensorBoardRun::read(const QString &dir, const std::function<void(const MetricRecord &)> &record)
{
    Result result;
    QList<TensorBoardScalar> scalars;
    bool started = false;
    for (const QString &file : eventFiles(dir)) {
        TensorBoardEvents events = TensorBoardEventReader::readFile(file);
        result.bytes += QFileInfo(file).size();
        if (!events.error.isEmpty()) {
            result.errors << events.error;
        }
        if (events.records > 0 && (!started || events.firstWallTime < result.startTime)) {
            result.startTime = events.firstWallTime;
            started = true;
        }
        for (const auto &[key, value] : std::as_const(events.hparams)) {
            setSpecValue(result.spec, key, value);
        }
        scalars += std::move(events.scalars);
    }
    // In step order, so each curve grows as a run's does (a step at or
    // before the last would replace the points after it).
    std::stable_sort(scalars.begin(), scalars.end(),
                     [](const TensorBoardScalar &a, const TensorBoardScalar &b) { return a.step < b.step; });
    // One record per step and kind: the metric line's values, each split's evaluation.
    std::map<std::string, MetricRecord> pending; // "" the metric line, else the split
    auto flush = [&] {
        for (auto &[split, r] : pending) {
            record(r);
            ++result.records;
        }
        pending.clear();
    };
    for (qsizetype i = 0; i < scalars.size(); ++i) {
        const TensorBoardScalar &s = scalars[i];
        if (i > 0 && scalars[i - 1].step != s.step) {
            flush();
        }
        const qsizetype slash = s.tag.lastIndexOf(QLatin1Char('/'));
        const std::string split = slash > 0 ? s.tag.left(slash).toStdString() : std::string();
        const std::string name = (slash > 0 ? s.tag.mid(slash + 1) : s.tag).toStdString();
        if (name.empty()) {
            continue;
        }
        auto it = pending.find(split);
        if (it != pending.end() && !it->second.addField(name, s.value)) {
            record(it->second); // more values at one step than a record holds: the rest in another
            ++result.records;
            pending.erase(it);
            it = pending.end();
        }
        if (it == pending.end()) {
            MetricRecord r;
            r.kind = split.empty() ? protocol::MessageType::Metric : protocol::MessageType::Eval;
            r.split = split;
            r.step = s.step;
            r.addField(name, s.value);
            it = pending.emplace(split, std::move(r)).first;
        }
        it->second.wall = std::max(it->second.wall, s.wallTime - result.startTime);
    }
    flush();
    return result;
}

} // namespace trainyard
