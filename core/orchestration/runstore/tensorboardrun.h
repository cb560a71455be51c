#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <functional>

namespace trainyard {

struct MetricRecord;

// A folder of TensorBoard event files, read as a past run: the runs table,
// the plots, Compare and `trainyard export` see it through RunStore, which
// turns to this when a folder holds an events file (events.out.tfevents.*)
// and none of a run folder's own files (metrics.jsonl, spec.json,
// status.json). Its scalars become the records metrics.jsonl gives: "loss"
// and any tag without a '/' a metric line's values ("loss" the loss curve),
// "split/name" an evaluation's ("valid/mrr"); their wall is seconds since
// the earliest first record of its files, the run's start. Read only:
// nothing is ever written into such a folder (RunStore refuses notes there).
class TensorBoardRun
{
public:
    // The events files of `dir`: regular files (no links) named
    // events.out.tfevents.*, by name (their writers put the time first).
    static QStringList eventFiles(const QString &dir);
    // Whether `dir` is a TensorBoard run, as above.
    static bool isRunFolder(const QString &dir);
    // Whether `dir` is a folder of TensorBoard runs: one of its subfolders
    // (not a link) is one, or it holds events files itself.
    static bool isLogsFolder(const QString &dir);
    // Its events files' bytes together: a change says they must be read again.
    static qint64 bytes(const QString &dir);

    struct Result
    {
        double startTime = 0; // seconds since 1970; 0 when no record was read
        // The hparams plugin's values, by their dotted keys ("train.lr"):
        // the run's parameters as a spec holds them.
        QJsonObject spec;
        qint64 bytes = 0;
        int records = 0;    // records handed on
        QStringList errors; // each damaged or refused file, naming it
    };
    // Reads every events file of `dir` in turn, then hands on its scalars
    // as records, in step order.
    static Result read(const QString &dir, const std::function<void(const MetricRecord &)> &record);
};

} // namespace trainyard
