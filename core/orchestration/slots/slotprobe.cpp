#include "orchestration/slots/slotprobe.h"

#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/devices/device.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/ingest/ingestion.h"
#include "orchestration/launch/workerprocess.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"

#include <QDir>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace trainyard {

namespace {

QString key(const char *text)
{
    return QString::fromLatin1(text);
}

double median(QList<double> values)
{
    std::sort(values.begin(), values.end());
    const qsizetype n = values.size();
    return n % 2 ? values.at(n / 2) : 0.5 * (values.at(n / 2 - 1) + values.at(n / 2));
}

QString copiesText(int copies)
{
    return copies == 1 ? QStringLiteral("1 copy") : QStringLiteral("%1 copies").arg(copies);
}

} // namespace

// ---- SlotProbeResult -------------------------------------------------------

QJsonObject SlotProbeResult::toJson() const
{
    QJsonArray rows;
    for (const SlotProbeLevel &l : levels) {
        rows.append(QJsonObject{
            {key("copies"), l.copies}, {key("samples_per_s"), l.samplesPerSecond}, {key("ratio"), l.ratio}});
    }
    return QJsonObject{{key("device"), device},
                       {key("device_name"), deviceName},
                       {key("model"), model},
                       {key("steps"), steps},
                       {key("levels"), rows},
                       {key("recommended"), recommended},
                       {key("measured"), measured.toUTC().toString(Qt::ISODate)}};
}

bool SlotProbeResult::fromJson(const QJsonObject &json, SlotProbeResult *result, QString *error)
{
    auto bad = [&](const char *what) {
        if (error) {
            *error = QString::fromLatin1(what);
        }
        return false;
    };
    SlotProbeResult r;
    r.device = json.value(key("device")).toString();
    r.deviceName = json.value(key("device_name")).toString();
    r.model = json.value(key("model")).toString();
    if (r.deviceName.isEmpty()) {
        return bad("device_name: expected a non-empty string");
    }
    if (r.model.isEmpty()) {
        return bad("model: expected a non-empty string");
    }
    r.steps = json.value(key("steps")).toInt();
    r.recommended = json.value(key("recommended")).toInt(0);
    if (r.recommended < 1 || r.recommended > SlotProbe::kMaxCopies) {
        return bad("recommended: expected an integer from 1 to 16");
    }
    r.measured = QDateTime::fromString(json.value(key("measured")).toString(), Qt::ISODate);
    if (!r.measured.isValid()) {
        return bad("measured: expected an ISO 8601 date and time");
    }
    if (!json.value(key("levels")).isArray()) {
        return bad("levels: expected an array");
    }
    const QJsonArray rows = json.value(key("levels")).toArray();
    for (const QJsonValue &v : rows) {
        const QJsonObject o = v.toObject();
        SlotProbeLevel l;
        l.copies = o.value(key("copies")).toInt(0);
        l.samplesPerSecond = o.value(key("samples_per_s")).toDouble(-1);
        l.ratio = o.value(key("ratio")).toDouble(-1);
        if (l.copies < 1 || l.samplesPerSecond < 0 || l.ratio < 0) {
            return bad("levels[]: expected {\"copies\" ≥ 1, \"samples_per_s\" ≥ 0, \"ratio\" ≥ 0}");
        }
        r.levels.append(l);
    }
    *result = r;
    return true;
}

double SlotProbeResult::recommendedRatio() const
{
    for (const SlotProbeLevel &l : levels) {
        if (l.copies == recommended) {
            return l.ratio;
        }
    }
    return 1.0;
}

// ---- SlotProbe -------------------------------------------------------------

SlotProbe::SlotProbe(QObject *parent)
    : QObject(parent)
    , m_workerProgram(WorkerProcess::findWorkerProgram())
{
}

SlotProbe::~SlotProbe()
{
    teardown();
}

