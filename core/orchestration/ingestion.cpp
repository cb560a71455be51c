#include "ingestion.h"

#include "metricline.h"
#include "metricstore.h"
#include "protocol.h"
#include "runregistry.h"
#include "runstore.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace trainyard {

namespace {

// A count (step, epoch, total_steps) from a JSON number; -1 when it is not
// one (NaN, 1e300: casting those to an integer is undefined behaviour).
qint64 countFrom(const nlohmann::json &value)
{
    if (value.is_number_integer())
        return value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(INT64_MAX)
            ? -1 : value.get<qint64>();
    const double d = value.is_number() ? value.get<double>() : -1.0;
    return std::isfinite(d) && d >= 0 && d < 9.0e18 ? static_cast<qint64>(d) : -1;
}

} // namespace

Ingestion::Ingestion(RunRegistry *runs, RunStore *store, MetricStore *metrics, QObject *parent)
    : QObject(parent)
    , m_runs(runs)
    , m_store(store)
    , m_metrics(metrics)
{
    m_progressTimer.setSingleShot(true);
    m_progressTimer.setInterval(33);
    connect(&m_progressTimer, &QTimer::timeout, this, &Ingestion::flushProgress);
}

Ingestion::~Ingestion() = default;

Ingestion::Run *Ingestion::find(RunId id)
{
    auto it = m_tracks.find(id);
    if (it == m_tracks.end()) {
        RunInfo *info = m_runs->find(id);
        if (!info)
            return nullptr;
        it = m_tracks.try_emplace(id, *info).first;
    }
    return &it->second;
}

void Ingestion::beginRun(RunId id, bool fresh)
{
    Run *r = find(id);
    if (!r)
        return;
    if (fresh) {
        m_metrics->removeRun(id);
        r->metricsOffset = 0;
        r->info.step = r->info.epoch = r->info.totalSteps = -1;
        r->info.loss = std::numeric_limits<double>::quiet_NaN();
    }
    r->doneSeen = false;
    r->doneExit = -1;
    r->doneStatus.clear();
    r->rateStep = -1;
    r->info.stepsPerSecond = 0;
    r->info.etaSeconds = -1;
}

void Ingestion::resetCurves(RunId id)
{
    if (Run *r = find(id)) {
        m_metrics->removeRun(id);
        r->metricsOffset = 0;
    }
}

Ingestion::Done Ingestion::done(RunId id) const
{
    const auto it = m_tracks.find(id);
    if (it == m_tracks.end())
        return {};
    return Done{it->second.doneSeen, it->second.doneStatus, it->second.doneExit};
}

void Ingestion::forget(RunId id)
{
    m_tracks.erase(id);
    m_progressDirty.removeAll(id);
    m_metrics->removeRun(id);
}

void Ingestion::clear()
{
    m_tracks.clear();
    m_progressDirty.clear();
    m_progressTimer.stop();
    m_metrics->clear();
}

// ---- metrics ---------------------------------------------------------------

int Ingestion::metricIdFor(std::string_view key)
{
    // Short keys stay in std::string's inline buffer: no allocation here.
    std::string name(key);
    const auto it = m_metricIds.find(name);
    if (it != m_metricIds.end())
        return it->second;
    const int id = m_metrics->metricId(name.data(), name.size());
    m_metricIds.emplace(std::move(name), id);
    return id;
}

void Ingestion::handleMetric(RunId id, const MetricLine &line)
{
    Run *r = find(id);
    if (!r)
        return;
    ingestMetric(r, line.step, line.wall, line.fields.data(), line.fieldCount);
}

void Ingestion::ingestMetric(Run *r, std::int64_t step, double wall, const std::pair<std::string_view, double> *fields,
                             std::size_t count)
{
    const RunId id = r->info.id;
    for (std::size_t i = 0; i < count; ++i) {
        const std::string_view key = fields[i].first;
        const double value = fields[i].second;
        if (key == "total_steps") {
            r->info.totalSteps = std::isfinite(value) && value >= 0 && value < 9.0e18 ? static_cast<qint64>(value) : -1;
            continue;
        }
        if (key == "epoch")
            r->info.epoch = std::isfinite(value) && std::fabs(value) < 9.0e18 ? static_cast<qint64>(value) : -1;
        else if (key == "loss")
            r->info.loss = value;
        m_metrics->add(id, metricIdFor(key), step, wall, value);
    }
    if (step >= r->info.step) {
        r->info.step = step;
        r->info.wall = wall;
        updateRate(r);
    }
    if (!r->progressDirty) {
        r->progressDirty = true;
        m_progressDirty << id;
    }
    if (!m_progressTimer.isActive())
        m_progressTimer.start();
}

