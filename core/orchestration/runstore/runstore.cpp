#include "orchestration/runstore/runstore.h"

#include "orchestration/runstore/receivedmetrics.h"

#include "metrics/runfile.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/logcategories.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/runstore/jsonfile.h"
#include "orchestration/runstore/receivedmetrics.h"
#include "orchestration/runstore/runconfigfile.h"
#include "orchestration/runstore/tensorboardrun.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

#include <QRegularExpression>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <sys/stat.h>
#include <unistd.h>

namespace trainyard {

namespace {

// The object in `file` (open, read from its start).
QJsonObject parseJsonFile(QFile &file, const QString &path)
{
    // Our own small files; anything over 4 MiB is not one of them.
    if (file.size() > 4 * 1024 * 1024) {
        qCWarning(lcRunStore).noquote() << path << "ignored: larger than 4 MiB";
        return {};
    }
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (!document.isObject()) {
        qCWarning(lcRunStore).noquote() << path << "ignored: not a JSON object:" << parseError.errorString();
    }
    return document.object();
}

// A run folder's JSON file, opened as every run-folder file is
// (openRegularFile: no link followed, never blocking); empty when absent or
// refused.
QJsonObject readJson(const QString &path)
{
    QFile file;
    QString error;
    if (!openRegularFile(path, &file, &error)) {
        if (!error.isEmpty()) {
            qCWarning(lcRunStore).noquote() << error;
        }
        return {};
    }
    return parseJsonFile(file, path);
}

} // namespace

RunStore::RunStore(const QString &root)
    : m_root(root)
{
}

QString RunStore::rootFor(const Experiment &experiment, const QString &experimentFile)
{
    Experiment ex = experiment;
    if (!ex.runsRoot.isEmpty() && QDir::isRelativePath(ex.runsRoot) && !ex.runsRoot.startsWith(QLatin1Char('~'))
        && !experimentFile.isEmpty()) {
        ex.runsRoot = QFileInfo(experimentFile).absoluteDir().filePath(ex.runsRoot);
    }
    return ex.effectiveRunsRoot();
}

bool RunStore::ensureRoot(QString *error) const
{
    if (m_root.isEmpty() || !QDir().mkpath(m_root)) {
        if (error) {
            *error = m_root + QStringLiteral(": cannot create the runs folder");
        }
        return false;
    }
    return true;
}

bool RunStore::isRunFolderName(const QString &name) const
{
    if (isSafeRunName(name) || attemptNumber(name) > 0) {
        return true;
    }
    // TensorBoard's runs are named by whoever wrote them ("lr=0.01,bs=32"):
    // any one folder name, read only (TensorBoardRun), never one of ours.
    const bool plain =
        !name.isEmpty() && name.size() <= 255 && !name.startsWith(QLatin1Char('.')) && !name.contains(QLatin1Char('/'))
        && std::none_of(name.begin(), name.end(), [](QChar c) { return c.category() == QChar::Other_Control; });
    return plain && !m_root.isEmpty() && TensorBoardRun::isRunFolder(m_root + QLatin1Char('/') + name);
}

QString RunStore::runDir(const QString &name) const
{
    if (m_root.isEmpty() || !isRunFolderName(name)) {
        return {};
    }
    return m_root + QLatin1Char('/') + name;
}

bool RunStore::prepareRunDir(const QString &name, const QJsonObject &spec, QString *error) const
{
    const QString dir = runDir(name);
    if (dir.isEmpty()) {
        if (error) {
            *error = QStringLiteral("\"%1\" is not a safe run name").arg(name);
        }
        return false;
    }
    // A link planted in the runs root would send the worker's writes (and a
    // later clear) somewhere else.
    for (const QString &path : {dir, dir + QStringLiteral("/checkpoints"), dir + QStringLiteral("/metrics.jsonl"),
                                dir + QStringLiteral("/worker.log"), dir + QStringLiteral("/spec.json"),
                                dir + QStringLiteral("/status.json"), dir + QStringLiteral("/notes.json")}) {
        if (QFileInfo(path).isSymLink()) {
            if (error) {
                *error = path + QStringLiteral(" is a symbolic link; Trainyard does not follow links in run folders");
            }
            return false;
        }
    }
    if (!QDir().mkpath(dir + QStringLiteral("/checkpoints"))) {
        if (error) {
            *error = dir + QStringLiteral(": cannot create the run folder");
        }
        return false;
    }
    // A program run's config: checked before spec.json is written, so a
    // refused resume leaves the folder as it was.
    const bool hasConfig = RunSpecView(spec).isProgram() && spec.contains(QStringLiteral("config"));
    const QJsonObject config = spec.value(QStringLiteral("config")).toObject();
    if (hasConfig && !runconfigfile::write(dir, config, error)) {
        return false;
    }
    QFile::remove(dir + QStringLiteral("/status.json"));
    return writeJsonFile(dir + QStringLiteral("/spec.json"), spec, error);
}

bool RunStore::clearRunDir(const QString &name) const
{
    const QString dir = runDir(name);
    if (dir.isEmpty()) {
        return false;
    }
    if (QFileInfo(dir).isSymLink()) {
        return QFile::remove(dir); // the link only, never what it points to
    }
    if (hasResults(name)) {
        qCWarning(lcRunStore).noquote() << dir << "not cleared: it holds results";
        return false;
    }
    QDir d(dir);
    qCDebug(lcRunStore).noquote() << "clearing the run folder" << dir;
    const RunNotes notes = readNotes(name);
    if (d.exists() && !d.removeRecursively()) {
        return false;
    }
    return notes.isEmpty() || writeNotes(name, notes);
}

QFileInfoList RunStore::checkpointFiles(const QString &runDir)
{
    // A link in the folder's place would offer another run's checkpoints
    // as this run's (a resume, a dependent's input): none then.
    const QString dir = runDir + QStringLiteral("/checkpoints");
    if (QFileInfo(dir).isSymLink()) {
        return {};
    }
    return QDir(dir).entryInfoList(QDir::Files | QDir::NoDotAndDotDot | QDir::NoSymLinks, QDir::Time);
}

bool RunStore::hasCheckpoint(const QString &name) const
{
    const QString dir = readableDir(name);
    if (dir.isEmpty()) {
        return false;
    }
    if (!checkpointFiles(dir).isEmpty()) {
        return true;
    }
    // A run on a host keeps its checkpoints there; its mirror lists them.
    QFile listing;
    QString error;
    return openRegularFile(dir + QLatin1Char('/') + remoteCheckpointsFileName(), &listing, &error)
           && !QJsonDocument::fromJson(listing.read(1 << 20))
                   .object()
                   .value(QStringLiteral("files"))
                   .toArray()
                   .isEmpty();
}

bool RunStore::writeStatus(const RunInfo &run, QString *error) const
{
    const QString dir = runDir(run.name);
    if (dir.isEmpty()) {
        return false;
    }
    QJsonObject o;
    o.insert(QStringLiteral("state"), runStateName(run.state));
    o.insert(QStringLiteral("exit_code"), run.exitCode >= 0 ? QJsonValue(run.exitCode) : QJsonValue());
    o.insert(QStringLiteral("signal"), run.exitSignal > 0 ? QJsonValue(run.exitSignal) : QJsonValue());
    o.insert(QStringLiteral("pid"), run.pid);
    o.insert(QStringLiteral("device"), run.device.toString());
    if (!run.host.isEmpty()) {
        o.insert(QStringLiteral("host"), run.host);
    }
    if (!run.command.isEmpty()) {
        o.insert(QStringLiteral("command"), QJsonArray::fromStringList(run.command));
    }
    o.insert(QStringLiteral("started"), run.started.isValid() ? run.started.toString(Qt::ISODateWithMs) : QString());
    o.insert(QStringLiteral("ended"), run.ended.isValid() ? run.ended.toString(Qt::ISODateWithMs) : QString());
    o.insert(QStringLiteral("message"), run.message);
    o.insert(QStringLiteral("step"), run.step);
    if (!std::isnan(run.loss)) {
        o.insert(QStringLiteral("loss"), run.loss);
    }
    return writeJsonFile(dir + QStringLiteral("/status.json"), o, error);
}

QString RunStore::readableDir(const QString &name, QString *refusal) const
{
    // openRegularFile refuses a link in a file's place; a link in the
    // folder's place (to another run's folder) is refused here, so its
    // files are never read as this run's.
    const QString dir = runDir(name);
    if (!dir.isEmpty() && QFileInfo(dir).isSymLink()) {
        if (refusal) {
            *refusal = dir + QStringLiteral(" is a symbolic link; Trainyard does not follow links in run folders");
        }
        return {};
    }
    return dir;
}

bool RunStore::readStatus(const QString &name, RunInfo *run) const
{
    QString refusal;
    const QString dir = readableDir(name, &refusal);
    if (!refusal.isEmpty()) {
        qCWarning(lcRunStore).noquote() << refusal;
    }
    if (dir.isEmpty() || !QFileInfo::exists(dir + QStringLiteral("/status.json"))) {
        return false;
    }
    const QJsonObject o = readJson(dir + QStringLiteral("/status.json"));
    RunState state;
    if (!runStateFromName(o.value(QStringLiteral("state")).toString(), &state)) {
        qCWarning(lcRunStore).noquote() << dir + QStringLiteral("/status.json") << "ignored: no known \"state\"";
        return false;
    }
    run->state = state;
    run->exitCode = o.value(QStringLiteral("exit_code")).toInt(-1);
    run->exitSignal = o.value(QStringLiteral("signal")).toInt(0);
    run->pid = o.value(QStringLiteral("pid")).toInteger();
    run->device = Device::parse(o.value(QStringLiteral("device")).toString());
    run->host = o.value(QStringLiteral("host")).toString();
    run->command = jsonStringList(o.value(QStringLiteral("command")));
    run->started = QDateTime::fromString(o.value(QStringLiteral("started")).toString(), Qt::ISODateWithMs);
    run->ended = QDateTime::fromString(o.value(QStringLiteral("ended")).toString(), Qt::ISODateWithMs);
    run->message = o.value(QStringLiteral("message")).toString();
    run->step = o.value(QStringLiteral("step")).toInteger(-1);
    run->loss = o.value(QStringLiteral("loss")).toDouble(std::numeric_limits<double>::quiet_NaN());
    return true;
}

QJsonObject RunStore::readSpec(const QString &name) const
{
    const QString dir = readableDir(name);
    if (dir.isEmpty() || !QFileInfo::exists(dir + QStringLiteral("/spec.json"))) {
        return {};
    }
    return readJson(dir + QStringLiteral("/spec.json"));
}

RunNotes RunStore::readNotes(const QString &name) const
{
    const QString dir = readableDir(name);
    const QString path = dir + QStringLiteral("/notes.json");
    if (dir.isEmpty() || !QFileInfo::exists(path) || QFileInfo(path).isSymLink()) {
        return {};
    }
    const QJsonObject o = readJson(path);
    RunNotes notes;
    QStringList tags;
    for (const QJsonValue &tag : o.value(QStringLiteral("tags")).toArray()) {
        tags.append(tag.toString());
    }
    notes.tags = RunNotes::parseTags(tags.join(QLatin1Char(',')));
    notes.note = o.value(QStringLiteral("note")).toString();
    return notes;
}

bool RunStore::writeNotes(const QString &name, const RunNotes &notes, QString *error) const
{
    const QString dir = runDir(name);
    if (dir.isEmpty()) {
        if (error) {
            *error = QStringLiteral("\"%1\" is not a safe run name").arg(name);
        }
        return false;
    }
    if (TensorBoardRun::isRunFolder(dir)) {
        if (error) {
            *error = dir + QStringLiteral(" holds TensorBoard logs, which Trainyard only reads");
        }
        return false;
    }
    const QString path = dir + QStringLiteral("/notes.json");
    for (const QString &p : {dir, path}) {
        if (QFileInfo(p).isSymLink()) {
            if (error) {
                *error = p + QStringLiteral(" is a symbolic link; Trainyard does not follow links in run folders");
            }
            return false;
        }
    }
    if (notes.isEmpty()) {
        if (QFile::exists(path) && !QFile::remove(path)) {
            if (error) {
                *error = path + QStringLiteral(": cannot remove");
            }
            return false;
        }
        return true;
    }
    if (!QDir().mkpath(dir)) {
        if (error) {
            *error = dir + QStringLiteral(": cannot create the run folder");
        }
        return false;
    }
    QJsonObject o;
    o.insert(QStringLiteral("tags"), QJsonArray::fromStringList(notes.tags));
    o.insert(QStringLiteral("note"), notes.note);
    return writeJsonFile(path, o, error);
}

RunStore::ReadResult RunStore::readMetrics(const QString &name, qint64 offset, const RecordCallback &record) const
{
    ReadResult refused;
    const QString dir = readableDir(name, &refused.error);
    if (dir.isEmpty()) {
        refused.offset = offset;
        return refused;
    }
    if (TensorBoardRun::isRunFolder(dir)) {
        // Its events files as one whole: read from the start only.
        ReadResult read;
        read.offset = offset;
        if (offset == 0) {
            const TensorBoardRun::Result tb = TensorBoardRun::read(dir, record);
            read.offset = tb.bytes;
            read.records = tb.records;
            read.error = tb.errors.join(QLatin1Char('\n'));
        }
        return read;
    }
    // metrics.jsonl, then the lines only the socket brought (ReceivedMetrics).
    return ReceivedMetrics::read(dir, offset, record);
}

bool RunStore::readRun(const QString &name, RunRecord *run) const
{
    if (!readRunFiles(name, run)) {
        return false;
    }
    readRunMetrics(name, run);
    return true;
}

bool RunStore::readRunFiles(const QString &name, RunRecord *run) const
{
    const QString dir = runDir(name);
    if (dir.isEmpty()) {
        return false;
    }
    const QJsonObject spec = readSpec(name);
    RunInfo status;
    const bool hasStatus = readStatus(name, &status);
    const bool tensorBoard = spec.isEmpty() && !hasStatus && TensorBoardRun::isRunFolder(dir);
    if (spec.isEmpty() && !hasStatus && !tensorBoard) {
        return false;
    }

    RunRecord &r = *run;
    const QString specName = RunSpecView(spec).name();
    // An archived attempt goes by its folder's name: its spec.json names the run it was.
    r.info.name = specName.isEmpty() || attemptNumber(name) > 0 ? name : specName;
    if (!tensorBoard) {
        r.info.spec = spec; // a TensorBoard run's is its hparams, which readRunMetrics reads
    }
    r.info.runDir = dir;
    r.hasStatus = hasStatus;
    RunState state = RunState::Queued; // what a run folder without an ending says
    if (hasStatus) {
        state = status.state;
    } else if (r.hasDone) {
        runStateFromName(r.doneStatus, &state);
    }
    r.info.state = state;
    r.info.exitCode = hasStatus ? status.exitCode : r.doneExitCode;
    r.info.exitSignal = status.exitSignal;
    r.info.pid = status.pid;
    r.info.device = status.device;
    r.info.host = status.host;
    r.info.command = status.command;
    r.info.started = status.started;
    r.info.ended = status.ended;
    r.info.message = status.message;
    if (r.metricsOffset == 0 && hasStatus) {
        // Until metrics.jsonl is read, the last step and loss status.json kept.
        r.info.step = status.step;
        r.info.loss = status.loss;
    }
    r.notes = readNotes(name);
    return true;
}

void RunStore::readRunMetrics(const QString &name, RunRecord *run) const
{
    RunRecord &r = *run;
    const QString dir = readableDir(name);
    if (!dir.isEmpty() && TensorBoardRun::isRunFolder(dir)) {
        if (TensorBoardRun::bytes(dir) == r.metricsOffset && r.metricsOffset > 0) {
            return; // unchanged
        }
        r.clearMetrics();
        const TensorBoardRun::Result read =
            TensorBoardRun::read(dir, [&r](const MetricRecord &record) { r.add(record); });
        r.metricsOffset = read.bytes;
        r.info.spec = read.spec;
        if (read.startTime > 0) {
            r.info.started = QDateTime::fromMSecsSinceEpoch(qint64(std::llround(read.startTime * 1000.0))).toUTC();
        }
        for (const QString &error : read.errors) {
            qCWarning(lcRunStore).noquote() << error;
        }
        return;
    }
    if (ReceivedMetrics::bytes(runDir(name)) < r.metricsOffset) {
        r.clearMetrics(); // replaced (a retry): its summary starts over
    }
    r.metricsOffset = readMetrics(name, r.metricsOffset, [&r](const MetricRecord &record) { r.add(record); }).offset;
    if (!r.hasStatus && r.hasDone) {
        // No status.json: the done line says how it ended.
        runStateFromName(r.doneStatus, &r.info.state);
        r.info.exitCode = r.doneExitCode;
    }
}

QList<RunRecord> RunStore::readHistory() const
{
    QList<RunRecord> runs;
    readHistory(&runs);
    return runs;
}

QStringList RunStore::runNames() const
{
    if (m_root.isEmpty()) {
        return {};
    }
    QStringList names = QDir(m_root).entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks, QDir::Name);
    names.removeIf([this](const QString &name) { return !isRunFolderName(name); });
    return names;
}

void RunStore::readHistory(QList<RunRecord> *runs, const std::function<bool(const QString &)> &include) const
{
    QHash<QString, RunRecord> earlier;
    for (RunRecord &run : *runs) {
        earlier.insert(run.info.runDir, std::move(run));
    }
    runs->clear();
    const QStringList names = runNames();
    for (const QString &name : names) {
        if (include && !include(name)) {
            continue;
        }
        RunRecord run = earlier.take(runDir(name));
        if (readRun(name, &run)) {
            runs->append(std::move(run));
        }
    }
    qCDebug(lcRunStore).noquote() << m_root << ":" << runs->size() << "past runs";
}

} // namespace trainyard