int SlotProbe::recommend(const QList<QPair<int, double>> &totals)
{
    if (totals.isEmpty()) {
        return 1;
    }
    int best = std::max(1, totals.first().first);
    double bestTotal = totals.first().second;
    for (qsizetype i = 1; i < totals.size(); ++i) {
        const int copies = totals.at(i).first;
        const double total = totals.at(i).second;
        if (copies <= best || !(bestTotal > 0)) {
            break;
        }
        const double needed = bestTotal * std::pow(kMinGainPerDoubling, std::log2(double(copies) / best));
        if (!(total >= needed)) {
            break;
        }
        best = copies;
        bestTotal = total;
    }
    return best;
}

QString SlotProbe::checkLevels(const QList<int> &levels)
{
    if (levels.isEmpty()) {
        return QStringLiteral("levels: expected at least one level");
    }
    if (levels.first() != 1) {
        return QStringLiteral("levels: must start with 1 (the baseline every ratio is measured against)");
    }
    for (qsizetype i = 0; i < levels.size(); ++i) {
        const int k = levels.at(i);
        if (k < 1 || k > kMaxCopies) {
            return QStringLiteral("levels: %1 is out of range (1 to %2 copies)").arg(k).arg(kMaxCopies);
        }
        if (i > 0 && k <= levels.at(i - 1)) {
            return QStringLiteral("levels: expected ascending distinct numbers, got %1 after %2")
                .arg(k)
                .arg(levels.at(i - 1));
        }
    }
    return {};
}

QJsonObject SlotProbe::probeSpec(const QJsonObject &spec, int steps)
{
    QJsonObject s = spec;
    s.remove(key("repeat"));
    s.insert(key("name"), key("probe"));
    QJsonObject train = s.value(key("train")).toObject();
    train.insert(key("max_steps"), steps);
    // Enough epochs that max_steps, not the data, ends training (1e6 is the worker's limit).
    train.insert(key("epochs"), 1000000);
    s.insert(key("train"), train);
    QJsonObject eval = s.value(key("eval")).toObject();
    eval.insert(key("every_epochs"), 0); // off, also at the end
    s.insert(key("eval"), eval);
    QJsonObject checkpoint = s.value(key("checkpoint")).toObject();
    checkpoint.insert(key("every_steps"), 0); // only at the end (and on stop)
    s.insert(key("checkpoint"), checkpoint);
    // The first metric line is warm-up and ignored: keep at least five.
    QJsonObject report = s.value(key("report")).toObject();
    const int every = report.value(key("every_steps")).toInt(10);
    if (every <= 0 || every > steps / 5) {
        report.insert(key("every_steps"), std::max(1, steps / 10));
    }
    s.insert(key("report"), report);
    return s;
}

