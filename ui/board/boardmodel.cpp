#include "ui/board/boardmodel.h"

#include "metrics/metricstore.h"
#include "orchestration/devices/device.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/runspec/runspecview.h"
#include "ui/board/boardcontroller.h"
#include "ui/board/cardtext.h"
#include "ui/board/devicehistory.h"
#include "ui/common/uilogcategories.h"

#include <QMimeData>

namespace trainyard {

namespace {
constexpr quintptr laneMarker = 0; // lanes carry 0, runs their RunId (> 0)
} // namespace

BoardModel::BoardModel(BoardController *controller, QObject *parent)
    : QAbstractItemModel(parent)
    , m_controller(controller)
    , m_drop(this)
{
    reloadSlotAdvice();
}

void BoardModel::reloadSlotAdvice()
{
    QString warning;
    if (!m_lanes.reloadSlotAdvice(&warning)) {
        qCWarning(lcUi).noquote() << warning;
    }
    if (rowCount() > 0) {
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, 0), {SlotAdviceRole});
    }
}

void BoardModel::setDocument(ExperimentDocument *document, DeviceHistory *history)
{
    beginResetModel();
    if (m_document) {
        disconnect(m_document, nullptr, this, nullptr);
    }
    if (m_history) {
        disconnect(m_history, nullptr, this, nullptr);
    }
    // By connection: the inventory may be gone with its session by now.
    for (const QMetaObject::Connection &c : std::as_const(m_deviceConnections)) {
        disconnect(c);
    }
    m_deviceConnections.clear();
    m_document = document;
    m_metrics = document ? document->metrics() : nullptr;
    m_devices = document ? document->devices() : nullptr;
    m_history = history;
    if (document) {
        m_lanes.setSources(
            document->runRecords(), [document] { return document->threadsPerCpuRun(); }, m_devices, history);
    } else {
        m_lanes.setSources(nullptr, {}, nullptr, history);
    }
    if (m_document) {
        connectDocument();
    }
    if (m_history) {
        connect(m_history, &DeviceHistory::changed, this, [this] {
            if (rowCount() > 0) {
                Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, 0), {DeviceStatsRole, DeviceNameRole});
            }
        });
    }
    if (m_devices) {
        // A pool's rows follow every poll, with or without a history.
        m_deviceConnections = {
            connect(m_devices, &DeviceInventory::devicesChanged, this, &BoardModel::poolLanesChanged),
            connect(m_devices, &DeviceInventory::remoteDevicesChanged, this, &BoardModel::poolLanesChanged)};
    }
    endResetModel();
}

void BoardModel::connectDocument()
{
    ExperimentDocument *s = m_document;
    connect(s, &ExperimentDocument::reset, this, [this] {
        beginResetModel();
        endResetModel();
    });
    connect(s, &ExperimentDocument::laneAboutToBeAdded, this, [this](int i) { beginInsertRows({}, i, i); });
    connect(s, &ExperimentDocument::laneAdded, this, [this](int) { endInsertRows(); });
    connect(s, &ExperimentDocument::laneAboutToBeRemoved, this, [this](int i) { beginRemoveRows({}, i, i); });
    connect(s, &ExperimentDocument::laneRemoved, this, [this](int) { endRemoveRows(); });
    // A lane changes on the board (device, slots) and where its runs really go (CPU fallback).
    const auto laneChanged = [this](int i) {
        const QModelIndex lane = laneIndex(i);
        Q_EMIT dataChanged(lane, lane);
    };
    connect(s, &ExperimentDocument::laneChanged, this, laneChanged);
    connect(s, &ExperimentDocument::runAboutToBeAdded, this, [this](int lane, int position) {
        const QModelIndex parent = laneIndex(lane);
        const int row = position < 0 ? rowCount(parent) : position;
        beginInsertRows(parent, row, row);
    });
    connect(s, &ExperimentDocument::runAdded, this, [this](RunId) { endInsertRows(); });
    connect(s, &ExperimentDocument::runAboutToBeRemoved, this, [this](RunId id) {
        const int row = m_document->position(id);
        beginRemoveRows(laneIndex(m_document->run(id).lane), row, row);
    });
    connect(s, &ExperimentDocument::runRemoved, this, [this](RunId) { endRemoveRows(); });
    connect(s, &ExperimentDocument::runAboutToBeMoved, this,
            [this](RunId, int fromLane, int fromPosition, int toLane, int toPosition) {
                // The board's toPosition is where the run ends up; Qt wants
                // the row before which it goes in the list as it is now.
                const int destination = fromLane == toLane && toPosition > fromPosition ? toPosition + 1 : toPosition;
                m_moving =
                    beginMoveRows(laneIndex(fromLane), fromPosition, fromPosition, laneIndex(toLane), destination);
            });
    connect(s, &ExperimentDocument::runMoved, this, [this](RunId id) {
        if (m_moving) {
            endMoveRows();
            m_moving = false;
        }
        const QModelIndex index = runIndex(id);
        Q_EMIT dataChanged(index, index);
    });
    connect(s, &ExperimentDocument::runChanged, this, &BoardModel::onRunChanged);
    connect(s, &ExperimentDocument::progressChanged, this, &BoardModel::onProgress);
}

