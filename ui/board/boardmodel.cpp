#include "board/boardmodel.h"

#include "board/boardcontroller.h"
#include "board/devicehistory.h"
#include "common/mimetypes.h"
#include "common/uilogcategories.h"
#include "devices/deviceinventory.h"
#include "dispatch/scheduler.h"
#include "experiment/experiment.h"
#include "experiment/runspecview.h"
#include "metrics/metricstore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QMimeData>
#include <QUrl>

#include <cmath>

namespace trainyard {

namespace {
constexpr quintptr laneMarker = 0; // lanes carry 0, runs their RunId (> 0)

QVariantList toList(const QVector<double> &v)
{
    QVariantList out;
    out.reserve(v.size());
    for (double x : v) {
        out.append(x);
    }
    return out;
}
} // namespace

BoardModel::BoardModel(BoardController *controller, QObject *parent)
    : QAbstractItemModel(parent)
    , m_controller(controller)
{
    reloadSlotAdvice();
}

void BoardModel::reloadSlotAdvice()
{
    QString warning;
    if (!m_slotAdvice.load(&warning)) {
        qCWarning(lcUi).noquote() << warning;
    }
    if (rowCount() > 0) {
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, 0), {SlotAdviceRole});
    }
}

void BoardModel::setScheduler(Scheduler *scheduler, MetricStore *metrics, DeviceInventory *devices,
                              DeviceHistory *history)
{
    beginResetModel();
    if (m_scheduler) {
        disconnect(m_scheduler, nullptr, this, nullptr);
    }
    if (m_history) {
        disconnect(m_history, nullptr, this, nullptr);
    }
    m_scheduler = scheduler;
    m_metrics = metrics;
    m_devices = devices;
    m_history = history;
    if (m_scheduler) {
        connectScheduler();
    }
    if (m_history) {
        connect(m_history, &DeviceHistory::changed, this, [this] {
            if (rowCount() > 0) {
                Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, 0), {DeviceStatsRole, DeviceNameRole});
            }
        });
    }
    endResetModel();
}

void BoardModel::connectScheduler()
{
    Scheduler *s = m_scheduler;
    connect(s, &Scheduler::reset, this, [this] {
        beginResetModel();
        endResetModel();
    });
    connect(s, &Scheduler::laneAboutToBeAdded, this, [this](int i) { beginInsertRows({}, i, i); });
    connect(s, &Scheduler::laneAdded, this, [this](int) { endInsertRows(); });
    connect(s, &Scheduler::laneAboutToBeRemoved, this, [this](int i) { beginRemoveRows({}, i, i); });
    connect(s, &Scheduler::laneRemoved, this, [this](int) { endRemoveRows(); });
    connect(s, &Scheduler::laneChanged, this, [this](int i) {
        const QModelIndex lane = laneIndex(i);
        Q_EMIT dataChanged(lane, lane);
    });
    connect(s, &Scheduler::runAboutToBeAdded, this, [this](int lane, int position) {
        const QModelIndex parent = laneIndex(lane);
        const int row = position < 0 ? rowCount(parent) : position;
        beginInsertRows(parent, row, row);
    });
    connect(s, &Scheduler::runAdded, this, [this](RunId) { endInsertRows(); });
    connect(s, &Scheduler::runAboutToBeRemoved, this, [this](RunId id) {
        const int row = m_scheduler->position(id);
        beginRemoveRows(laneIndex(m_scheduler->run(id).lane), row, row);
    });
    connect(s, &Scheduler::runRemoved, this, [this](RunId) { endRemoveRows(); });
    connect(s, &Scheduler::runAboutToBeMoved, this,
            [this](RunId, int fromLane, int fromPosition, int toLane, int toPosition) {
                // The scheduler's toPosition is where the run ends up; Qt wants
                // the row before which it goes in the list as it is now.
                const int destination = fromLane == toLane && toPosition > fromPosition ? toPosition + 1 : toPosition;
                m_moving =
                    beginMoveRows(laneIndex(fromLane), fromPosition, fromPosition, laneIndex(toLane), destination);
            });
    connect(s, &Scheduler::runMoved, this, [this](RunId id) {
        if (m_moving) {
            endMoveRows();
            m_moving = false;
        }
        const QModelIndex index = runIndex(id);
        Q_EMIT dataChanged(index, index);
    });
    connect(s, &Scheduler::runChanged, this, &BoardModel::onRunChanged);
    connect(s, &Scheduler::progressChanged, this, &BoardModel::onProgress);
}

void BoardModel::onRunChanged(RunId id)
{
    const QModelIndex index = runIndex(id);
    if (index.isValid()) {
        Q_EMIT dataChanged(index, index);
        // A Slurm lane's header counts its pending and running jobs.
        const QModelIndex lane = index.parent();
        if (isSlurmDevice(lane.data(DeviceRole).toString())) {
            Q_EMIT dataChanged(lane, lane, {DeviceNameRole});
        }
    }
}

