#pragma once

#include "metrics/metricslogreader.h"
#include "orchestration/records/runinfo.h"
#include "orchestration/records/runnotes.h"
#include "orchestration/records/runrecord.h"
#include "orchestration/runstore/liveworkerfile.h"
#include "orchestration/runstore/runattempts.h"

#include <QFileInfo>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>
#include <optional>

namespace trainyard {

class Experiment;

// The run folders on disk (docs/experiment-format.md#run-folders): ROOT/NAME/{spec.json, metrics.jsonl,
// worker.log, checkpoints/, status.json, notes.json}, plus the live workers'
// ROOT/.trainyard-state.json (LiveWorkerFile). Names are checked so a path
// never leaves ROOT.
class RunStore
{
public:
    explicit RunStore(const QString &root = QString());
    // The runs root of an experiment loaded from `experimentFile`: its
    // runs_root (relative to the file's folder, "~/" for the home folder),
    // else the default location (Experiment::effectiveRunsRoot).
    static QString rootFor(const Experiment &experiment, const QString &experimentFile);

    QString root() const { return m_root; }
    void setRoot(const QString &root) { m_root = root; }
    bool ensureRoot(QString *error) const;

    // ROOT/NAME, or empty when `name` is neither a safe run name, an
    // attempt's folder name (attemptNumber) nor the plain folder name of a
    // TensorBoard run there (read only).
    QString runDir(const QString &name) const;
    bool isRunFolderName(const QString &name) const;
    bool prepareRunDir(const QString &name, const QJsonObject &spec, QString *error) const;
    // Makes way for a fresh start of a run whose folder holds no results
    // (hasResults): deletes it but for its notes.json (the user's words
    // about the run are not the run's output), or removes a link planted in
    // its place (never what it points to). Refuses unsafe names and, false
    // with the folder untouched, a folder that holds results: those are
    // history (archiveRunDir).
    bool clearRunDir(const QString &name) const;
    // A checkpoint in its checkpoints/, or (a run on a host over ssh, whose
    // checkpoints stay there) in the list its mirror keeps.
    bool hasCheckpoint(const QString &name) const;
    // The regular files of `runDir`/checkpoints, newest first; none when
    // that folder is a link (never another run's checkpoints as this one's).
    static QFileInfoList checkpointFiles(const QString &runDir);
    // That list's file in a run folder (RemoteMirror writes it).
    static QString remoteCheckpointsFileName() { return QStringLiteral("remote-checkpoints.json"); }

    // A run folder that holds results is history, kept as an attempt
    // (RunAttempts, which says how).
    RunAttempts attempts() const { return RunAttempts(*this); }
    bool hasResults(const QString &name) const { return attempts().hasResults(name); }
    bool archiveRunDir(const QString &name, QString *archivedName, QString *error = nullptr) const
    {
        return attempts().archive(name, archivedName, error);
    }
    QString nextAttemptName(const QString &name) const { return attempts().nextName(name); }
    static int attemptNumber(const QString &folderName, QString *base = nullptr)
    {
        return RunAttempts::number(folderName, base);
    }

    // status.json: {"state","exit_code","signal","pid","device","host",
    // "started","ended","message","step","loss","command"}; readStatus
    // reads them all (step -1 and loss NaN when absent).
    bool writeStatus(const RunInfo &run, QString *error = nullptr) const;
    // False when absent or unreadable.
    bool readStatus(const QString &name, RunInfo *run) const;

    // spec.json; empty when absent or unreadable.
    QJsonObject readSpec(const QString &name) const;

    // notes.json: {"tags": [...], "note": "..."}, the user's tags and note;
    // empty when absent or unreadable.
    RunNotes readNotes(const QString &name) const;
    // Writes notes.json (creating the folder of a run that has not started:
    // its start keeps the file); empty notes remove it. Refuses unsafe
    // names and a notes.json that is a link.
    bool writeNotes(const QString &name, const RunNotes &notes, QString *error = nullptr) const;

    // Reads metrics.jsonl from byte `offset` through the one reader
    // (MetricsLogReader: a torn last line is left for the next read, invalid
    // lines are skipped and counted), calling `record` for every record;
    // the result's offset is where the next read starts.
    using ReadResult = MetricsLogReader::Result;
    using RecordCallback = MetricsLogReader::RecordCallback;
    ReadResult readMetrics(const QString &name, qint64 offset, const RecordCallback &record) const;

    // Brings `run` up to date with its folder: spec.json, status.json,
    // notes.json and metrics.jsonl from run->metricsOffset on (a fresh RunRecord reads it
    // all; one read before reads only what was appended since). False, and
    // `run` untouched, when the folder holds neither spec.json nor a
    // readable status.json (it is no run folder).
    bool readRun(const QString &name, RunRecord *run) const;
    // readRun in two parts: the small files (spec.json, status.json,
    // notes.json; until metrics.jsonl is read, status.json's last step and
    // loss), then what metrics.jsonl gained from run->metricsOffset on (read
    // again from its start when it shrank: replaced).
    bool readRunFiles(const QString &name, RunRecord *run) const;
    void readRunMetrics(const QString &name, RunRecord *run) const;
    // Names of the folders under the root that can be runs (safe names,
    // archived attempts and TensorBoard runs, no links: Trainyard does not
    // follow links in the runs root), sorted.
    QStringList runNames() const;
    // Every run folder under the root, by folder name (links are not
    // followed). The overload brings an earlier answer up to date, reading
    // only what the runs appended since.
    QList<RunRecord> readHistory() const;
    // `include`, when given, picks the folders by name (the open
    // experiment's earlier attempts: attemptNumber).
    void readHistory(QList<RunRecord> *runs, const std::function<bool(const QString &)> &include = {}) const;

    // Live workers, persisted for reattachment in the runs root's state
    // file (LiveWorkerFile, which says how).
    using LiveWorker = LiveWorkerFile::Worker;
    LiveWorkerFile liveWorkers() const { return LiveWorkerFile(m_root); }
    QHash<QString, LiveWorker> readState(QString *socketPath = nullptr, QString *refusal = nullptr) const
    {
        return liveWorkers().read(socketPath, refusal);
    }
    bool writeState(const QHash<QString, LiveWorker> &workers, const QString &socketPath) const
    {
        return liveWorkers().write(workers, socketPath);
    }
    static qint64 processStartTicks(qint64 pid) { return LiveWorkerFile::processStartTicks(pid); }

private:
    // runDir(name) to read from; empty (with `refusal`) when it is a link.
    QString readableDir(const QString &name, QString *refusal = nullptr) const;

    QString m_root;
};

} // namespace trainyard
