#include "ui/app/windowactions.h"

#include "orchestration/document/experimentdocument.h"
#include "orchestration/records/runinfo.h"
#include "orchestration/runspec/runspecview.h"
#include "ui/app/mainwindow.h"
#include "ui/app/recentfiles.h"
#include "ui/app/sessioncontroller.h"
#include "ui/board/boardcontroller.h"
#include "ui/board/boardview.h"
#include "ui/board/runafterdialog.h"
#include "ui/common/inputdialogs.h"
#include "ui/editors/addhostdialog.h"
#include "ui/palette/modelpalette.h"

#include <QAction>
#include <QFileDialog>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QTreeView>

#include <algorithm>

namespace trainyard {

WindowActions::WindowActions(MainWindow *window, BoardController *controller, BoardView *boardView)
    : QObject(window)
    , m_window(window)
{
    QStyle *s = window->style();
    auto make = [window](const QString &text, const QKeySequence &key, const QIcon &icon, auto slot) {
        auto *a = new QAction(icon, text, window);
        if (!key.isEmpty()) {
            a->setShortcut(key);
        }
        connect(a, &QAction::triggered, window, slot);
        window->addAction(a);
        return a;
    };
    m_newAction = make(tr("&New experiment"), QKeySequence::New, s->standardIcon(QStyle::SP_FileIcon),
                       [window] { window->newExperiment(); });
    m_openAction = make(tr("&Open…"), QKeySequence::Open, s->standardIcon(QStyle::SP_DialogOpenButton), [window] {
        const QString path = QFileDialog::getOpenFileName(window, tr("Open experiment"), QString(),
                                                          tr("Experiments (*.json);;All files (*)"));
        if (!path.isEmpty()) {
            window->openFile(path);
        }
    });
    m_saveAction = make(tr("&Save"), QKeySequence::Save, s->standardIcon(QStyle::SP_DialogSaveButton), [this, window] {
        if (window->document() && !window->document()->filePath().isEmpty()) {
            window->saveTo(window->document()->filePath());
        } else {
            m_saveAsAction->trigger();
        }
    });
    // Desktops without a Save As binding of their own (no KDE or GNOME
    // theme) get the usual Ctrl+Shift+S.
    const QKeySequence saveAs =
        QKeySequence::keyBindings(QKeySequence::SaveAs).value(0, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    m_saveAsAction = make(tr("Save &as…"), saveAs, QIcon(), [window] {
        const QString name = window->document() ? window->document()->name() : QStringLiteral("experiment");
        QString path = QFileDialog::getSaveFileName(window, tr("Save experiment"), name + QLatin1String(".json"),
                                                    tr("Experiments (*.json)"));
        if (!path.isEmpty()) {
            if (!path.endsWith(QLatin1String(".json"))) {
                path += QLatin1String(".json");
            }
            window->saveTo(path);
        }
    });
    m_renameAction = make(tr("Re&name experiment…"), QKeySequence(), QIcon(), [window] {
        ExperimentDocument *document = window->document();
        if (!document) {
            return;
        }
        bool ok = false;
        const QString name =
            inputdialogs::getText(window, tr("Rename experiment"),
                                  tr("Name (its runs folder follows when no run is active):"), document->name(), &ok);
        if (ok && !name.trimmed().isEmpty() && window->sessionController()->rename(name)) {
            window->statusBar()->showMessage(tr("Renamed; runs in %1").arg(document->runsRoot()), 8000);
        }
    });
    m_demoAction = make(tr("Open the &demo"), QKeySequence(), QIcon(), [window] { window->openDemo(); });
    m_quitAction = make(tr("&Quit"), QKeySequence::Quit, QIcon(), [window] { window->close(); });

    // The menu's Undo names the edit; the tool bar's keeps its width (its
    // tooltip names it), so the buttons after it never move under the mouse.
    m_undoAction = controller->createUndoAction(window, true);
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_undoAction->setIcon(s->standardIcon(QStyle::SP_ArrowBack));
    m_redoAction = controller->createRedoAction(window, true);
    m_redoAction->setShortcut(QKeySequence::Redo);
    m_redoAction->setIcon(s->standardIcon(QStyle::SP_ArrowForward));
    m_undoBarAction = controller->createUndoAction(window, false);
    m_undoBarAction->setIcon(m_undoAction->icon());
    m_undoBarAction->setObjectName(QStringLiteral("undoBarAction"));
    m_redoBarAction = controller->createRedoAction(window, false);
    m_redoBarAction->setIcon(m_redoAction->icon());
    window->addAction(m_undoAction);
    window->addAction(m_redoAction);
    m_addLaneAction =
        make(tr("Add &lane…"), QKeySequence(Qt::CTRL | Qt::Key_L), QIcon(), [window] { window->addLane(); });
    m_addRunAction = make(tr("Add ru&n"), QKeySequence(Qt::CTRL | Qt::Key_Return), QIcon(), [window] {
        if (!window->palette()->queueCurrent()) { // nothing picked yet: the palette, to pick one
            window->palette()->view()->setFocus(Qt::ShortcutFocusReason);
            window->statusBar()->showMessage(tr("Pick a model in the Models list, then press Return."), 8000);
        }
    });
    m_addRunAction->setToolTip(
        tr("Queue the model picked in the Models list on the selected card's lane, else the first"));
    m_addHostAction = make(tr("Add &host…"), QKeySequence(), QIcon(),
                           [window, controller] { AddHostDialog::addTo(controller, window); });
    m_fallbackAction = make(tr("Run lanes of missing GPUs on the &CPU"), QKeySequence(), QIcon(),
                            [window](bool on) { window->setCpuFallback(on); });
    m_fallbackAction->setCheckable(true);

    m_startAllAction = make(tr("Start &all"), QKeySequence(Qt::Key_F5), s->standardIcon(QStyle::SP_MediaPlay),
                            [window] { window->startAll(); });
    m_stopAllAction = make(tr("Sto&p all"), QKeySequence(Qt::SHIFT | Qt::Key_F5), s->standardIcon(QStyle::SP_MediaStop),
                           [window] { window->stopAll(); });
    m_startAction = make(tr("&Start"), QKeySequence(Qt::CTRL | Qt::Key_R), s->standardIcon(QStyle::SP_MediaPlay),
                         [window] { window->startSelected(); });
    m_stopAction = make(tr("S&top"), QKeySequence(Qt::CTRL | Qt::Key_Period), s->standardIcon(QStyle::SP_MediaStop),
                        [window] { window->stopSelected(); });
    m_pauseAction = make(tr("&Pause"), QKeySequence(Qt::CTRL | Qt::Key_P), s->standardIcon(QStyle::SP_MediaPause),
                         [window] { window->pauseSelected(); });
    m_resumeAction = make(tr("Res&ume"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P),
                          s->standardIcon(QStyle::SP_MediaSeekForward), [window] { window->resumeSelected(); });
    m_retryAction = make(tr("Re&try"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R),
                         s->standardIcon(QStyle::SP_BrowserReload), [window] { window->retrySelected(); });
    m_duplicateAction =
        make(tr("&Duplicate"), QKeySequence(Qt::CTRL | Qt::Key_D), QIcon(), [window] { window->duplicateSelected(); });
    m_duplicateManyAction = make(tr("Duplicate &×N…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), QIcon(),
                                 [window] { window->duplicateSelectedMany(); });
    m_removeAction = make(tr("&Remove"), QKeySequence::Delete, s->standardIcon(QStyle::SP_TrashIcon),
                          [window] { window->removeSelected(); });
    m_editAction = make(tr("&Edit…"), QKeySequence(Qt::Key_F2), QIcon(), [window] { window->editSelected(); });
    m_runAfterAction = make(tr("Run a&fter…"), QKeySequence(), QIcon(), [window, controller, boardView] {
        const QList<RunId> selected = boardView->selectedRuns();
        if (selected.size() == 1) {
            RunAfterDialog::ask(controller, selected.first(), window);
        }
    });
    m_runAfterAction->setObjectName(QStringLiteral("runAfterAction"));
    m_folderAction = make(tr("Open run &folder"), QKeySequence(Qt::CTRL | Qt::Key_E),
                          s->standardIcon(QStyle::SP_DirOpenIcon), [window] { window->openRunFolder(); });
    m_logAction = make(tr("Show worker &log"), QKeySequence(Qt::CTRL | Qt::Key_G), QIcon(),
                       [window] { window->showWorkerLog(); });
    m_detailsAction = make(tr("Det&ails…"), QKeySequence(Qt::CTRL | Qt::Key_I),
                           s->standardIcon(QStyle::SP_FileDialogInfoView), [window] { window->showSelectedDetails(); });
    // Card shortcuts act on the board, not while typing in a filter box (the
    // runs table has its own Ctrl+I).
    for (QAction *a : {m_startAction, m_stopAction, m_pauseAction, m_resumeAction, m_retryAction, m_duplicateAction,
                       m_duplicateManyAction, m_removeAction, m_editAction, m_runAfterAction, m_folderAction,
                       m_logAction, m_detailsAction}) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        boardView->addAction(a);
    }
    // The window holds the table too: there Ctrl+I is the table's, for its current row.
    window->removeAction(m_detailsAction);
}

void WindowActions::addMenus(SessionController *sessions, QAction *compare, const QList<QAction *> &logs)
{
    m_compareAction = compare;
    MainWindow *w = m_window;
    QMenu *file = w->menuBar()->addMenu(tr("&File"));
    file->addAction(m_newAction);
    file->addAction(m_openAction);
    auto *recent = new RecentFiles(file->addMenu(tr("Open &recent")), this);
    connect(recent, &RecentFiles::openRequested, w, [w](const QString &path) { w->openFile(path); });
    connect(sessions, &SessionController::fileUsed, recent, &RecentFiles::add);
    file->addAction(m_demoAction);
    file->addActions(logs); // TensorBoard logs: open, close
    file->addSeparator();
    file->addAction(m_saveAction);
    file->addAction(m_saveAsAction);
    file->addAction(m_renameAction);
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu *edit = w->menuBar()->addMenu(tr("&Edit"));
    edit->addAction(m_undoAction);
    edit->addAction(m_redoAction);
    edit->addSeparator();
    edit->addAction(m_editAction);
    edit->addAction(m_runAfterAction);
    edit->addAction(m_duplicateAction);
    edit->addAction(m_duplicateManyAction);
    edit->addAction(m_removeAction);
    edit->addSeparator();
    edit->addAction(m_addRunAction);
    edit->addAction(m_addLaneAction);
    edit->addAction(m_addHostAction);
    edit->addAction(m_fallbackAction);

    QMenu *run = w->menuBar()->addMenu(tr("&Run"));
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
    run->addAction(m_compareAction);
    run->addAction(m_folderAction);
    run->addAction(m_logAction);

    QToolBar *bar = w->addToolBar(tr("Main"));
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
    bar->addAction(m_resumeAction);
    bar->addAction(m_retryAction);
    bar->addAction(m_removeAction);
}

void WindowActions::showCardMenu(const QPoint &globalPos)
{
    QMenu menu(m_window);
    for (QAction *a : {m_startAction, m_stopAction, m_pauseAction, m_resumeAction, m_retryAction}) {
        menu.addAction(a);
    }
    menu.addSeparator();
    menu.addAction(m_editAction);
    menu.addAction(m_runAfterAction);
    menu.addAction(m_duplicateAction);
    menu.addAction(m_duplicateManyAction);
    menu.addAction(m_removeAction);
    menu.addSeparator();
    menu.addAction(m_detailsAction);
    menu.addAction(m_compareAction);
    menu.addAction(m_folderAction);
    menu.addAction(m_logAction);
    menu.addSeparator();
    menu.addAction(m_startAllAction);
    menu.addAction(m_stopAllAction);
    menu.exec(globalPos);
}

void WindowActions::update(bool open, const QList<RunInfo> &runs)
{
    QList<RunState> selected;
    for (const RunInfo &run : runs) {
        selected << run.state;
    }
    for (QAction *a : {m_saveAction, m_saveAsAction, m_renameAction, m_addRunAction, m_addLaneAction, m_addHostAction,
                       m_startAllAction, m_stopAllAction, m_fallbackAction}) {
        a->setEnabled(open);
    }
    for (QAction *a : {m_duplicateAction, m_duplicateManyAction, m_removeAction, m_editAction, m_folderAction,
                       m_logAction, m_detailsAction}) {
        a->setEnabled(!selected.isEmpty());
    }
    // Run control only where it can act on one of the selected runs (Pause
    // looked enabled on a diverged run).
    const auto any = [&selected](auto can) { return std::any_of(selected.cbegin(), selected.cend(), can); };
    m_startAction->setEnabled(any([](RunState s) { return s == RunState::Queued || s == RunState::Stopped; }));
    m_stopAction->setEnabled(any([](RunState s) { // queued or waiting: cancel
        return isActive(s) || s == RunState::Queued || s == RunState::Waiting;
    }));
    // One run at a time: the names it may run after are its own.
    m_runAfterAction->setEnabled(selected.size() == 1 && !isActive(selected.first()));
    // Pause asks the run through its connection: a program without the
    // trainyard module never has one, nor has a batch job without a socket.
    const auto running = [](const RunInfo &r) { return r.state == RunState::Running || r.state == RunState::Stalled; };
    const auto pausable =
        std::find_if(runs.cbegin(), runs.cend(), [&](const RunInfo &r) { return running(r) && r.connected; });
    const auto unreachable =
        std::find_if(runs.cbegin(), runs.cend(), [&](const RunInfo &r) { return running(r) && !r.connected; });
    m_pauseAction->setEnabled(pausable != runs.cend());
    QString why;
    if (pausable == runs.cend() && unreachable != runs.cend()) {
        why = RunSpecView(unreachable->spec).isProgram()
                  ? tr("%1 cannot pause: it does not use the trainyard module, so Trainyard cannot ask it to")
                  : tr("%1 cannot pause: it has no connection to Trainyard to be asked through");
        why = why.arg(unreachable->name);
    }
    m_pauseAction->setToolTip(why); // empty: the action's own text
    m_resumeAction->setEnabled(any([](RunState s) { return s == RunState::Paused || s == RunState::Stopped; }));
    m_retryAction->setEnabled(any([](RunState s) { return isTerminal(s); }));
}

} // namespace trainyard