bool SlotProbe::start(const QString &device, const QJsonObject &spec, const QList<int> &levels, int steps,
                      QString *error)
{
    auto refuse = [&](const QString &text) {
        if (error) {
            *error = text;
        }
        return false;
    };
    if (m_running) {
        return refuse(QStringLiteral("a slot probe is already running"));
    }
    const Device parsed = Device::parse(device);
    if (!parsed.isLocal()) {
        return refuse(QStringLiteral("device: expected cpu or cuda:N, got \"%1\"").arg(device));
    }
    const QString levelProblem = checkLevels(levels);
    if (!levelProblem.isEmpty()) {
        return refuse(levelProblem);
    }
    if (steps < 10) {
        return refuse(QStringLiteral("steps: expected at least 10, got %1").arg(steps));
    }
    const QString model = RunSpecView(spec).modelType();
    if (model.isEmpty()) {
        return refuse(QStringLiteral("model.type: missing (the spec must name its model)"));
    }
    QStringList problems = validateRunSpec(spec, QStringLiteral("spec"), true);
    if (problems.isEmpty()) { // what the probe changes must stay valid too
        problems = validateRunSpec(probeSpec(spec, steps), QStringLiteral("spec"), false);
    }
    if (!problems.isEmpty()) {
        return refuse(problems.join(QStringLiteral("; ")));
    }
    if (m_workerProgram.isEmpty()) {
        return refuse(
            QStringLiteral("trainyard-worker not found (set TRAINYARD_WORKER or install it beside trainyard)"));
    }

    QString deviceName = QStringLiteral("cpu");
    if (parsed.isCuda()) {
        DeviceInventory devices;
        if (!devices.hasDevice(device)) {
            return refuse(QStringLiteral("%1: no such GPU on this machine").arg(device));
        }
        deviceName = devices.device(device).name;
    }

    auto dir = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/trainyard-slot-probe-XXXXXX"));
    if (!dir->isValid()) {
        return refuse(QStringLiteral("cannot create a temporary folder: %1").arg(dir->errorString()));
    }

    m_dir = std::move(dir);
    m_device = parsed;
    m_spec = probeSpec(spec, steps);
    m_levels = levels;
    m_steps = steps;
    m_levelIndex = 0;
    m_lastPercent = -1;
    m_result = SlotProbeResult{};
    m_result.device = device;
    m_result.deviceName = deviceName;
    m_result.model = model;
    m_result.steps = steps;
    m_running = true;
    QTimer::singleShot(0, this, [this] {
        if (m_running && !m_session) {
            startLevel();
        }
    });
    return true;
}

QString SlotProbe::runsRoot() const
{
    return m_dir ? m_dir->path() : QString();
}

QList<qint64> SlotProbe::workerPids() const
{
    if (!m_session) {
        return {};
    }
    const QSet<qint64> pids = m_session->orchestrator()->supervisor()->workerPids();
    return QList<qint64>(pids.begin(), pids.end());
}

void SlotProbe::startLevel()
{
    const int copies = m_levels.at(m_levelIndex);
    Experiment ex;
    ex.name = QStringLiteral("slot-probe");
    ex.runsRoot = m_dir->filePath(QStringLiteral("level-%1").arg(copies));
    ExperimentLane lane;
    lane.device = m_device;
    lane.slotCount = copies;
    lane.runs.append(ExperimentRun{m_spec, copies});
    ex.lanes.append(lane);

    m_session = new Session(this);
    m_levelDone = false;
    QStringList errors;
    if (!m_session->open(ex, QString(), &errors)) {
        fail(errors.join(QLatin1Char('\n')));
        return;
    }
    Orchestrator *orchestrator = m_session->orchestrator();
    orchestrator->supervisor()->setWorkerProgram(m_workerProgram);
    // Queued: the session is torn down from these handlers, never inside
    // its own signal. The session pointer guards against a stale event.
    Session *session = m_session;
    connect(
        orchestrator->dispatcher(), &Dispatcher::runEnded, this,
        [this, session](RunId id, RunState state) {
            if (session != m_session || state == RunState::Finished) {
                return;
            }
            const RunInfo run = m_session->orchestrator()->runs()->value(id);
            fail(QStringLiteral("%1 %2 (%3 side by side on %4): %5")
                     .arg(run.name, runStateName(run.state))
                     .arg(copiesText(m_levels.at(m_levelIndex)))
                     .arg(m_device.toString(), run.message.isEmpty() ? QStringLiteral("no message") : run.message));
        },
        Qt::QueuedConnection);
    connect(
        orchestrator->dispatcher(), &Dispatcher::idle, this,
        [this, session] {
            if (session == m_session) {
                onLevelIdle();
            }
        },
        Qt::QueuedConnection);
    connect(orchestrator->ingestion(), &Ingestion::progressChanged, this, [this, session] {
        if (session == m_session) {
            onProgress();
        }
    });
    onProgress();
    orchestrator->dispatcher()->startAll();
}

