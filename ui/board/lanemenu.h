#pragma once

#include <QMenu>

namespace trainyard {

class BoardController;
class BoardModel;

/// The context menu of one lane: its name, its slot count, a measurement of
/// how many slots pay off (SlotProbeDialog), its device, adding and removing
/// lanes.
/// Every change is an undoable edit of the BoardController. Dialogs it opens
/// belong to the menu's parent window, so they outlive the menu.
class LaneMenu : public QMenu
{
    Q_OBJECT
public:
    /// `addLane` is the window's "Add lane…" action; `parent` the window.
    LaneMenu(int lane, BoardController *controller, BoardModel *board, QAction *addLane, QWidget *parent);

private:
    void addSlotsAction();
    void addMeasureAction();
    void addDeviceAction();
    void addRenameAction();

    int m_lane;
    BoardController *m_controller;
    BoardModel *m_board;
};

} // namespace trainyard