void Ingestion::handleMessage(RunId id, const nlohmann::json &message)
{
    Run *r = find(id);
    if (!r)
        return;
    ingest(r, message, true);
}

void Ingestion::ingest(Run *r, const nlohmann::json &message, bool live)
{
    const protocol::MessageType type = protocol::typeOf(message);
    const RunId id = r->info.id;
    if (type == protocol::MessageType::Metric) {
        const auto stepIt = message.find("step");
        if (stepIt == message.end() || !stepIt->is_number_integer())
            return;
        const std::int64_t step = stepIt->get<std::int64_t>();
        const auto wallIt = message.find("wall");
        const double wall = wallIt != message.end() && wallIt->is_number() ? wallIt->get<double>() : 0.0;
        std::pair<std::string_view, double> fields[MetricLine::kMaxFields];
        std::size_t count = 0;
        for (auto it = message.begin(); it != message.end() && count < MetricLine::kMaxFields; ++it) {
            if (!it->is_number() || it.key() == "step" || it.key() == "wall")
                continue;
            fields[count++] = {it.key(), it->get<double>()};
        }
        ingestMetric(r, step, wall, fields, count);
    } else if (type == protocol::MessageType::Eval) {
        const std::int64_t step = message.value("step", std::int64_t(0));
        const double wall = message.value("wall", 0.0);
        const std::string split = message.value("split", std::string("eval"));
        for (auto it = message.begin(); it != message.end(); ++it) {
            if (!it->is_number() || it.key() == "step" || it.key() == "wall")
                continue;
            m_metrics->add(id, metricIdFor(split + '/' + it.key()), step, wall, it->get<double>());
        }
    } else if (type == protocol::MessageType::Done) {
        r->doneSeen = true;
        r->doneStatus = QString::fromStdString(message.value("status", std::string()));
        r->doneExit = message.value("exit_code", -1);
    } else if (type == protocol::MessageType::Log && live) {
        emit logLine(id, QString::fromStdString(message.value("level", std::string("info"))),
                     QString::fromStdString(message.value("text", std::string())));
    } else if (type == protocol::MessageType::Heartbeat) {
        const auto it = message.find("total_steps");
        if (it != message.end() && it->is_number())
            r->info.totalSteps = countFrom(*it);
    }
}

void Ingestion::updateRate(Run *r)
{
    if (r->rateStep < 0 || r->info.wall < r->rateWall) {
        r->rateStep = r->info.step;
        r->rateWall = r->info.wall;
        return;
    }
    const double dt = r->info.wall - r->rateWall;
    if (dt < 1.0)
        return;
    const double rate = (r->info.step - r->rateStep) / dt;
    r->info.stepsPerSecond = r->info.stepsPerSecond > 0 ? 0.5 * r->info.stepsPerSecond + 0.5 * rate : rate;
    r->rateStep = r->info.step;
    r->rateWall = r->info.wall;
    if (r->info.totalSteps > 0 && r->info.stepsPerSecond > 0)
        r->info.etaSeconds = std::max<double>(0, r->info.totalSteps - r->info.step) / r->info.stepsPerSecond;
}

void Ingestion::flushProgress()
{
    if (m_progressDirty.isEmpty())
        return;
    const QList<RunId> ids = m_progressDirty;
    m_progressDirty.clear();
    for (RunId id : ids) {
        if (Run *r = find(id))
            r->progressDirty = false;
    }
    emit progressChanged(ids);
}

void Ingestion::ingestMetricsFile(RunId id)
{
    if (Run *r = find(id))
        ingestMetricsFile(r);
}

void Ingestion::ingestMetricsFile(Run *r)
{
    const RunStore::ReadResult result = m_store->readMetrics(r->info.name, r->metricsOffset, [&](const QByteArray &line) {
        nlohmann::json message = nlohmann::json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
        // The same checks as socket lines get: a line with a wrong type
        // (e.g. "exit_code":"x") would otherwise throw out of ingest().
        if (protocol::validate(message))
            ingest(r, message, false);
    });
    r->metricsOffset = result.offset;
    if (result.lines > 0 && !r->progressDirty) {
        r->progressDirty = true;
        m_progressDirty << r->info.id;
        m_progressTimer.start();
    }
}

} // namespace trainyard