void SlotProbe::onProgress()
{
    double doneWeight = 0, allWeight = 0;
    for (int i = 0; i < m_levels.size(); ++i) {
        allWeight += m_levels.at(i);
        if (i < m_levelIndex) {
            doneWeight += m_levels.at(i);
        }
    }
    double fraction = 0;
    if (m_session) {
        const QList<RunId> ids = m_session->orchestrator()->board()->runIds();
        for (RunId id : ids) {
            const RunInfo run = m_session->orchestrator()->runs()->value(id);
            const double done =
                run.state == RunState::Finished ? 1.0 : std::clamp(double(run.step) / m_steps, 0.0, 1.0);
            fraction += done / std::max<qsizetype>(1, ids.size());
        }
    }
    const int percent = static_cast<int>(100.0 * (doneWeight + fraction * m_levels.at(m_levelIndex)) / allWeight);
    if (percent == m_lastPercent) {
        return;
    }
    m_lastPercent = percent;
    Q_EMIT progress(m_levelIndex + 1, static_cast<int>(m_levels.size()), percent);
}

void SlotProbe::onLevelIdle()
{
    if (m_levelDone) {
        return;
    }
    m_levelDone = true;
    const int copies = m_levels.at(m_levelIndex);
    Orchestrator *orchestrator = m_session->orchestrator();
    double total = 0;
    for (RunId id : orchestrator->board()->runIds()) {
        const RunInfo run = orchestrator->runs()->value(id);
        if (run.state != RunState::Finished) {
            fail(QStringLiteral("%1 %2 (%3 side by side on %4): %5")
                     .arg(run.name, runStateName(run.state))
                     .arg(copiesText(copies))
                     .arg(m_device.toString(), run.message));
            return;
        }
        // The session already holds every metric line of the run, from the
        // socket and from metrics.jsonl. The first is warm-up: start-up,
        // first allocations, caches.
        const MetricSeries *series = m_session->metrics()->series(id, key("samples_per_s"));
        if (!series || series->size() < 2) {
            fail(QStringLiteral("%1 reported no samples_per_s after its first metric line in %2 steps "
                                "(the worker must report samples_per_s; raise the steps)")
                     .arg(run.name)
                     .arg(m_steps));
            return;
        }
        const QList<double> rates(series->values() + 1, series->values() + series->size());
        total += median(rates);
    }
    SlotProbeLevel level;
    level.copies = copies;
    level.samplesPerSecond = total;
    const double base = m_result.levels.isEmpty() ? total : m_result.levels.first().samplesPerSecond;
    level.ratio = base > 0 ? total / base : 0;
    m_result.levels.append(level);

    delete m_session; // nothing runs any more: closes without waiting
    m_session = nullptr;
    ++m_levelIndex;
    if (m_levelIndex < m_levels.size()) {
        startLevel();
        return;
    }
    QList<QPair<int, double>> totals;
    for (const SlotProbeLevel &l : std::as_const(m_result.levels)) {
        totals.append(qMakePair(l.copies, l.samplesPerSecond));
    }
    m_result.recommended = recommend(totals);
    m_result.measured = QDateTime::currentDateTimeUtc();
    teardown();
    Q_EMIT progress(static_cast<int>(m_levels.size()), static_cast<int>(m_levels.size()), 100);
    Q_EMIT finished(m_result);
}

void SlotProbe::fail(const QString &message)
{
    if (!m_running) {
        return;
    }
    teardown();
    Q_EMIT failed(message);
}

void SlotProbe::cancel()
{
    if (!m_running) {
        return;
    }
    teardown();
    Q_EMIT cancelled();
}

void SlotProbe::teardown()
{
    if (m_session) {
        Session *session = m_session;
        m_session = nullptr;
        session->orchestrator()->dispatcher()->killAll();
        session->close(false);
        delete session; // reaps the killed workers (synchronously, no event loop)
    }
    m_dir.reset(); // removes the temporary runs root
    m_running = false;
}

} // namespace trainyard
