// MainWindow's actions (their shortcuts and icons) and where they appear:
// the menu bar, the tool bar and the board's context menus. What an action
// does is in mainwindow.cpp.

#include "app/mainwindow.h"

#include "app/recentfiles.h"
#include "app/sessioncontroller.h"
#include "board/boardcontroller.h"
#include "board/boardview.h"
#include "board/fallbackbanner.h"
#include "board/lanemenu.h"
#include "dispatch/scheduler.h"
#include "session/session.h"

#include <QAction>
#include <QFileDialog>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>

namespace trainyard {

void MainWindow::createActions()
{
    QStyle *s = style();
    auto make = [this](const QString &text, const QKeySequence &key, const QIcon &icon, auto slot) {
        auto *a = new QAction(icon, text, this);
        if (!key.isEmpty()) {
            a->setShortcut(key);
        }
        connect(a, &QAction::triggered, this, slot);
        addAction(a);
        return a;
    };
    m_newAction = make(tr("&New experiment"), QKeySequence::New, s->standardIcon(QStyle::SP_FileIcon),
                       [this] { newExperiment(); });
    m_openAction = make(tr("&Open…"), QKeySequence::Open, s->standardIcon(QStyle::SP_DialogOpenButton), [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open experiment"), QString(),
                                                          tr("Experiments (*.json);;All files (*)"));
        if (!path.isEmpty()) {
            openFile(path);
        }
    });
    m_saveAction = make(tr("&Save"), QKeySequence::Save, s->standardIcon(QStyle::SP_DialogSaveButton), [this] {
        if (session() && !session()->filePath().isEmpty()) {
            saveTo(session()->filePath());
        } else {
            m_saveAsAction->trigger();
        }
    });
    m_saveAsAction = make(tr("Save &as…"), QKeySequence::SaveAs, QIcon(), [this] {
        const QString name = session() ? session()->name() : QStringLiteral("experiment");
        QString path = QFileDialog::getSaveFileName(this, tr("Save experiment"), name + QLatin1String(".json"),
                                                    tr("Experiments (*.json)"));
        if (!path.isEmpty()) {
            if (!path.endsWith(QLatin1String(".json"))) {
                path += QLatin1String(".json");
            }
            saveTo(path);
        }
    });
    m_renameAction = make(tr("Re&name experiment…"), QKeySequence(), QIcon(), [this] {
        if (!session()) {
            return;
        }
        bool ok = false;
        const QString name = QInputDialog::getText(this, tr("Rename experiment"),
                                                   tr("Name (its runs folder follows when no run is active):"),
                                                   QLineEdit::Normal, session()->name(), &ok);
        if (ok && !name.trimmed().isEmpty() && m_sessions->rename(name)) {
            statusBar()->showMessage(tr("Renamed; runs in %1").arg(session()->runsRoot()), 8000);
        }
    });
    m_demoAction = make(tr("Open the &demo"), QKeySequence(), QIcon(), [this] { openDemo(); });
    m_quitAction = make(tr("&Quit"), QKeySequence::Quit, QIcon(), [this] { close(); });

    // The menu's Undo names the edit; the tool bar's keeps its width (its
    // tooltip names it), so the buttons after it never move under the mouse.
    m_undoAction = m_controller->createUndoAction(this, true);
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_undoAction->setIcon(s->standardIcon(QStyle::SP_ArrowBack));
    m_redoAction = m_controller->createRedoAction(this, true);
    m_redoAction->setShortcut(QKeySequence::Redo);
    m_redoAction->setIcon(s->standardIcon(QStyle::SP_ArrowForward));
    m_undoBarAction = m_controller->createUndoAction(this, false);
    m_undoBarAction->setIcon(m_undoAction->icon());
    m_undoBarAction->setObjectName(QStringLiteral("undoBarAction"));
    m_redoBarAction = m_controller->createRedoAction(this, false);
    m_redoBarAction->setIcon(m_redoAction->icon());
    addAction(m_undoAction);
    addAction(m_redoAction);
    m_addLaneAction = make(tr("Add &lane…"), QKeySequence(Qt::CTRL | Qt::Key_L), QIcon(), [this] { addLane(); });
    m_fallbackAction = make(tr("Run lanes of missing GPUs on the &CPU"), QKeySequence(), QIcon(), [this](bool on) {
        if (Scheduler *s = scheduler()) {
            s->setCpuFallback(on);
            m_banner->refresh(s, session()->devices());
        }
    });
    m_fallbackAction->setCheckable(true);

