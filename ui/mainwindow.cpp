#include "mainwindow.h"

#include "autosave.h"
#include "boardcontroller.h"
#include "boardmodel.h"
#include "boardview.h"
#include "devicehistory.h"
#include "deviceinventory.h"
#include "fallbackbanner.h"
#include "lanemenu.h"
#include "logcategories.h"
#include "metricstore.h"
#include "modelpalette.h"
#include "modelpalettemodel.h"
#include "plotfeeder.h"
#include "plotwidget.h"
#include "presetstore.h"
#include "recentfiles.h"
#include "runcolors.h"
#include "runcontrol.h"
#include "rundetailsdialog.h"
#include "runeditordialog.h"
#include "runnotifier.h"
#include "runstore.h"
#include "runtablemodel.h"
#include "runtablepanel.h"
#include "scheduler.h"
#include "session.h"
#include "workerprocess.h"

#include <QAction>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>
#include <QUndoStack>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace trainyard {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_controller(new BoardController(this))
    , m_sessions(new SessionController(m_controller, this))
    , m_colors(new RunColors)
    , m_history(new DeviceHistory(this))
    , m_presets(new PresetStore(QString(), this))
    , m_board(new BoardModel(m_controller, this))
    , m_boardView(new BoardView(m_board, m_colors, this))
    , m_paletteModel(new ModelPaletteModel(m_presets, this))
    , m_palette(new ModelPalette(m_paletteModel, this))
    , m_plot(new PlotWidget(m_colors, this))
    , m_feeder(new PlotFeeder(m_plot, this))
    , m_table(new RunTableModel(this))
    , m_tablePanel(new RunTablePanel(m_table, this))
    , m_tabs(new QTabWidget(this))
    , m_finishLabel(new QLabel(this))
    , m_banner(new FallbackBanner(this))
    , m_runControl(new RunControl(m_sessions, m_boardView, this))
    , m_notifier(new RunNotifier(m_sessions, this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/trainyard/icons/trainyard-256.png")));
    createLayout();
    m_plot->rememberSettings(); // the app's plots keep the user's settings; tools' plots do not

    connect(m_boardView, &BoardView::selectionChanged, this, [this](const QList<RunId> &ids) {
        m_feeder->setSelection(ids);
        updateActions();
    });
    connect(m_boardView, &BoardView::cardContextMenuRequested, this, &MainWindow::showCardMenu);
    connect(m_boardView, &BoardView::laneContextMenuRequested, this, &MainWindow::showLaneMenu);
    connect(m_boardView, &BoardView::runActivated, this, [this](RunId) { editSelected(); });
    connect(m_board, &BoardModel::editFailed, this, &MainWindow::showBoardError);
    connect(m_controller, &BoardController::editFailed, this, &MainWindow::showBoardError);
    connect(m_board, &BoardModel::runsQueued, this, [this](const QList<RunId> &ids) { m_boardView->selectRuns(ids); });
    m_board->setSpecEditor(
        [this](QJsonObject *spec, int *repeat) { return !m_editorEnabled || editSpec(spec, repeat, true); });
    connect(m_palette, &ModelPalette::specActivated, this, [this](const QJsonObject &spec, int repeat) {
        // Double-click: queue on the lane of the selected card, else the first lane.
        const QList<RunId> selected = m_boardView->selectedRuns();
        const int lane = selected.isEmpty() || !scheduler() ? 0 : scheduler()->run(selected.first()).lane;
        m_board->queueSpec(lane, -1, spec, repeat);
    });
    connect(m_tablePanel, &RunTablePanel::runsSelected, m_boardView, &BoardView::selectRuns);
    connect(m_tablePanel, &RunTablePanel::detailsRequested, this, [this](int row) { showTableRunDetails(row); });
    connect(m_tablePanel, &RunTablePanel::plotToggleRequested, this, [this](int row) { togglePastRunPlot(row); });
    m_tablePanel->setPlottedQuery([this](int row) {
        const RunRecord *past = m_table->pastRun(row);
        return past && m_feeder->isPinned(past->info.runDir);
    });
    connect(m_runControl, &RunControl::runsChanged, this, &MainWindow::updateActions);

    m_sessions->setCloseChooser([this] { return askHowToClose(); });
    m_sessions->setUnsavedChooser([this] { return askAboutUnsavedEdits(); });
    m_sessions->setRecoveryChooser(
        [this](const QString &name, const QDateTime &savedAt) { return askAboutRecovery(name, savedAt); });
    m_autosave = new Autosave(m_sessions, m_controller, this);
    connect(m_sessions, &SessionController::sessionOpened, this, &MainWindow::attachSession);
    connect(m_sessions, &SessionController::sessionAboutToClose, this, &MainWindow::detachSession);
    connect(m_sessions, &SessionController::sessionClosed, this, &MainWindow::updateActions);
    connect(m_sessions, &SessionController::titleChanged, this, &QWidget::setWindowTitle);
    connect(m_sessions, &SessionController::openFailed, this, [this](const QString &message) {
        QMessageBox::warning(this, tr("Open experiment"), message);
        updateActions();
    });
    connect(m_sessions, &SessionController::saveFailed, this,
            [this](const QString &message) { QMessageBox::warning(this, tr("Save experiment"), message); });
    connect(m_sessions, &SessionController::renameFailed, this,
            [this](const QString &message) { QMessageBox::warning(this, tr("Rename experiment"), message); });
    connect(m_sessions, &SessionController::saved, this,
            [this](const QString &path) { statusBar()->showMessage(tr("Saved %1").arg(path), 5000); });

    createActions();
    createMenus();
    m_table->setHistoryRoots({QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)});
    resize(1500, 940);
    updateActions();
}

