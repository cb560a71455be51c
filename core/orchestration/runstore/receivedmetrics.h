#pragma once

#include "metrics/metricslogreader.h"
#include "orchestration/records/runinfo.h"

#include <QByteArray>
#include <QString>

namespace trainyard {

class MetricStore;

// A run's lines that reached the app over the socket but are in no file of
// the run: a disk that filled (a host's runs_root, whose metrics.jsonl the
// mirror here copies byte for byte) stopped the worker's file short,
// perhaps in a torn line, while it trained on and reported. They are kept
// beside metrics.jsonl in metrics.received.jsonl, which every reader of the
// run's metrics reads after it (RunStore::readMetrics: one offset across
// both files, the same line reader). Its first line is a warning log record
// saying so and naming the torn line, which no reader takes. A resume in
// the same folder sets it aside (NAME.before-resume-N): the resumed worker
// reports the steps after its checkpoint again.
class ReceivedMetrics
{
public:
    static QString fileName();
    // metrics.jsonl of `dir` from `offset`, then this file (offsets past
    // metrics.jsonl's size are in it).
    static MetricsLogReader::Result read(const QString &dir, qint64 offset,
                                         const MetricsLogReader::RecordCallback &record);
    // The step of metrics.jsonl's last complete metric line (-1: none) and
    // whether a done line follows it: read from its end.
    static void lastInFile(const QString &dir, qint64 *step, bool *done);
    // Bytes of both: where a read that took everything ends.
    static qint64 bytes(const QString &dir);
    // The marker and `lines` as the file (never through a link, never over
    // one); false with `error`, nothing left half-written.
    static bool write(const QString &dir, qint64 fileStep, const QByteArray &lines, QString *error);
    // The file kept aside as NAME.before-resume-N; true when there was one.
    static bool setAside(const QString &dir);
    // JSON lines of `run`'s points in `store` after step `afterStep` (metric
    // lines, eval lines for "split/name" points).
    static QByteArray linesAfter(const MetricStore &store, RunId run, qint64 afterStep, qint64 totalSteps);
    static QByteArray doneLine(const QString &status, int exitCode);
};

} // namespace trainyard