    m_startAllAction =
        make(tr("Start &all"), QKeySequence(Qt::Key_F5), s->standardIcon(QStyle::SP_MediaPlay), [this] { startAll(); });
    m_stopAllAction = make(tr("Sto&p all"), QKeySequence(Qt::SHIFT | Qt::Key_F5), s->standardIcon(QStyle::SP_MediaStop),
                           [this] { stopAll(); });
    m_startAction = make(tr("&Start"), QKeySequence(Qt::CTRL | Qt::Key_R), s->standardIcon(QStyle::SP_MediaPlay),
                         [this] { startSelected(); });
    m_stopAction = make(tr("S&top"), QKeySequence(Qt::CTRL | Qt::Key_Period), s->standardIcon(QStyle::SP_MediaStop),
                        [this] { stopSelected(); });
    m_pauseAction = make(tr("&Pause"), QKeySequence(Qt::CTRL | Qt::Key_P), s->standardIcon(QStyle::SP_MediaPause),
                         [this] { pauseSelected(); });
    m_resumeAction = make(tr("Res&ume"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P),
                          s->standardIcon(QStyle::SP_MediaSeekForward), [this] { resumeSelected(); });
    m_retryAction = make(tr("Re&try"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R),
                         s->standardIcon(QStyle::SP_BrowserReload), [this] { retrySelected(); });
    m_duplicateAction =
        make(tr("&Duplicate"), QKeySequence(Qt::CTRL | Qt::Key_D), QIcon(), [this] { duplicateSelected(); });
    m_duplicateManyAction = make(tr("Duplicate &×N…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), QIcon(),
                                 [this] { duplicateSelectedMany(); });
    m_removeAction =
        make(tr("&Remove"), QKeySequence::Delete, s->standardIcon(QStyle::SP_TrashIcon), [this] { removeSelected(); });
    m_editAction = make(tr("&Edit…"), QKeySequence(Qt::Key_F2), QIcon(), [this] { editSelected(); });
    m_folderAction = make(tr("Open run &folder"), QKeySequence(Qt::CTRL | Qt::Key_E),
                          s->standardIcon(QStyle::SP_DirOpenIcon), [this] { openRunFolder(); });
    m_logAction =
        make(tr("Show worker &log"), QKeySequence(Qt::CTRL | Qt::Key_G), QIcon(), [this] { showWorkerLog(); });
    m_detailsAction = make(tr("Det&ails…"), QKeySequence(Qt::CTRL | Qt::Key_I),
                           s->standardIcon(QStyle::SP_FileDialogInfoView), [this] { showSelectedDetails(); });
    // Card shortcuts act on the board, not while typing in a filter box (the
    // runs table has its own Ctrl+I).
    for (QAction *a :
         {m_startAction, m_stopAction, m_pauseAction, m_resumeAction, m_retryAction, m_duplicateAction,
          m_duplicateManyAction, m_removeAction, m_editAction, m_folderAction, m_logAction, m_detailsAction}) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        m_boardView->addAction(a);
    }
    // The window holds the table too: there Ctrl+I is the table's, for its current row.
    removeAction(m_detailsAction);
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_newAction);
    file->addAction(m_openAction);
    m_recent = new RecentFiles(file->addMenu(tr("Open &recent")), this);
    connect(m_recent, &RecentFiles::openRequested, this, [this](const QString &path) { openFile(path); });
    connect(m_sessions, &SessionController::fileUsed, m_recent, &RecentFiles::add);
    file->addAction(m_demoAction);
    file->addSeparator();
    file->addAction(m_saveAction);
    file->addAction(m_saveAsAction);
    file->addAction(m_renameAction);
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(m_undoAction);
    edit->addAction(m_redoAction);
    edit->addSeparator();
    edit->addAction(m_editAction);
    edit->addAction(m_duplicateAction);
    edit->addAction(m_duplicateManyAction);
    edit->addAction(m_removeAction);
    edit->addSeparator();
    edit->addAction(m_addLaneAction);
    edit->addAction(m_fallbackAction);

    QMenu *run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_startAllAction);
    run->addAction(m_stopAllAction);
    run->addSeparator();
    run->addAction(m_startAction);
    run->addAction(m_stopAction);
    run->addAction(m_pauseAction);
    run->addAction(m_resumeAction);
    run->addAction(m_retryAction);
    run->addSeparator();
    run->addAction(m_detailsAction);
    run->addAction(m_folderAction);
    run->addAction(m_logAction);

    QToolBar *bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(m_newAction);
    bar->addAction(m_openAction);
    bar->addAction(m_saveAction);
    bar->addSeparator();
    bar->addAction(m_undoBarAction);
    bar->addAction(m_redoBarAction);
    bar->addSeparator();
    bar->addAction(m_startAllAction);
    bar->addAction(m_stopAllAction);
    bar->addSeparator();
    bar->addAction(m_startAction);
    bar->addAction(m_stopAction);
    bar->addAction(m_pauseAction);
    bar->addAction(m_retryAction);
    bar->addAction(m_removeAction);
}

void MainWindow::showCardMenu(const QPoint &globalPos)
{
    QMenu menu(this);
    for (QAction *a : {m_startAction, m_stopAction, m_pauseAction, m_resumeAction, m_retryAction}) {
        menu.addAction(a);
    }
    menu.addSeparator();
    menu.addAction(m_editAction);
    menu.addAction(m_duplicateAction);
    menu.addAction(m_duplicateManyAction);
    menu.addAction(m_removeAction);
    menu.addSeparator();
    menu.addAction(m_detailsAction);
    menu.addAction(m_folderAction);
    menu.addAction(m_logAction);
    menu.addSeparator();
    menu.addAction(m_startAllAction);
    menu.addAction(m_stopAllAction);
    menu.exec(globalPos);
}

void MainWindow::showLaneMenu(int lane, const QPoint &globalPos)
{
    if (!scheduler()) {
        return;
    }
    LaneMenu menu(lane, m_controller, m_board, m_addLaneAction, this);
    menu.exec(globalPos);
}

} // namespace trainyard