MainWindow::~MainWindow()
{
    // Stops the runs of a session still open; the views let go of its
    // objects first (detachSession).
    m_sessions->closeWithoutAsking();
    delete m_colors;
}

void MainWindow::createLayout()
{
    // Board on top, plots and the run table below.
    auto *boardBox = new QWidget(this);
    auto *boardLayout = new QVBoxLayout(boardBox);
    boardLayout->setContentsMargins(0, 0, 0, 0);
    boardLayout->setSpacing(0);
    boardLayout->addWidget(m_banner);
    boardLayout->addWidget(m_boardView, 1);

    m_tabs->addTab(m_plot, tr("Plots"));
    m_tabs->addTab(m_tablePanel, tr("Runs"));
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
        if (m_tabs->widget(index) == m_tablePanel) {
            m_table->refreshHistory();
        }
    });

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(boardBox);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({420, 480});
    setCentralWidget(splitter);

    auto *dock = new QDockWidget(tr("Models"), this);
    dock->setObjectName(QStringLiteral("paletteDock"));
    dock->setWidget(m_palette);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    resizeDocks({dock}, {190}, Qt::Horizontal);

    m_finishLabel->setObjectName(QStringLiteral("finishCount"));
    statusBar()->addPermanentWidget(m_finishLabel);
}

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

QString MainWindow::workerProgram() const
{
    return scheduler() ? scheduler()->workerProgram() : WorkerProcess::findWorkerProgram();
}

void MainWindow::loadCatalog()
{
    auto *loader = new ModelCatalogLoader(this);
    connect(loader, &ModelCatalogLoader::loaded, this, [this, loader](const ModelCatalog &catalog) {
        setCatalog(catalog);
        loader->deleteLater();
    });
    connect(loader, &ModelCatalogLoader::failed, this, [this, loader](const QString &message) {
        m_palette->setProblem(tr("Cannot list the worker's models: %1").arg(message));
        loader->deleteLater();
    });
    const QString program = workerProgram();
    if (program.isEmpty()) {
        m_palette->setProblem(
            tr("trainyard-worker was not found (beside this program, on PATH, or in $TRAINYARD_WORKER)."));
        loader->deleteLater();
        return;
    }
    loader->load(program);
}

void MainWindow::setCatalog(const ModelCatalog &catalog)
{
    m_catalog = catalog;
    m_paletteModel->setCatalog(catalog);
    m_table->setCatalog(catalog);
    m_palette->setProblem(QString());
}

void MainWindow::attachSession(Session *session, const QStringList &warnings)
{
    Scheduler *scheduler = session->scheduler();
    m_history->setInventory(session->devices());
    m_board->setScheduler(scheduler, session->metrics(), session->devices(), m_history);
    m_feeder->setSource(scheduler, session->metrics());
    m_table->setSession(session->name(), session->runsRoot(), scheduler, session->metrics());
    connect(scheduler, &Scheduler::finishCountChanged, this, &MainWindow::updateFinishCount);
    connect(scheduler, &Scheduler::runChanged, this, [this] { updateActions(); });
    connect(scheduler, &Scheduler::warning, this,
            [this](const QString &text) { statusBar()->showMessage(text, 15000); });
    m_fallbackAction->setChecked(!scheduler->missingDeviceLanes().isEmpty());
    scheduler->setCpuFallback(m_fallbackAction->isChecked());
    m_banner->refresh(scheduler, session->devices());
    updateFinishCount();
    updateActions();
    // Show the first lane's runs in the plot so it is never empty on open.
    const QList<RunId> ids = scheduler->runIds();
    if (!ids.isEmpty()) {
        m_boardView->selectRuns(scheduler->lane(0).runs);
    }
    if (!warnings.isEmpty()) {
        statusBar()->showMessage(warnings.join(QLatin1String("; ")), 15000);
    }
}