void BoardModel::onRunChanged(RunId id)
{
    const QModelIndex index = runIndex(id);
    if (index.isValid()) {
        Q_EMIT dataChanged(index, index);
        // A Slurm lane's header counts its pending and running jobs.
        const QModelIndex lane = index.parent();
        if (m_document->lane(lane.row()).device.isSlurm()) {
            Q_EMIT dataChanged(lane, lane, {DeviceNameRole});
        }
    }
    // A run that starts or ends on a GPU changes the rows of every pool
    // holding it, whichever lane it came from.
    if (m_document->run(id).device.isGpu()) {
        poolLanesChanged();
    }
}

void BoardModel::poolLanesChanged()
{
    for (int i = 0; i < rowCount(); ++i) {
        if (m_document->lane(i).effectiveDevice.isPool()) {
            const QModelIndex lane = laneIndex(i);
            Q_EMIT dataChanged(lane, lane, {GpuRowsRole, DeviceNameRole});
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
    if (!m_document || lane < 0 || lane >= m_document->laneCount()) {
        return {};
    }
    return createIndex(lane, 0, laneMarker);
}

QModelIndex BoardModel::runIndex(RunId id) const
{
    if (!m_document || !m_document->hasRun(id)) {
        return {};
    }
    return createIndex(m_document->position(id), 0, quintptr(id));
}

RunId BoardModel::runId(const QModelIndex &index) const
{
    return index.isValid() && index.internalId() != laneMarker ? RunId(index.internalId()) : 0;
}

QModelIndex BoardModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!m_document || !hasIndex(row, column, parent)) {
        return {};
    }
    if (!parent.isValid()) {
        return createIndex(row, column, laneMarker);
    }
    const LaneInfo lane = m_document->lane(parent.row());
    return createIndex(row, column, quintptr(lane.runs.at(row)));
}

QModelIndex BoardModel::parent(const QModelIndex &child) const
{
    if (!m_document || !child.isValid() || child.internalId() == laneMarker) {
        return {};
    }
    return laneIndex(m_document->run(RunId(child.internalId())).lane);
}

int BoardModel::rowCount(const QModelIndex &parent) const
{
    if (!m_document) {
        return 0;
    }
    if (!parent.isValid()) {
        return m_document->laneCount();
    }
    if (parent.column() != 0 || parent.internalId() != laneMarker) {
        return 0;
    }
    return int(m_document->lane(parent.row()).runs.size());
}

int BoardModel::columnCount(const QModelIndex &) const
{
    return 1;
}

