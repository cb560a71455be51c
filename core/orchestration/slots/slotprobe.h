#pragma once

#include "orchestration/devices/device.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>

#include <memory>

class QTemporaryDir;

namespace trainyard {

class Session;

// One concurrency level of a slot probe: `copies` runs side by side and
// their summed throughput.
struct SlotProbeLevel
{
    int copies = 1;
    double samplesPerSecond = 0; // summed over the copies
    double ratio = 0;            // samplesPerSecond / that of one copy
};

// What a slot probe measured on one device for one model.
struct SlotProbeResult
{
    QString device;     // the lane's device as written: "cpu", "cuda:0"
    QString deviceName; // what identifies the hardware: the GPU's name, or "cpu"
    QString model;      // model.type of the probed spec
    int steps = 0;      // train.max_steps of every copy
    QList<SlotProbeLevel> levels;
    int recommended = 1;
    QDateTime measured;

    QJsonObject toJson() const;
    // False (and `*error` set) when `json` lacks a key or has a wrong value.
    static bool fromJson(const QJsonObject &json, SlotProbeResult *result, QString *error);
    // The ratio (vs one copy) of the recommended level; 1 when not measured.
    double recommendedRatio() const;
};

// Measures how many runs of one spec a device should hold at once: for
// each concurrency level k (1, 2, 4 by default) it trains k copies of the
// spec side by side on the device, each for a few steps with evaluation and
// checkpoints off, in a private temporary runs root that is removed
// afterwards. It drives an ordinary Session (one lane, k slots), so the
// copies get exactly the threads and environment the dispatcher would give
// them. Each copy's throughput is the median of its metric lines'
// `samples_per_s` after the first (warm-up) one; the copies' figures are
// summed per level. recommend() turns the totals into a slot count.
class SlotProbe : public QObject
{
    Q_OBJECT
public:
    // Each doubling of the runs side by side must raise the total
    // throughput by at least 25 %, or it is not worth it: every extra copy
    // costs device memory and makes each run (and its first curve) slower,
    // and a gain below that is within what a busy machine's noise and a
    // longer-running copy's tail can fake. With 1: 100, 2: 190, 4: 230 the
    // step to 2 pays (1.9×), the step to 4 (1.21×) does not.
    static constexpr double kMinGainPerDoubling = 1.25;
    static constexpr int kDefaultSteps = 300;
    static constexpr int kMaxCopies = 16;
    static QList<int> defaultLevels() { return {1, 2, 4}; }

    explicit SlotProbe(QObject *parent = nullptr);
    ~SlotProbe() override; // stops (kills) any copies still running

    // The worker program (default: the one the supervisor would use).
    void setWorkerProgram(const QString &program) { m_workerProgram = program; }

    // The largest level reached by steps that each pay: walking the levels
    // in order (`totals` are (copies, total samples/s), copies ascending),
    // level b is accepted after level a when
    // total_b ≥ total_a · kMinGainPerDoubling^log2(b/a); the first step
    // that does not pay ends the walk. 1 when nothing pays or the input is empty.
    static int recommend(const QList<QPair<int, double>> &totals);

    // Checks the levels (ascending, distinct, starting at 1, at most
    // kMaxCopies) and the spec; returns the problem, empty when fine.
    static QString checkLevels(const QList<int> &levels);

    // Starts probing; false (with `*error`) when the arguments are bad or
    // the device is missing. Results arrive through finished() / failed().
    bool start(const QString &device, const QJsonObject &spec, const QList<int> &levels = defaultLevels(),
               int steps = kDefaultSteps, QString *error = nullptr);
    // Stops every copy (SIGKILL: their results are thrown away), removes the
    // temporary folder and emits cancelled().
    void cancel();
    bool isRunning() const { return m_running; }

    // While running: the temporary runs root and the copies' worker pids.
    QString runsRoot() const;
    QList<qint64> workerPids() const;

    // The spec a copy trains: `spec` with train.max_steps = steps, epochs
    // large enough to reach it, evaluation and checkpoints off, and at least
    // five metric lines.
    static QJsonObject probeSpec(const QJsonObject &spec, int steps);

Q_SIGNALS:
    // `level` is 1-based; `percent` covers the whole probe.
    void progress(int level, int levelCount, int percent);
    void finished(const trainyard::SlotProbeResult &result);
    void failed(const QString &message);
    void cancelled();

private:
    void startLevel();
    void onLevelIdle();
    void onProgress();
    void fail(const QString &message);
    void teardown(); // kills copies, closes the session, removes the folder

    QString m_workerProgram;
    Device m_device;
    QJsonObject m_spec;
    QList<int> m_levels;
    int m_steps = kDefaultSteps;
    int m_levelIndex = 0;
    int m_lastPercent = -1;
    bool m_running = false;
    bool m_levelDone = false;
    SlotProbeResult m_result;
    std::unique_ptr<QTemporaryDir> m_dir;
    Session *m_session = nullptr;
};

} // namespace trainyard

Q_DECLARE_METATYPE(trainyard::SlotProbeResult)
