#pragma once

#include "orchestration/records/runinfo.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QTimer>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace trainyard {

struct MetricRecord;
class MetricStore;
class RunRegistry;
class RunStore;

// Everything a worker reports, into the run's record and the MetricStore:
// the socket's records as the server decoded them (metric, eval,
// heartbeat, log, done), and the gaps filled from metrics.jsonl
// (RunStore::readMetrics from where the last read stopped: on hello, at the
// end, at load). Keeps step, total steps, epoch, loss, the step rate and
// ETA up to date and batches progressChanged at ~30 Hz. Liveness and
// states are the Supervisor's: it hears of every line (setHeardHandler)
// and of hellos, and asks done() how a worker said it ended.
class Ingestion : public QObject
{
    Q_OBJECT
public:
    Ingestion(RunRegistry *runs, RunStore *store, MetricStore *metrics, QObject *parent = nullptr);
    ~Ingestion() override;

    // Every accepted socket message, decoded once by the server's
    // RecordDecoder: the server hands it here (the one hand-off before the
    // store). Each one tells the heard handler that its run is alive; a
    // hello goes to helloReceived, the rest into the record and the store.
    void handleRecord(RunId id, const MetricRecord &record);
    // Who hears, for every line, that a run spoke (the Supervisor's stall
    // watchdog): a call, not a signal, at the line rate.
    void setHeardHandler(std::function<void(RunId)> heard) { m_heard = std::move(heard); }
    // Reads metrics.jsonl from where the last read stopped (gap filling:
    // its log lines are not announced again).
    void ingestMetricsFile(RunId id);
    // The same for a run whose worker has no socket (a batch job: its file
    // on the shared filesystem is its only channel): log lines are
    // announced as they come. Returns the number of records read.
    int followMetricsFile(RunId id);
    // Such a run's file is read so every follow interval (1 s) until
    // unfollow() (or forget()), each read said by followed().
    void follow(RunId id) { m_followed.insert(id); }
    void unfollow(RunId id) { m_followed.erase(id); }
    void setFollowInterval(int ms) { m_follow.setInterval(ms); }
    // Why the run's metrics.jsonl was refused at the last read (a link, a
    // FIFO, ...: RunStore::readMetrics), and what keepReceived could not
    // keep, else empty.
    QString metricsFileProblem(RunId id) const;

    // A (re)start: the done line and the rate window are forgotten; `fresh`
    // also drops the curves and the progress (a resume keeps both, and sets
    // aside the lines kept from the socket: ReceivedMetrics).
    void beginRun(RunId id, bool fresh);
    // The run ended: its file read as ingestMetricsFile reads it, after the
    // points and done line that came over the socket but are in no file (a
    // full disk cut the worker's metrics.jsonl short) were kept in
    // ReceivedMetrics' file, which is read after it; where that fails, the
    // run's step goes back to the last one in a file and
    // metricsFileProblem() says which steps could not be kept. What the
    // socket still brings of the attempt after this is ignored until the
    // next beginRun: the file has it.
    void ingestEnded(RunId id);
    // The curves go (a retry from scratch); the file is read from its start.
    void resetCurves(RunId id);

    struct Done
    {
        bool seen = false;
        QString status; // "finished", "stopped", ...
        int exitCode = -1;
        // The rest of the evidence since the (re)start, for exitOutcome.
        qint64 lines = 0;              // records of any kind
        bool metricSeen = false;       // a metric line
        qint64 nonFiniteLossFrom = -1; // every loss NaN/inf from this step to the last; -1: finite or none
    };
    // The worker's "done" line, if one came (socket or file), and what else it reported.
    Done done(RunId id) const;

    void forget(RunId id); // the run left the board
    void clear();

Q_SIGNALS:
    // A worker said hello on the socket (it connected: the Supervisor's).
    void helloReceived(trainyard::RunId id, const trainyard::MetricRecord &hello);
    void progressChanged(const QList<trainyard::RunId> &ids); // batched, ~30 Hz
    // A followed run's file was read: `records` new ones (heartbeats are
    // lines too: a worker that writes is alive); `problem`, the file's
    // refusal (a link, a FIFO: RunStore::readMetrics), empty when none.
    void followed(trainyard::RunId id, int records, const QString &problem);

private:
    // One run's ingestion state beside its record.
    struct Run
    {
        explicit Run(RunId run)
            : id(run)
        {
        }
        RunId id;                 // its record is the registry's, changed through RunRegistry::update
        qint64 metricsOffset = 0; // metrics.jsonl read up to here
        bool doneSeen = false;
        QString doneStatus;
        int doneExit = -1;
        qint64 lines = 0;
        bool metricSeen = false;
        qint64 nonFiniteLossFrom = -1;
        bool progressDirty = false; // listed in m_progressDirty
        QString fileProblem;        // the last read's refusal of metrics.jsonl
        QString unkept;             // keepReceived's failure
        qint64 rateStep = -1;       // step and wall at the start of the rate window
        double rateWall = 0;
        // ingestEnded read its file: what the socket still brings of this
        // attempt is in the file already, and would cut the curve back.
        bool ended = false;
    };
    Run *find(RunId id);
    void flushProgress();
    void followFiles();
    int ingestMetricsFile(Run *run);
    void keepReceived(RunId id);
    void ingest(Run *run, const MetricRecord &record);
    // The run's record changed quietly: announced with the next progressChanged.
    void markProgress(Run *run);
    static void updateRate(Run *run, RunInfo &info);

    std::function<void(RunId)> m_heard;
    RunRegistry *m_runs;
    RunStore *m_store;
    MetricStore *m_metrics;
    std::map<RunId, Run> m_tracks;
    QList<RunId> m_progressDirty;
    QTimer m_progressTimer;
    std::set<RunId> m_followed; // runs without a socket (follow())
    QTimer m_follow;
};

} // namespace trainyard