QVariant BoardModel::data(const QModelIndex &index, int role) const
{
    if (!m_document || !index.isValid()) {
        return {};
    }
    if (index.internalId() == laneMarker) {
        const LaneInfo lane = m_document->lane(index.row());
        switch (role) {
        case Qt::DisplayRole:
        case DeviceRole:
            return lane.device.toString();
        case KindRole:
            return QStringLiteral("lane");
        case EffectiveDeviceRole:
            return lane.effectiveDevice.toString();
        case DeviceNameRole:
            return m_lanes.deviceName(lane);
        case SlotsRole:
            return lane.slotCount;
        case LaneTitleRole:
            return lane.title;
        case LaneNameRole:
            return lane.name;
        case LaneIndexRole:
            return index.row();
        case SlotAdviceRole:
            return m_lanes.slotAdvice(lane);
        case RoundsRole:
            return m_lanes.rounds(lane);
        case DeviceStatsRole:
            return m_lanes.deviceStats(lane);
        case GpuRowsRole:
            return m_lanes.gpuRows(lane);
        default:
            return {};
        }
    }
    const RunId id = RunId(index.internalId());
    const RunInfo run = m_document->run(id);
    switch (role) {
    case Qt::DisplayRole:
        return run.name;
    case Qt::ToolTipRole:
        return CardText::toolTip(run);
    case KindRole:
        return QStringLiteral("run");
    case RunIdRole:
        return id;
    case RunInfoRole:
        return QVariant::fromValue(run);
    case StateRole:
        return int(run.state);
    case StateNameRole:
        return CardText::stateName(run);
    case ModelTypeRole:
        return RunSpecView(run.spec).kindLabel(); // a program run: its script
    case SweepRole:
        return run.sweep; // the sweep whose trial it is; empty for others
    case ProgressRole:
        return CardText::progress(run);
    case EtaRole:
        return run.etaSeconds;
    case LossRole:
        return run.loss;
    case LossHistoryRole:
        return QVariant::fromValue(
            CardText::lossHistory(m_metrics ? m_metrics->series(id, QStringLiteral("loss")) : nullptr));
    case DeviceRole:
        return run.device.toString();
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
    return BoardDrop::mimeTypes();
}

QMimeData *BoardModel::mimeData(const QModelIndexList &indexes) const
{
    QList<RunId> ids;
    for (const QModelIndex &index : indexes) {
        ids.append(runId(index));
    }
    return m_drop.encodeCards(ids);
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
    if (!m_document || !parent.isValid()) {
        return false;
    }
    if (parent.internalId() == laneMarker) {
        *lane = parent.row();
        *position = row < 0 || row > rowCount(parent) ? rowCount(parent) : row;
        return true;
    }
    // Dropped onto a card: it goes before that card.
    *lane = m_document->run(runId(parent)).lane;
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
    return BoardDrop::kind(data) != BoardDrop::Kind::None && (action == Qt::CopyAction || action == Qt::MoveAction);
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

    switch (BoardDrop::kind(data)) {
    case BoardDrop::Kind::Spec: {
        const BoardDrop::SpecDrop drop = BoardDrop::spec(data);
        if (drop.spec.isEmpty()) {
            reportError(tr("The dropped item carries no run spec."));
            return false;
        }
        return queueSpec(lane, position, drop.spec, drop.repeat);
    }
    case BoardDrop::Kind::Scripts: {
        // .py files from a file manager: `python3 FILE` each, in FILE's folder.
        bool queued = false;
        for (const QString &script : BoardDrop::scripts(data)) {
            queued = queueSpec(lane, position++, pythonScriptRunSpec(script), 1) || queued;
        }
        return queued;
    }
    case BoardDrop::Kind::Cards:
    case BoardDrop::Kind::None:
        break;
    }
    QList<RunId> ids;
    if (!m_drop.cards(data, &ids)) {
        reportError(tr("Cards can only be dropped in the window they come from."));
        return false;
    }
    // The edit is done here; the view must not remove the dragged rows itself.
    return action == Qt::CopyAction ? m_document->copyRuns(ids, lane, position)
                                    : m_document->moveRuns(ids, lane, position);
}

bool BoardModel::queueSpec(int lane, int position, QJsonObject spec, int repeat)
{
    if (!m_document) {
        return false;
    }
    // A name of its own before the editor shows it: the model's, a preset's
    // or a script's name may be another run's (the board refuses a taken one).
    const QString name = RunSpecView(spec).effectiveName();
    const QString free = m_document->uniqueName(name, repeat);
    if (!name.isEmpty() && free != name) {
        spec.insert(QStringLiteral("name"), free);
    }
    if (m_specEditor && !m_specEditor(&spec, &repeat)) {
        return false;
    }
    QList<RunId> ids;
    if (!m_document || !m_document->queueSpec(lane, position, spec, repeat, &ids)) {
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