void MainWindow::detachSession(Session *session)
{
    // A closing session may still report its runs' ends: not to this window.
    session->scheduler()->disconnect(this);
    m_board->setScheduler(nullptr, nullptr, nullptr, nullptr);
    m_feeder->setSource(nullptr, nullptr);
    m_table->setSession(QString(), QString(), nullptr, nullptr);
    m_history->setInventory(nullptr);
    m_banner->refresh(nullptr, nullptr);
}

Scheduler *MainWindow::scheduler() const
{
    return session() ? session()->scheduler() : nullptr;
}

void MainWindow::setCloseChooser(std::function<CloseChoice()> chooser)
{
    // Where a program answers the closing question, nobody is there for the others.
    m_runControl->setConfirmStart(!chooser);
    m_closeChooser = std::move(chooser);
}

MainWindow::CloseChoice MainWindow::askHowToClose()
{
    if (m_closeChooser) {
        return m_closeChooser();
    }
    Session *session = this->session();
    QMessageBox box(
        QMessageBox::Question, tr("Runs are training"),
        tr("%n run(s) of %1 are still training.", nullptr, session->scheduler()->activeCount()).arg(session->name()),
        QMessageBox::NoButton, this);
    box.setInformativeText(tr("Stop them (each saves a checkpoint first), or leave them running? "
                              "Runs left running go on without the window; opening this experiment "
                              "again reattaches to them."));
    QPushButton *stop = box.addButton(tr("Stop runs"), QMessageBox::DestructiveRole);
    QPushButton *leaveButton = box.addButton(tr("Leave running"), QMessageBox::AcceptRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(leaveButton);
    box.exec();
    return box.clickedButton() == stop          ? CloseChoice::StopRuns
           : box.clickedButton() == leaveButton ? CloseChoice::LeaveRunning
                                                : CloseChoice::Cancel;
}

bool MainWindow::askAboutRecovery(const QString &name, const QDateTime &savedAt)
{
    if (m_recoveryChooser) {
        return m_recoveryChooser(name, savedAt);
    }
    if (m_closeChooser) {
        return false; // scripted (tests, screenshots): nobody is there to ask
    }
    QMessageBox box(QMessageBox::Question, tr("Recover unsaved edits"),
                    tr("%1 has board edits from %2 that were never saved (Trainyard did not close normally).")
                        .arg(name, QLocale().toString(savedAt, QLocale::ShortFormat)),
                    QMessageBox::NoButton, this);
    QPushButton *recover = box.addButton(tr("Recover"), QMessageBox::AcceptRole);
    box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
    box.setDefaultButton(recover);
    box.exec();
    return box.clickedButton() == recover;
}

MainWindow::UnsavedChoice MainWindow::askAboutUnsavedEdits()
{
    if (m_unsavedChooser) {
        return m_unsavedChooser();
    }
    if (m_closeChooser) {
        return UnsavedChoice::Discard; // closing is scripted: nobody is there to ask
    }
    QMessageBox box(QMessageBox::Warning, tr("Unsaved changes"),
                    tr("The board of %1 has changes that are not saved.").arg(session()->name()),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setInformativeText(tr("Save them before closing? Runs keep their folders either way; "
                              "only the board's edits are at stake."));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save:
        m_saveAction->trigger(); // asks for a file when the board has none; cancelling that cancels the close
        return m_controller->isClean() ? UnsavedChoice::Save : UnsavedChoice::Cancel;
    case QMessageBox::Discard:
        return UnsavedChoice::Discard;
    default:
        return UnsavedChoice::Cancel;
    }
}

void MainWindow::updateFinishCount()
{
    if (!scheduler()) {
        m_finishLabel->clear();
        return;
    }
    // Paused runs hold their slot but do not train: counted apart.
    int paused = 0;
    for (RunId id : scheduler()->runIds()) {
        paused += scheduler()->run(id).state == RunState::Paused ? 1 : 0;
    }
    const int running = scheduler()->activeCount() - paused;
    QString text = finishCountText();
    if (running > 0) {
        text += tr(" · %n running", nullptr, running);
    }
    if (paused > 0) {
        text += tr(" · %n paused", nullptr, paused);
    }
    m_finishLabel->setText(text);
}

void MainWindow::updateActions()
{
    const bool open = session() != nullptr;
    const bool selected = open && !m_boardView->selectedRuns().isEmpty();
    for (QAction *a : {m_saveAction, m_saveAsAction, m_renameAction, m_addLaneAction, m_startAllAction, m_stopAllAction,
                       m_fallbackAction}) {
        a->setEnabled(open);
    }
    for (QAction *a : {m_duplicateAction, m_duplicateManyAction, m_removeAction, m_editAction, m_folderAction,
                       m_logAction, m_detailsAction}) {
        a->setEnabled(selected);
    }
    // Run control only where it can act on one of the selected runs (Pause
    // looked enabled on a diverged run).
    QList<RunState> states;
    if (selected) {
        for (RunId id : m_boardView->selectedRuns()) {
            states << scheduler()->run(id).state;
        }
    }
    const auto any = [&states](auto can) { return std::any_of(states.cbegin(), states.cend(), can); };
    m_startAction->setEnabled(any([](RunState s) { return s == RunState::Queued || s == RunState::Stopped; }));
    m_stopAction->setEnabled(any([](RunState s) { return isActive(s) || s == RunState::Queued; })); // queued: cancel
    m_pauseAction->setEnabled(any([](RunState s) { return s == RunState::Running || s == RunState::Stalled; }));
    m_resumeAction->setEnabled(any([](RunState s) { return s == RunState::Paused || s == RunState::Stopped; }));
    m_retryAction->setEnabled(any([](RunState s) { return isTerminal(s); }));
    updateFinishCount();
}

void MainWindow::showBoardError(const QString &message)
{
    statusBar()->showMessage(message, 15000);
    if (isVisible() && !m_closeChooser) {
        QMessageBox::information(this, tr("Board"), message);
    }
}

bool MainWindow::editSpec(QJsonObject *spec, int *repeat, bool repeatEditable, const QString &editedRun, bool asNewRun)
{
    RunEditorDialog dialog(m_catalog, *spec, *repeat, this);
    dialog.setPresetStore(m_presets);
    dialog.setWorkerProgram(workerProgram()); // the program that will run it checks its data
    dialog.setRepeatEditable(repeatEditable);
    if (!editedRun.isEmpty() && !asNewRun) {
        dialog.setAcceptText(tr("Apply")); // an edit of a queued run, not a new one
        // Its name may stay; another run's would be refused after the dialog closed.
        QStringList taken;
        for (RunId id : scheduler()->runIds()) {
            if (scheduler()->run(id).name != editedRun) {
                taken << scheduler()->run(id).name;
            }
        }
        dialog.setTakenNames(taken);
    } else if (asNewRun) {
        dialog.setAcceptText(tr("Queue as new run"));
    }
    if (dialog.exec() != QDialog::Accepted) {
        return false;
    }
    *spec = dialog.spec();
    *repeat = dialog.repeat();
    return true;
}

void MainWindow::duplicateSelected()
{
    if (scheduler()) {
        m_controller->duplicateRuns(m_boardView->selectedRuns());
    }
}

bool MainWindow::togglePastRunPlot(int row)
{
    const RunRecord *past = m_table->pastRun(row);
    if (!past) {
        return false;
    }
    const QString dir = past->info.runDir;
    if (m_feeder->isPinned(dir)) {
        m_feeder->unpinPastRun(dir);
        return false;
    }
    // Which experiment it came from: its runs root's folder name.
    const QString label = tr("%1 (%2)").arg(past->info.name, QFileInfo(QFileInfo(dir).absolutePath()).fileName());
    QString error;
    if (!m_feeder->pinPastRun(dir, label, &error)) {
        statusBar()->showMessage(error, 8000);
        return false;
    }
    return true;
}

void MainWindow::duplicateSelectedMany()
{
    if (!scheduler() || m_boardView->selectedRuns().isEmpty()) {
        return;
    }
    bool ok = false;
    const int copies = QInputDialog::getInt(
        this, tr("Duplicate"), tr("Copies of each selected run, each with a seed of its own:"), 4, 1, 100, 1, &ok);
    if (ok) {
        m_controller->duplicateRuns(m_boardView->selectedRuns(), copies);
    }
}

void MainWindow::removeSelected()
{
    if (scheduler()) {
        m_controller->removeRuns(m_boardView->selectedRuns());
    }
}

void MainWindow::editSelected()
{
    const QList<RunId> ids = m_boardView->selectedRuns();
    if (!scheduler() || ids.size() != 1) {
        return;
    }
    const RunInfo run = scheduler()->run(ids.first());
    if (isActive(run.state)) {
        statusBar()->showMessage(
            tr("%1 is %2; stop it before editing, or duplicate it.").arg(run.name, runStateName(run.state)), 10000);
        return;
    }
    // A run that has run keeps what it was: the edit becomes a new run after it.
    const bool asNewRun = run.state != RunState::Queued && run.state != RunState::Cancelled;
    QJsonObject spec = run.spec;
    int repeat = 1;
    if (!editSpec(&spec, &repeat, false, run.name, asNewRun)) {
        return;
    }
    if (m_controller->editRun(ids.first(), spec) && asNewRun) {
        statusBar()->showMessage(tr("Queued the edit of %1 as a new run; it waits for Start.").arg(run.name), 10000);
    }
}

void MainWindow::openRunFolder()
{
    const QList<RunId> ids = m_boardView->selectedRuns();
    if (!scheduler() || ids.isEmpty()) {
        return;
    }
    const QString dir = scheduler()->run(ids.first()).runDir;
    if (dir.isEmpty() || !QFileInfo::exists(dir)) {
        statusBar()->showMessage(tr("The run has no folder yet (it has not started)."), 8000);
        return;
    }
    QDesktopServices::openUrl(QUrl::fromLocalFile(dir));
}

void MainWindow::showWorkerLog()
{
    const QList<RunId> ids = m_boardView->selectedRuns();
    if (scheduler() && !ids.isEmpty()) {
        showRunDetails(ids.first(), RunDetailsDialog::Page::Log);
    }
}

void MainWindow::showSelectedDetails()
{
    const QList<RunId> ids = m_boardView->selectedRuns();
    if (scheduler() && !ids.isEmpty()) {
        showRunDetails(ids.first());
    }
}

namespace {

// A run of the open session as its details show it: the scheduler's record
// with the command line it started (or would start) with, its folder even
// before it has one, the store's evaluations.
std::optional<RunRecord> liveRecord(Session *session, RunId id)
{
    Scheduler *scheduler = session ? session->scheduler() : nullptr;
    if (!scheduler || !scheduler->contains(id)) {
        return std::nullopt;
    }
    RunInfo info = scheduler->run(id);
    info.command = scheduler->commandLine(id);
    if (info.runDir.isEmpty()) {
        info.runDir = session->store()->runDir(info.name);
    }
    return RunRecord::live(info, *session->metrics());
}

} // namespace

RunDetailsDialog *MainWindow::showRunDetails(RunId id, RunDetailsDialog::Page page)
{
    std::optional<RunRecord> run = liveRecord(session(), id);
    if (!run) {
        return nullptr;
    }
    run->notes = session()->store()->readNotes(run->info.name);
    QPointer<Session> owner = session();
    return showDetails(
        *run, session()->name(), [owner, id] { return liveRecord(owner, id); }, page);
}

RunDetailsDialog *MainWindow::showTableRunDetails(int row)
{
    const QModelIndex index = m_table->index(row, 0);
    if (!index.isValid()) {
        return nullptr;
    }
    const RunId id = index.data(RunTableModel::RunIdRole).toInt();
    if (id) {
        return showRunDetails(id);
    }
    const RunRecord *past = m_table->pastRun(row);
    if (!past) {
        return nullptr;
    }
    return showDetails(*past, index.data(RunTableModel::ExperimentRole).toString(), {},
                       RunDetailsDialog::Page::Overview);
}

RunDetailsDialog *MainWindow::showDetails(const RunRecord &run, const QString &experiment,
                                          RunDetailsDialog::Source source, RunDetailsDialog::Page page)
{
    const QString key = QFileInfo(run.info.runDir).absoluteFilePath();
    RunDetailsDialog *dialog = m_details.value(key);
    if (!dialog) {
        dialog = new RunDetailsDialog(run, experiment, m_catalog, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &RunDetailsDialog::notesSaved, m_table, &RunTableModel::setNotes);
        m_details.insert(key, dialog);
    } else {
        // Open already, perhaps from a session closed since: this one's record.
        dialog->setRecord(run);
    }
    dialog->setSource(std::move(source));
    dialog->showPage(page);
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
    return dialog;
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

void MainWindow::addLane()
{
    if (!session()) {
        return;
    }
    QStringList devices;
    for (const DeviceInfo &d : session()->devices()->devices()) {
        devices.append(d.id);
    }
    if (!devices.contains(QLatin1String("cpu"))) {
        devices.prepend(QStringLiteral("cpu"));
    }
    bool ok = false;
    const QString device = QInputDialog::getItem(this, tr("Add lane"), tr("Device"), devices, 0, true, &ok);
    if (ok && !device.isEmpty()) {
        m_controller->addLane(device.trimmed(), 1);
    }
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!m_sessions->closeSession()) {
        event->ignore();
        return;
    }
    event->accept();
}

} // namespace trainyard
