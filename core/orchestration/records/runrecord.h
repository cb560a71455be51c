#pragma once

#include "orchestration/records/runinfo.h"
#include "orchestration/records/runnotes.h"

#include <QMap>
#include <QString>

#include <cstdint>
#include <limits>

namespace trainyard {

struct MetricRecord;
class MetricStore;

// A run as its folder tells it after the fact: spec.json, status.json,
// notes.json and what metrics.jsonl says in the end (last loss and step, the evaluations'
// last and best values, the done line). A value type, filled by
// RunStore::readRun()/readHistory() through the one metrics.jsonl reader;
// the runs table and `trainyard export` only format it.
struct RunRecord
{
    // One evaluation metric of one split over the run.
    struct Eval
    {
        double last = std::numeric_limits<double>::quiet_NaN();
        std::int64_t lastStep = -1;
        // Every metric the worker evaluates (MRR, Hits@k, accuracy) is
        // better higher.
        double best = std::numeric_limits<double>::quiet_NaN();
        std::int64_t bestStep = -1;
    };

    // name (spec.json's, else the folder's), spec (spec.json), runDir; what
    // status.json holds (state, exitCode, exitSignal, pid, device, started,
    // ended, message; exitCode from the done line when there is no
    // status.json); and from metrics.jsonl step, epoch and loss of the last
    // metric line, totalSteps, wall of the last line.
    RunInfo info;
    bool hasStatus = false; // status.json was read
    bool hasDone = false;   // metrics.jsonl has a done line
    QString doneStatus;     // its status (finished, failed, diverged, stopped)
    int doneExitCode = -1;
    QMap<QString, Eval> evals; // "<split>/<metric>": "valid/mrr", "test/accuracy"
    RunNotes notes;            // notes.json

    // What the run used, from the metric lines that report it: throughput
    // (samples_per_s: the last and the mean of the reports) and memory
    // (mem_bytes: the last in info.memBytes, the peak here); NaN and -1
    // when no line said.
    struct Usage
    {
        double lastSamplesPerSecond = std::numeric_limits<double>::quiet_NaN();
        double samplesPerSecondSum = 0;
        std::int64_t samplesPerSecondReports = 0;
        double peakMemBytes = -1;
        double meanSamplesPerSecond() const
        {
            return samplesPerSecondReports > 0 ? samplesPerSecondSum / double(samplesPerSecondReports)
                                               : std::numeric_limits<double>::quiet_NaN();
        }
    };
    Usage usage;

    qint64 metricsOffset = 0; // bytes of metrics.jsonl read (readRun continues from here)

    // status.json's state, else the done line's status, else "unknown".
    QString stateName() const;
    // The run's final word on `metric` ("mrr", "hits@10", "accuracy"): the
    // test split's when it has one, else that of the split evaluated last;
    // nullptr when no evaluation reported it.
    const Eval *finalEval(const QString &metric) const;

    // A run of the open experiment as the orchestrator and the metric store
    // tell it, without reading its folder: `info` (its state counts as
    // status.json's) and the last and best point of each "<split>/<metric>"
    // series; notes are the caller's to add (RunStore::readNotes).
    static RunRecord live(const RunInfo &info, const MetricStore &metrics);

    // Takes one record of metrics.jsonl into the summary, in file order;
    // what it does to `info` is applyRecord's, as for a live run.
    void add(const MetricRecord &record);
    // Forgets what metrics.jsonl said (the file was replaced).
    void clearMetrics();
};

} // namespace trainyard
