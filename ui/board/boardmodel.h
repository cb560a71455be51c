#pragma once

#include "orchestration/records/runinfo.h"
#include "ui/board/boarddrop.h"
#include "ui/board/lanestatus.h"

#include <QAbstractItemModel>
#include <QJsonObject>

#include <functional>

namespace trainyard {

class BoardController;
class DeviceHistory;
class DeviceInventory;
class ExperimentDocument;
class MetricStore;

/// The board as a two-level tree: lanes (rows at the top) holding their run
/// cards in queue order. It mirrors the open ExperimentDocument through its about-to/done
/// signals, and turns drops into edits it asks the BoardController for (which
/// makes them undoable): a run spec from the palette queues a run (after the
/// spec editor hook, when set), cards dropped on a lane or between cards move
/// there, and a copy drop (Ctrl) duplicates.
class BoardModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Roles {
        KindRole = Qt::UserRole, ///< "lane" or "run"
        RunIdRole,               ///< int
        RunInfoRole,             ///< RunInfo
        StateRole,               ///< int(RunState)
        StateNameRole,           ///< "queued", ...
        ModelTypeRole,           ///< "transe", ...
        ProgressRole,            ///< double in [0, 1], -1 unknown
        EtaRole,                 ///< seconds, -1 unknown
        LossRole,                ///< latest loss (NaN when none)
        LossHistoryRole,         ///< QVector<double>, thinned recent losses
        DeviceRole,              ///< lane: device as written; run: device it runs on
        EffectiveDeviceRole,     ///< lane: where runs really go
        DeviceNameRole,          ///< lane: "NVIDIA ..." or "CPU · 8 threads per run"
        SlotsRole,               ///< lane
        DeviceStatsRole,         ///< lane: QVariantMap utilization/memory/temperature (current + history lists)
        LaneIndexRole,           ///< int
        SlotAdviceRole,          ///< lane: remembered slot probe for its first queued run's model ("" if none)
        SweepRole,               ///< run: the sweep it is a trial of ("" if none)
        LaneTitleRole,           ///< lane: what it is called (its name, else its device, numbered: "cpu 2")
        LaneNameRole,            ///< lane: the user's name for it ("" if none)
        RoundsRole,              ///< lane: which round its rounds are at ("fed · round 3 of 5"; "" if none)
        GpuRowsRole,             ///< lane: a pool's GPUs, a QVariantMap each (LaneStatus::gpuRows); empty otherwise
    };

    /// Called before a run from the palette is queued; may edit the spec and
    /// repeat count, or return false to cancel (the app opens the run editor).
    using SpecEditor = std::function<bool(QJsonObject *spec, int *repeat)>;

    /// Drops become edits of `controller`, which must outlive the model.
    explicit BoardModel(BoardController *controller, QObject *parent = nullptr);

    /// Follows a document, its metrics and devices (nullptr: empty board).
    /// The model never owns it.
    void setDocument(ExperimentDocument *document, DeviceHistory *history);
    ExperimentDocument *document() const { return m_document; }
    DeviceInventory *devices() const { return m_devices; }
    void setSpecEditor(SpecEditor editor) { m_specEditor = std::move(editor); }
    BoardController *controller() const { return m_controller; }

    /// Re-reads the remembered slot probes (SlotAdvice) and repaints the lanes.
    void reloadSlotAdvice();

    QModelIndex laneIndex(int lane) const;
    QModelIndex runIndex(RunId id) const;
    RunId runId(const QModelIndex &index) const;

    /// Queues a run spec from the palette (what its drop does): the spec
    /// editor hook first, then the controller's undoable edit; runsQueued after.
    bool queueSpec(int lane, int position, QJsonObject spec, int repeat);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QStringList mimeTypes() const override;
    QMimeData *mimeData(const QModelIndexList &indexes) const override;
    bool canDropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column,
                         const QModelIndex &parent) const override;
    bool dropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column,
                      const QModelIndex &parent) override;
    Qt::DropActions supportedDropActions() const override;
    Qt::DropActions supportedDragActions() const override;

Q_SIGNALS:
    /// A drop was refused before it became an edit (foreign cards, no spec);
    /// refused edits come from BoardController::editFailed.
    void editFailed(const QString &message);
    /// Runs just queued from the palette (so the app can select them).
    void runsQueued(const QList<trainyard::RunId> &ids);

private:
    bool dropTarget(int row, const QModelIndex &parent, int *lane, int *position) const;
    void connectDocument();
    void onRunChanged(RunId id);
    void onProgress(const QList<RunId> &ids);
    void poolLanesChanged();
    void reportError(const QString &message);

    BoardController *m_controller;
    ExperimentDocument *m_document = nullptr;
    MetricStore *m_metrics = nullptr;
    DeviceInventory *m_devices = nullptr;
    DeviceHistory *m_history = nullptr;
    QList<QMetaObject::Connection> m_deviceConnections;
    SpecEditor m_specEditor;
    BoardDrop m_drop;   ///< the drag data of this board's cards, and drops
    LaneStatus m_lanes; ///< the lanes' device name, stats and slot advice
    bool m_moving = false;
};

} // namespace trainyard