void BoardModel::onProgress(const QList<RunId> &ids)
{
    for (RunId id : ids) {
        const QModelIndex index = runIndex(id);
        if (index.isValid()) {
            Q_EMIT dataChanged(index, index, {ProgressRole, EtaRole, LossRole, LossHistoryRole, RunInfoRole});
        }
    }
}

QModelIndex BoardModel::laneIndex(int lane) const
{
    if (!m_scheduler || lane < 0 || lane >= m_scheduler->laneCount()) {
        return {};
    }
    return createIndex(lane, 0, laneMarker);
}

QModelIndex BoardModel::runIndex(RunId id) const
{
    if (!m_scheduler || !m_scheduler->contains(id)) {
        return {};
    }
    return createIndex(m_scheduler->position(id), 0, quintptr(id));
}

RunId BoardModel::runId(const QModelIndex &index) const
{
    return index.isValid() && index.internalId() != laneMarker ? RunId(index.internalId()) : 0;
}

QModelIndex BoardModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!m_scheduler || !hasIndex(row, column, parent)) {
        return {};
    }
    if (!parent.isValid()) {
        return createIndex(row, column, laneMarker);
    }
    const LaneInfo lane = m_scheduler->lane(parent.row());
    return createIndex(row, column, quintptr(lane.runs.at(row)));
}

QModelIndex BoardModel::parent(const QModelIndex &child) const
{
    if (!m_scheduler || !child.isValid() || child.internalId() == laneMarker) {
        return {};
    }
    return laneIndex(m_scheduler->run(RunId(child.internalId())).lane);
}

int BoardModel::rowCount(const QModelIndex &parent) const
{
    if (!m_scheduler) {
        return 0;
    }
    if (!parent.isValid()) {
        return m_scheduler->laneCount();
    }
    if (parent.column() != 0 || parent.internalId() != laneMarker) {
        return 0;
    }
    return int(m_scheduler->lane(parent.row()).runs.size());
}

int BoardModel::columnCount(const QModelIndex &) const
{
    return 1;
}

QVector<double> BoardModel::lossHistory(RunId id) const
{
    QVector<double> out;
    const MetricSeries *series = m_metrics ? m_metrics->series(id, QStringLiteral("loss")) : nullptr;
    if (!series || series->isEmpty()) {
        return out;
    }
    // The whole run in at most 48 bins (mean per bin): the card's sparkline.
    const std::size_t n = series->size();
    const std::size_t bins = std::min<std::size_t>(48, n);
    out.reserve(int(bins));
    for (std::size_t b = 0; b < bins; ++b) {
        const std::size_t i0 = n * b / bins;
        const std::size_t i1 = std::max(i0 + 1, n * (b + 1) / bins);
        // Long bins are sampled (at most 64 points each) so a huge run stays cheap.
        const std::size_t stride = std::max<std::size_t>(1, (i1 - i0) / 64);
        double sum = 0;
        int count = 0;
        for (std::size_t i = i0; i < i1; i += stride) {
            const double v = series->value(i);
            if (std::isfinite(v)) {
                sum += v;
                ++count;
            }
        }
        if (count > 0) {
            out.append(sum / count);
        }
    }
    return out;
}

QString BoardModel::toolTip(const RunInfo &run)
{
    QString text = run.message.isEmpty()
                       ? QStringLiteral("%1 (%2)").arg(run.name, runStateName(run.state))
                       : QStringLiteral("%1 (%2): %3").arg(run.name, runStateName(run.state), run.message);
    // The hyperparameters its spec sets (the defaults are in its details),
    // in the runs table's order; a long spec is cut, not the window.
    constexpr int kMaxLines = 14;
    QStringList lines;
    for (const RunSpecView::Param &p : RunSpecView(run.spec).flattened()) {
        if (p.key != QLatin1String("name")) {
            lines << QStringLiteral("%1 = %2").arg(p.key, RunSpecView::valueText(p.value));
        }
    }
    if (lines.size() > kMaxLines) {
        const int more = int(lines.size()) - kMaxLines;
        lines.resize(kMaxLines);
        lines << tr("… %n more in its details (Ctrl+I)", nullptr, more);
    }
    for (const QString &line : std::as_const(lines)) {
        text += QLatin1Char('\n') + line;
    }
    return text;
}

