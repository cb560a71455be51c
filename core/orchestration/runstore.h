#pragma once

#include "runinfo.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>

namespace trainyard {

class MetricStore;

// The run folders on disk (DESIGN.md): ROOT/NAME/{spec.json, metrics.jsonl,
// worker.log, checkpoints/, status.json}, plus ROOT/.trainyard-state.json
// (mode 0600: pid, token and start time of every live worker, so a restarted
// orchestrator can reattach). Names are checked so a path never leaves ROOT.
class RunStore
{
public:
    explicit RunStore(const QString &root = QString());

    QString root() const { return m_root; }
    void setRoot(const QString &root) { m_root = root; }
    bool ensureRoot(QString *error) const;

    // ROOT/NAME, or empty when `name` is not a safe run name.
    QString runDir(const QString &name) const;
    bool prepareRunDir(const QString &name, const QJsonObject &spec, QString *error) const;
    // Deletes the run's folder (retry from scratch); refuses unsafe names.
    bool clearRunDir(const QString &name) const;
    bool hasCheckpoint(const QString &name) const;

    // status.json: {"state","exit_code","signal","pid","device","started","ended","message"}.
    bool writeStatus(const RunInfo &run, QString *error = nullptr) const;
    // False when absent or unreadable.
    bool readStatus(const QString &name, RunInfo *run) const;

    // Reads metrics.jsonl from byte `offset`, calling `line` for every
    // complete JSON line; returns the offset after the last complete line.
    // A torn last line (no '\n' yet) is left for the next read; invalid
    // lines are skipped and counted in `*skipped`.
    struct ReadResult
    {
        qint64 offset = 0;
        int lines = 0;
        int skipped = 0;
    };
    using LineCallback = std::function<void(const QByteArray &line)>;
    ReadResult readMetrics(const QString &name, qint64 offset, const LineCallback &line) const;

    // Live workers, persisted for reattachment.
    struct LiveWorker
    {
        qint64 pid = 0;
        QString token;
        QString device;
        qint64 startTicks = 0; // /proc/PID/stat start time, guards pid reuse
        QDateTime started;
        QJsonObject launcher;  // the launcher's own handle (opaque; see launcher.h)
    };
    QHash<QString, LiveWorker> readState(QString *socketPath = nullptr) const;
    bool writeState(const QHash<QString, LiveWorker> &workers, const QString &socketPath) const;

    // Start time of `pid` in clock ticks since boot (/proc/PID/stat field 22),
    // 0 when the process does not exist.
    static qint64 processStartTicks(qint64 pid);

    // Writes the long-format CSV (run,step,wall,metric,value) of `runs`.
    static bool exportCsv(const QString &path, const MetricStore &store,
                          const QList<QPair<RunId, QString>> &runs, QString *error);

private:
    QString m_root;
};

} // namespace trainyard
