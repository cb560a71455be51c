#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace trainyard {

// This machine's copy of a remote run's files in its local run folder
// (docs/remote.md#the-local-mirror): metrics.jsonl and worker.log as the
// host has them, byte for byte, appended from where the copy ends (the
// host's file is the record of truth: a copy longer than it is cut and
// read again), and the list of its checkpoints (which stay on the host) in
// RunStore::remoteCheckpointsFileName(). The runs table, plots, details, export and
// history read the local folder as they read any run's. Files are opened
// as run-folder files are: never through a link, only a regular file.
class RemoteMirror
{
public:
    enum class File {
        Metrics,
        Log
    };
    RemoteMirror() = default;
    explicit RemoteMirror(const QString &localDir);

    QString localDir() const { return m_dir; }
    // Bytes of the copy: where the next read from the host starts.
    qint64 offset(File file) const { return file == File::Metrics ? m_metrics : m_log; }
    // The host's file holds `remoteSize` bytes, `bytes` of them from
    // offset(file). A host's file shorter than the copy (made again there):
    // the copy is kept aside as NAME.before-cut-N, never emptied, and the
    // next poll reads the host's file from its start.
    bool apply(File file, qint64 remoteSize, const QByteArray &bytes, QString *error);
    // The host's checkpoints ("NAME SIZE MTIME" lines) and where they are.
    bool writeCheckpoints(const QString &host, const QString &remoteDir, const QStringList &lines,
                          QString *error) const;

    static QString fileName(File file);

private:
    qint64 &offsetRef(File file) { return file == File::Metrics ? m_metrics : m_log; }
    QString m_dir;
    qint64 m_metrics = 0;
    qint64 m_log = 0;
};

} // namespace trainyard