QVariant BoardModel::data(const QModelIndex &index, int role) const
{
    if (!m_scheduler || !index.isValid()) {
        return {};
    }
    if (index.internalId() == laneMarker) {
        const LaneInfo lane = m_scheduler->lane(index.row());
        const DeviceInfo device = m_devices ? m_devices->device(lane.effectiveDevice) : DeviceInfo{};
        switch (role) {
        case Qt::DisplayRole:
        case DeviceRole:
            return lane.device;
        case KindRole:
            return QStringLiteral("lane");
        case EffectiveDeviceRole:
            return lane.effectiveDevice;
        case DeviceNameRole:
            if (lane.effectiveDevice == QLatin1String("cpu")) {
                // What each of its runs gets, not what the machine has.
                const int threads = m_scheduler->threadsPerCpuRun();
                return threads == 1 ? tr("CPU · 1 thread per run") : tr("CPU · %1 threads per run").arg(threads);
            }
            if (QString cluster, partition; isSlurmDevice(lane.device, &cluster, &partition)) {
                int pending = 0;
                int running = 0;
                for (RunId id : lane.runs) {
                    const RunInfo r = m_scheduler->run(id);
                    pending += isActive(r.state) && !r.queueReason.isEmpty() ? 1 : 0;
                    running += isActive(r.state) && r.queueReason.isEmpty() && !r.jobId.isEmpty() ? 1 : 0;
                }
                return tr("Slurm · %1 · %2 · %3 pending · %4 running")
                    .arg(cluster, partition.isEmpty() ? tr("default partition") : partition)
                    .arg(pending)
                    .arg(running);
            }
            return device.name.isEmpty() ? lane.effectiveDevice : device.name;
        case SlotsRole:
            return lane.slotCount;
        case LaneIndexRole:
            return index.row();
        case SlotAdviceRole: {
            // Keyed like SlotProbe results: the GPU's name, or "cpu".
            const QString deviceName =
                lane.effectiveDevice == QLatin1String("cpu") ? lane.effectiveDevice : device.name;
            for (RunId id : lane.runs) {
                const RunInfo run = m_scheduler->run(id);
                if (run.state == RunState::Queued) {
                    const QString model = RunSpecView(run.spec).modelType();
                    const auto advice = m_slotAdvice.find(deviceName, model);
                    return advice ? SlotAdvice::summary(*advice) : QString();
                }
            }
            return QString();
        }
        case DeviceStatsRole: {
            QVariantMap stats{{QStringLiteral("utilization"), device.utilization},
                              {QStringLiteral("memoryUsed"), device.memoryUsed},
                              {QStringLiteral("memoryTotal"), device.memoryTotal},
                              {QStringLiteral("temperature"), device.temperature},
                              {QStringLiteral("isGpu"), device.isGpu},
                              {QStringLiteral("busyWithOthers"), device.busyWithOthers()}};
            if (m_history) {
                const DeviceHistory::Samples s = m_history->samples(lane.effectiveDevice);
                stats.insert(QStringLiteral("utilizationHistory"), toList(s.utilization));
                stats.insert(QStringLiteral("memoryHistory"), toList(s.memory));
                stats.insert(QStringLiteral("temperatureHistory"), toList(s.temperature));
            }
            return stats;
        }
        default:
            return {};
        }
    }
    const RunId id = RunId(index.internalId());
    const RunInfo run = m_scheduler->run(id);
    switch (role) {
    case Qt::DisplayRole:
        return run.name;
    case Qt::ToolTipRole:
        return toolTip(run);
    case KindRole:
        return QStringLiteral("run");
    case RunIdRole:
        return id;
    case RunInfoRole:
        return QVariant::fromValue(run);
    case StateRole:
        return int(run.state);
    case StateNameRole:
        // A held run waits for its own Start (it is not dispatched).
        return run.held && run.state == RunState::Queued ? tr("held") : runStateName(run.state);
    case ModelTypeRole:
        return RunSpecView(run.spec).kindLabel(); // a program run: its script
    case ProgressRole:
        if (run.state == RunState::Finished) {
            return 1.0;
        }
        return run.totalSteps > 0 && run.step >= 0 ? std::min(1.0, double(run.step) / double(run.totalSteps)) : -1.0;
    case EtaRole:
        return run.etaSeconds;
    case LossRole:
        return run.loss;
    case LossHistoryRole:
        return QVariant::fromValue(lossHistory(id));
    case DeviceRole:
        return run.device;
    case LaneIndexRole:
        return run.lane;
    default:
        return {};
    }
}

Qt::ItemFlags BoardModel::flags(const QModelIndex &index) const
{
    if (!index.isValid()) {
        return Qt::NoItemFlags;
    }
    if (index.internalId() == laneMarker) {
        return Qt::ItemIsEnabled | Qt::ItemIsDropEnabled;
    }
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled | Qt::ItemIsDropEnabled;
}

QStringList BoardModel::mimeTypes() const
{
    return {runCardsMimeType(), runSpecMimeType(), QStringLiteral("text/uri-list")};
}

