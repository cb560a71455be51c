#pragma once

#include "orchestration/records/runinfo.h"

#include <QList>
#include <QObject>

class QAction;
class QPoint;

namespace trainyard {

class BoardController;
class BoardView;
class MainWindow;
class SessionController;

/// The main window's actions: their text, shortcuts and icons, where they
/// appear (the menu bar, the tool bar, the card menu) and when they are
/// enabled. What an action does is the window's: each calls a MainWindow
/// function.
class WindowActions : public QObject
{
    Q_OBJECT
public:
    /// The card actions act on `boardView` (their shortcuts only there).
    WindowActions(MainWindow *window, BoardController *controller, BoardView *boardView);

    /// The menu bar (with the recent files of `sessions`) and the tool bar;
    /// `compare` goes in the Run menu and the card menu, `openLogs`
    /// (TensorBoardLogs') in the File menu.
    void addMenus(SessionController *sessions, QAction *compare, const QList<QAction *> &logs);
    void showCardMenu(const QPoint &globalPos);
    /// Enables what applies: the board's actions when one is `open`, run
    /// control where it can act on one of the `selected` runs (their
    /// states; Pause also needs the run's connection).
    void update(bool open, const QList<RunInfo> &selected);

    QAction *saveAction() const { return m_saveAction; }
    QAction *addLaneAction() const { return m_addLaneAction; }
    QAction *fallbackAction() const { return m_fallbackAction; }
    QAction *runAfterAction() const { return m_runAfterAction; }

private:
    MainWindow *m_window;
    QAction *m_newAction = nullptr;
    QAction *m_openAction = nullptr;
    QAction *m_saveAction = nullptr;
    QAction *m_saveAsAction = nullptr;
    QAction *m_demoAction = nullptr;
    QAction *m_quitAction = nullptr;
    QAction *m_undoAction = nullptr;
    QAction *m_redoAction = nullptr;
    QAction *m_undoBarAction = nullptr;
    QAction *m_redoBarAction = nullptr;
    QAction *m_duplicateManyAction = nullptr;
    QAction *m_renameAction = nullptr;
    QAction *m_addRunAction = nullptr;
    QAction *m_addLaneAction = nullptr;
    QAction *m_addHostAction = nullptr;
    QAction *m_fallbackAction = nullptr;
    QAction *m_startAllAction = nullptr;
    QAction *m_stopAllAction = nullptr;
    QAction *m_startAction = nullptr;
    QAction *m_stopAction = nullptr;
    QAction *m_pauseAction = nullptr;
    QAction *m_resumeAction = nullptr;
    QAction *m_retryAction = nullptr;
    QAction *m_duplicateAction = nullptr;
    QAction *m_removeAction = nullptr;
    QAction *m_editAction = nullptr;
    QAction *m_runAfterAction = nullptr;
    QAction *m_folderAction = nullptr;
    QAction *m_logAction = nullptr;
    QAction *m_detailsAction = nullptr;
    QAction *m_compareAction = nullptr; ///< RunCompare's
};

} // namespace trainyard
