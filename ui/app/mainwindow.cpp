#include "app/mainwindow.h"

#include "app/autosave.h"
#include "app/runnotifier.h"
#include "app/sessionprompts.h"
#include "board/boardcontroller.h"
#include "board/boardmodel.h"
#include "board/boardview.h"
#include "board/devicehistory.h"
#include "board/fallbackbanner.h"
#include "board/runcontrol.h"
#include "common/runcolors.h"
#include "common/uilogcategories.h"
#include "devices/deviceinventory.h"
#include "dispatch/scheduler.h"
#include "editors/programeditordialog.h"
#include "editors/runeditordialog.h"
#include "experiment/runspecview.h"
#include "launch/workerprocess.h"
#include "metrics/metricstore.h"
#include "palette/modelpalette.h"
#include "palette/modelpalettemodel.h"
#include "palette/presetstore.h"
#include "plot/plotfeeder.h"
#include "plot/plotwidget.h"
#include "runs/rundetailsdialog.h"
#include "runs/rundetailswindows.h"
#include "runs/runtablemodel.h"
#include "runs/runtablepanel.h"
#include "runstore/runstore.h"
#include "session/session.h"

#include <QAction>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QDockWidget>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
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
    m_details = new RunDetailsWindows(m_catalogue, m_table, this);
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
    m_sessions->setTrustChooser(
        [this](const QString &file, const QStringList &commands) { return askAboutTrust(file, commands); });
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

QString MainWindow::workerProgram() const
{
    return scheduler() ? scheduler()->workerProgram() : WorkerProcess::findWorkerProgram();
}

void MainWindow::loadCatalogue()
{
    auto *loader = new ModelCatalogueLoader(this);
    connect(loader, &ModelCatalogueLoader::loaded, this, [this, loader](const ModelCatalogue &catalogue) {
        setCatalogue(catalogue);
        loader->deleteLater();
    });
    connect(loader, &ModelCatalogueLoader::failed, this, [this, loader](const QString &message) {
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

void MainWindow::setCatalogue(const ModelCatalogue &catalogue)
{
    m_catalogue = catalogue;
    m_paletteModel->setCatalogue(catalogue);
    m_table->setCatalogue(catalogue);
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
    return sessionprompts::askHowToClose(this, session()->name(), session()->scheduler()->activeCount());
}

bool MainWindow::askAboutRecovery(const QString &name, const QDateTime &savedAt)
{
    if (m_recoveryChooser) {
        return m_recoveryChooser(name, savedAt);
    }
    if (m_closeChooser) {
        return false; // scripted (tests, screenshots): nobody is there to ask
    }
    return sessionprompts::askToRecover(this, name, savedAt);
}

bool MainWindow::askAboutTrust(const QString &file, const QStringList &commands)
{
    if (m_trustChooser) {
        return m_trustChooser(file, commands);
    }
    if (m_closeChooser) {
        return false; // scripted: nobody is there to say yes
    }
    return sessionprompts::askToTrust(this, file, commands);
}

MainWindow::UnsavedChoice MainWindow::askAboutUnsavedEdits()
{
    if (m_unsavedChooser) {
        return m_unsavedChooser();
    }
    if (m_closeChooser) {
        return UnsavedChoice::Discard; // closing is scripted: nobody is there to ask
    }
    const UnsavedChoice choice = sessionprompts::askAboutUnsavedEdits(this, session()->name());
    if (choice != UnsavedChoice::Save) {
        return choice;
    }
    m_saveAction->trigger(); // asks for a file when the board has none; cancelling that cancels the close
    return m_controller->isClean() ? UnsavedChoice::Save : UnsavedChoice::Cancel;
}

void MainWindow::updateFinishCount()
{
    if (!scheduler()) {
        m_finishLabel->clear();
        return;
    }
    // Paused runs hold their slot but do not train: counted apart.
    // Jobs waiting in a batch queue are not running either.
    int paused = 0;
    int pending = 0;
    for (RunId id : scheduler()->runIds()) {
        const RunInfo run = scheduler()->run(id);
        paused += run.state == RunState::Paused ? 1 : 0;
        pending += isPendingInQueue(run) ? 1 : 0;
    }
    const int running = scheduler()->activeCount() - paused - pending;
    QString text = finishCountText();
    if (running > 0) {
        text += tr(" · %n running", nullptr, running);
    }
    if (pending > 0) {
        text += tr(" · %n pending", nullptr, pending);
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

namespace {

// The run editor and the program editor, set up and run alike.
template <class Dialog>
bool execSpecEditor(Dialog &dialog, Scheduler *scheduler, QJsonObject *spec, int *repeat, bool repeatEditable,
                    const QString &editedRun, bool asNewRun)
{
    dialog.setRepeatEditable(repeatEditable);
    if (!editedRun.isEmpty() && !asNewRun) {
        dialog.setAcceptText(MainWindow::tr("Apply")); // an edit of a queued run, not a new one
        // Its name may stay; another run's would be refused after the dialog closed.
        QStringList taken;
        for (RunId id : scheduler->runIds()) {
            if (scheduler->run(id).name != editedRun) {
                taken << scheduler->run(id).name;
            }
        }
        dialog.setTakenNames(taken);
    } else if (asNewRun) {
        dialog.setAcceptText(MainWindow::tr("Queue as new run"));
    }
    if (dialog.exec() != QDialog::Accepted) {
        return false;
    }
    *spec = dialog.spec();
    *repeat = dialog.repeat();
    return true;
}

} // namespace

bool MainWindow::editSpec(QJsonObject *spec, int *repeat, bool repeatEditable, const QString &editedRun, bool asNewRun)
{
    if (RunSpecView(*spec).isProgram()) {
        ProgramEditorDialog dialog(*spec, *repeat, this);
        return execSpecEditor(dialog, scheduler(), spec, repeat, repeatEditable, editedRun, asNewRun);
    }
    RunEditorDialog dialog(m_catalogue, *spec, *repeat, this);
    dialog.setPresetStore(m_presets);
    dialog.setWorkerProgram(workerProgram()); // the program that will run it checks its data
    return execSpecEditor(dialog, scheduler(), spec, repeat, repeatEditable, editedRun, asNewRun);
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

RunDetailsDialog *MainWindow::showRunDetails(RunId id, RunDetailsDialog::Page page)
{
    return m_details->showLive(session(), id, page);
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
    return past ? m_details->showPast(*past, index.data(RunTableModel::ExperimentRole).toString()) : nullptr;
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
