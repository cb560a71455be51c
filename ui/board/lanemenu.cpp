#include "ui/board/lanemenu.h"

#include "orchestration/devices/deviceinventory.h"
#include "orchestration/document/experimentdocument.h"
#include "ui/board/boardcontroller.h"
#include "ui/board/boardmodel.h"
#include "ui/board/devicechoices.h"
#include "ui/common/inputdialogs.h"
#include "ui/editors/slotprobedialog.h"

#include <QJsonObject>
#include <QLineEdit>
#include <QPointer>

namespace trainyard {

LaneMenu::LaneMenu(int lane, BoardController *controller, BoardModel *board, QAction *addLane, QWidget *parent)
    : QMenu(parent)
    , m_lane(lane)
    , m_controller(controller)
    , m_board(board)
{
    if (!m_controller->document()) {
        return;
    }
    addRenameAction();
    addSlotsAction();
    addMeasureAction();
    addDeviceAction();
    addAction(addLane);
    addAction(tr("Remove lane"), this, [this] {
        if (ExperimentDocument *document = m_controller->document()) {
            document->removeLane(m_lane);
        }
    });
}

void LaneMenu::addRenameAction()
{
    addAction(tr("Rename…"), this, [this] {
        const LaneInfo info = m_controller->document()->lane(m_lane);
        bool ok = false;
        const QString name =
            inputdialogs::getText(parentWidget(), tr("Rename lane %1").arg(info.title),
                                  tr("Name (empty: its device, %1)").arg(info.device.toString()), info.title, &ok);
        if (ok && m_controller->document()) {
            m_controller->document()->renameLane(m_lane, name.trimmed());
        }
    });
}

void LaneMenu::addSlotsAction()
{
    addAction(tr("Slots…"), this, [this] {
        bool ok = false;
        const LaneInfo info = m_controller->document()->lane(m_lane);
        const int slotCount = inputdialogs::getInt(parentWidget(), tr("Slots of lane %1").arg(info.title),
                                                   tr("Runs at once"), info.slotCount, 1, 64, &ok);
        if (ok && m_controller->document()) {
            m_controller->document()->editLane(m_lane, info.device.toString(), slotCount);
        }
    });
}

void LaneMenu::addMeasureAction()
{
    ExperimentDocument *document = m_controller->document();
    // Measures with the lane's first queued run (its model, data and batch size).
    QJsonObject probeSpec;
    for (RunId id : document->lane(m_lane).runs) {
        const RunInfo run = document->run(id);
        if (run.state == RunState::Queued) {
            probeSpec = run.spec;
            break;
        }
    }
    QAction *measure = addAction(tr("Measure slots…"), this, [this, document, probeSpec] {
        auto *dialog = new SlotProbeDialog(document->lane(m_lane).effectiveDevice.toString(), probeSpec,
                                           document->activeCount(), parentWidget());
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &SlotProbeDialog::adviceRecorded, m_board, &BoardModel::reloadSlotAdvice);
        BoardController *controller = m_controller;
        const QPointer<ExperimentDocument> session(document);
        const int lane = m_lane;
        connect(dialog, &SlotProbeDialog::setSlotsRequested, controller, [controller, session, lane](int slotCount) {
            if (!session || controller->document() != session || lane >= session->laneCount()) {
                return; // the board changed meanwhile
            }
            session->editLane(lane, session->lane(lane).device.toString(), slotCount);
        });
        dialog->open();
        dialog->start();
    });
    if (probeSpec.isEmpty()) {
        measure->setEnabled(false);
        measure->setToolTip(tr("Queue a run on this lane first: "
                               "the measurement trains copies of its first queued run"));
        setToolTipsVisible(true);
    } else {
        measure->setToolTip(tr("Train 1, 2 and 4 copies of the first queued run side by side on this lane's device "
                               "and recommend how many slots pay off"));
    }
}

void LaneMenu::addDeviceAction()
{
    addAction(tr("Device…"), this, [this] {
        bool ok = false;
        const LaneInfo info = m_controller->document()->lane(m_lane);
        const QStringList items =
            devicechoices::items(m_board->devices() ? m_board->devices()->devices() : QList<DeviceInfo>{});
        const QString device = devicechoices::device(
            inputdialogs::getItem(parentWidget(), tr("Device of lane %1").arg(info.title), devicechoices::label(),
                                  items, true, &ok, devicechoices::itemFor(info.device.toString(), items)));
        if (ok && !device.isEmpty() && m_controller->document()) {
            m_controller->document()->editLane(m_lane, device, info.slotCount);
        }
    });
}

} // namespace trainyard
