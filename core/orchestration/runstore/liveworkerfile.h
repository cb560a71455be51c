#pragma once

#include "orchestration/devices/device.h"

#include <QDateTime>
#include <QHash>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace trainyard {

// The live workers of a runs root, persisted for reattachment:
// ROOT/.trainyard-state.json (mode 0600: pid, token and start time of every
// live worker, so a restarted orchestrator can reattach). Apart from the run
// folders: it is a claim about what may be signalled, not a run's output.
// RunStore answers for it too (readState, writeState, processStartTicks).
class LiveWorkerFile
{
public:
    struct Worker
    {
        qint64 pid = 0;
        QString token;
        Device device;
        qint64 startTicks = 0; // /proc/PID/stat start time, guards pid reuse
        QDateTime started;
        QJsonObject launcher; // the launcher's own handle (opaque; see launcher.h)
        QStringList command;  // the worker's command line (RunInfo::command)
        // Started without a socket (a batch job): its metrics.jsonl is its
        // channel. Absent in older state files: then `command` tells.
        std::optional<bool> followFile;
    };

    explicit LiveWorkerFile(const QString &root);

    // The file is a claim about what may be signalled: one that is not the
    // user's own regular file, or that others can write, is refused (empty,
    // the reason in `refusal`, logged): none of its runs is adopted.
    QHash<QString, Worker> read(QString *socketPath = nullptr, QString *refusal = nullptr) const;
    bool write(const QHash<QString, Worker> &workers, const QString &socketPath) const;

    // Start time of `pid` in clock ticks since boot (/proc/PID/stat field 22),
    // 0 when the process does not exist.
    static qint64 processStartTicks(qint64 pid);

private:
    QString m_root;
};

} // namespace trainyard