QStringList BoardModel::droppedScripts(const QMimeData *data)
{
    QStringList scripts;
    if (!data || !data->hasUrls()) {
        return scripts;
    }
    for (const QUrl &url : data->urls()) {
        if (!url.isLocalFile() || !url.toLocalFile().endsWith(QLatin1String(".py"))) {
            return {}; // all Python scripts, or nothing
        }
        scripts << url.toLocalFile();
    }
    return scripts;
}

QMimeData *BoardModel::mimeData(const QModelIndexList &indexes) const
{
    QJsonArray ids;
    for (const QModelIndex &index : indexes) {
        const RunId id = runId(index);
        if (id && !ids.contains(id)) {
            ids.append(id);
        }
    }
    if (ids.isEmpty()) {
        return nullptr;
    }
    // The board's address tells a drop from this window from one from another.
    const QJsonObject payload{{QLatin1String("board"), QString::number(quintptr(this))}, {QLatin1String("runs"), ids}};
    auto *mime = new QMimeData;
    mime->setData(runCardsMimeType(), QJsonDocument(payload).toJson(QJsonDocument::Compact));
    return mime;
}

Qt::DropActions BoardModel::supportedDropActions() const
{
    return Qt::MoveAction | Qt::CopyAction;
}

Qt::DropActions BoardModel::supportedDragActions() const
{
    return Qt::MoveAction | Qt::CopyAction;
}

bool BoardModel::dropTarget(int row, const QModelIndex &parent, int *lane, int *position) const
{
    if (!m_scheduler || !parent.isValid()) {
        return false;
    }
    if (parent.internalId() == laneMarker) {
        *lane = parent.row();
        *position = row < 0 || row > rowCount(parent) ? rowCount(parent) : row;
        return true;
    }
    // Dropped onto a card: it goes before that card.
    *lane = m_scheduler->run(runId(parent)).lane;
    *position = parent.row();
    return *lane >= 0;
}

bool BoardModel::canDropMimeData(const QMimeData *data, Qt::DropAction action, int row, int,
                                 const QModelIndex &parent) const
{
    int lane = -1;
    int position = -1;
    if (!data || !dropTarget(row, parent, &lane, &position)) {
        return false;
    }
    if (data->hasFormat(runSpecMimeType()) || !droppedScripts(data).isEmpty()) {
        return action == Qt::CopyAction || action == Qt::MoveAction;
    }
    return data->hasFormat(runCardsMimeType()) && (action == Qt::CopyAction || action == Qt::MoveAction);
}

bool BoardModel::dropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column,
                              const QModelIndex &parent)
{
    if (!canDropMimeData(data, action, row, column, parent)) {
        return false;
    }
    int lane = -1;
    int position = -1;
    dropTarget(row, parent, &lane, &position);

    if (data->hasFormat(runSpecMimeType())) {
        const QJsonObject payload = QJsonDocument::fromJson(data->data(runSpecMimeType())).object();
        const QJsonObject spec = payload.value(QLatin1String("spec")).toObject();
        if (spec.isEmpty()) {
            reportError(tr("The dropped item carries no run spec."));
            return false;
        }
        return queueSpec(lane, position, spec, std::max(1, payload.value(QLatin1String("repeat")).toInt(1)));
    }

    if (!data->hasFormat(runCardsMimeType())) {
        // .py files from a file manager: `python3 FILE` each, in FILE's folder.
        bool queued = false;
        for (const QString &script : droppedScripts(data)) {
            queued = queueSpec(lane, position++, pythonScriptRunSpec(script), 1) || queued;
        }
        return queued;
    }

    const QJsonObject payload = QJsonDocument::fromJson(data->data(runCardsMimeType())).object();
    if (payload.value(QLatin1String("board")).toString() != QString::number(quintptr(this))) {
        reportError(tr("Cards can only be dropped in the window they come from."));
        return false;
    }
    QList<RunId> ids;
    for (const QJsonValue &v : payload.value(QLatin1String("runs")).toArray()) {
        ids.append(v.toInt());
    }
    // The edit is done here; the view must not remove the dragged rows itself.
    return action == Qt::CopyAction ? m_controller->copyRuns(ids, lane, position)
                                    : m_controller->moveRuns(ids, lane, position);
}

bool BoardModel::queueSpec(int lane, int position, QJsonObject spec, int repeat)
{
    if (!m_scheduler) {
        return false;
    }
    if (m_specEditor && !m_specEditor(&spec, &repeat)) {
        return false;
    }
    QList<RunId> ids;
    if (!m_controller->queueSpec(lane, position, spec, repeat, &ids)) {
        return false;
    }
    Q_EMIT runsQueued(ids);
    return true;
}

void BoardModel::reportError(const QString &message)
{
    qCInfo(lcUi) << "drop refused:" << message;
    Q_EMIT editFailed(message);
}

} // namespace trainyard
