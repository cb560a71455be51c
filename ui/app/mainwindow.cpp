#include "ui/app/mainwindow.h"

#include "metrics/metricstore.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/launch/workerprocess.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/session.h"
#include "ui/app/autosave.h"
#include "ui/app/dialogprompts.h"
#include "ui/app/elidingstatusbar.h"
#include "ui/app/runnotifier.h"
#include "ui/app/tensorboardlogs.h"
#include "ui/app/windowactions.h"
#include "ui/app/windowfit.h"
#include "ui/board/boardcontroller.h"
#include "ui/board/boardmodel.h"
#include "ui/board/boardview.h"
#include "ui/board/devicechoices.h"
#include "ui/board/devicehistory.h"
#include "ui/board/fallbackbanner.h"
#include "ui/board/lanemenu.h"
#include "ui/board/runcontrol.h"
#include "ui/board/speccheckbanner.h"
#include "ui/common/inputdialogs.h"
#include "ui/common/runcolors.h"
#include "ui/common/uilogcategories.h"
#include "ui/editors/specdialogs.h"
#include "ui/palette/modelpalette.h"
#include "ui/palette/modelpalettemodel.h"
#include "ui/palette/presetstore.h"
#include "ui/plot/plotfeeder.h"
#include "ui/plot/plotwidget.h"
#include "ui/runs/runcompare.h"
#include "ui/runs/rundetailsdialog.h"
#include "ui/runs/rundetailswindows.h"
#include "ui/runs/runtablemodel.h"
#include "ui/runs/runtablepanel.h"
#include "ui/sweep/sweeppanel.h"

#include <QAction>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QDockWidget>
#include <QFileInfo>
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
    , m_specChecks(new SpecCheckBanner(this))
    , m_runControl(new RunControl(m_sessions, m_boardView, this))
    , m_notifier(new RunNotifier(m_sessions, this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/trainyard/icons/trainyard-256.png")));
    createLayout();
    m_details = new RunDetailsWindows(m_catalogue, m_table, this);
    m_specDialogs = std::make_unique<SpecDialogs>(this, m_catalogue, m_presets);
    m_sweeps = new SweepPanel(m_sessions, m_controller, m_boardView, m_tabs, m_specDialogs.get(), this);
    m_plot->rememberSettings(); // the app's plots keep the user's settings; tools' plots do not

    connect(m_boardView, &BoardView::selectionChanged, this, [this](const QList<RunId> &ids) {
        m_feeder->setSelection(ids);
        updateActions();
    });
    connect(m_boardView, &BoardView::cardContextMenuRequested, this,
            [this](const QPoint &globalPos) { m_actions->showCardMenu(globalPos); });
    connect(m_boardView, &BoardView::laneContextMenuRequested, this, &MainWindow::showLaneMenu);
    connect(m_boardView, &BoardView::runActivated, this, [this](RunId) { editSelected(); });
    connect(m_board, &BoardModel::editFailed, this, &MainWindow::showBoardError);
    connect(m_controller, &BoardController::editFailed, this, &MainWindow::showBoardError);
    connect(m_board, &BoardModel::runsQueued, this, [this](const QList<RunId> &ids) { m_boardView->selectRuns(ids); });
    m_board->setSpecEditor([this](QJsonObject *spec, int *repeat) {
        return !m_editorEnabled || m_specDialogs->edit(spec, repeat, true, document(), workerProgram());
    });
    connect(m_palette, &ModelPalette::specActivated, this, [this](const QJsonObject &spec, int repeat) {
        // Double-click: queue on the lane of the selected card, else the first lane.
        const QList<RunId> selected = m_boardView->selectedRuns();
        const int lane = selected.isEmpty() || !document() ? 0 : document()->run(selected.first()).lane;
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
    m_runControl->setSpecProblems([this] { return m_specChecks->problems(); });

    m_dialogs = std::make_unique<DialogPrompts>(this, [this] {
        m_actions->saveAction()->trigger();
        return !m_sessions->document() || m_sessions->document()->isClean();
    });
    setPrompts(m_dialogs.get());
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

    m_actions = new WindowActions(this, m_controller, m_boardView);
    m_compare = new RunCompare(m_tablePanel, m_boardView, m_feeder, m_colors, this);
    m_table->setHistoryRoots({QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)});
    const auto *logs = new TensorBoardLogs(m_table, this, m_tablePanel);
    m_actions->addMenus(m_sessions, m_compare->action(), {logs->openAction(), logs->closeAction()});
    resize(fittedWindowSize(this, QSize(1500, 940))); // at 2x scaling, 1500 px is 3000 on the screen
    updateActions();
}

MainWindow::~MainWindow()
{
    // Stops the runs of a session still open; the views let go of its
    // objects first (detachSession).
    m_sessions->closeWithoutAsking();
    setPrompts(nullptr); // the prompts go before the controllers that ask them
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
    boardLayout->addWidget(m_specChecks);
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
    setStatusBar(new ElidingStatusBar(this)); // a long message ends in "…" before the count
    statusBar()->addPermanentWidget(m_finishLabel);
}

QString MainWindow::workerProgram() const
{
    return document() ? document()->workerProgram() : WorkerProcess::findWorkerProgram();
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
    m_specChecks->setCatalogue(catalogue);
    m_palette->setProblem(QString());
}

void MainWindow::attachSession(ExperimentDocument *document, const QStringList &warnings)
{
    m_history->setInventory(document->devices());
    m_board->setDocument(document, m_history);
    m_feeder->setSource(document);
    m_table->setDocument(document);
    connect(document, &ExperimentDocument::finishCountChanged, this, &MainWindow::updateFinishCount);
    connect(document, &ExperimentDocument::runChanged, this, [this] { updateActions(); });
    connect(document, &ExperimentDocument::warning, this,
            [this](const QString &text) { statusBar()->showMessage(text, 15000); });
    m_actions->fallbackAction()->setChecked(!document->missingDeviceLanes().isEmpty());
    document->setCpuFallback(m_actions->fallbackAction()->isChecked());
    m_banner->refresh(document);
    m_specChecks->setDocument(document);
    updateFinishCount();
    updateActions();
    // Show the first lane's runs in the plot so it is never empty on open.
    const QList<RunId> ids = document->runIds();
    if (!ids.isEmpty()) {
        m_boardView->selectRuns(document->lane(0).runs);
    }
    if (!warnings.isEmpty()) {
        statusBar()->showMessage(warnings.join(QLatin1String("; ")), 15000);
    }
}

void MainWindow::detachSession()
{
    // A closing session may still report its runs' ends: not to this window.
    disconnect(m_sessions->document(), nullptr, this, nullptr);
    m_board->setDocument(nullptr, nullptr);
    m_feeder->setSource(nullptr);
    m_table->setDocument(nullptr);
    m_history->setInventory(nullptr);
    m_banner->refresh(nullptr);
    m_specChecks->setDocument(nullptr);
}

ExperimentDocument *MainWindow::document() const
{
    return m_sessions->document();
}

void MainWindow::setPrompts(Prompts *prompts)
{
    m_prompts = prompts;
    m_sessions->setPrompts(prompts);
    m_runControl->setPrompts(prompts);
}

ScriptedPrompts *MainWindow::useScriptedPrompts()
{
    if (!m_scripted) {
        m_scripted = std::make_unique<ScriptedPrompts>();
    }
    setPrompts(m_scripted.get());
    return m_scripted.get();
}

void MainWindow::updateFinishCount()
{
    if (!document()) {
        m_finishLabel->clear();
        return;
    }
    // Paused runs hold their slot but do not train: counted apart.
    // Jobs waiting in a batch queue are not running either.
    int paused = 0;
    int pending = 0;
    for (RunId id : document()->runIds()) {
        const RunInfo run = document()->run(id);
        paused += run.state == RunState::Paused ? 1 : 0;
        pending += isPendingInQueue(run) ? 1 : 0;
    }
    const int running = document()->activeCount() - paused - pending;
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
    if (!m_actions) {
        return; // still being built
    }
    QList<RunInfo> selected;
    if (document()) {
        for (RunId id : m_boardView->selectedRuns()) {
            selected << document()->run(id);
        }
    }
    m_actions->update(session() != nullptr, selected);
    updateFinishCount();
}

void MainWindow::setCpuFallback(bool on)
{
    if (ExperimentDocument *d = document()) {
        d->setCpuFallback(on);
        m_banner->refresh(d);
    }
}

void MainWindow::showLaneMenu(int lane, const QPoint &globalPos)
{
    if (!document()) {
        return;
    }
    LaneMenu menu(lane, m_controller, m_board, m_actions->addLaneAction(), this);
    menu.exec(globalPos);
}

void MainWindow::showBoardError(const QString &message)
{
    statusBar()->showMessage(message, 15000);
    if (isVisible() && m_prompts) {
        m_prompts->tell(tr("Board"), message);
    }
}

void MainWindow::duplicateSelected()
{
    if (document()) {
        document()->duplicateRuns(m_boardView->selectedRuns());
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
    if (!document() || m_boardView->selectedRuns().isEmpty()) {
        return;
    }
    bool ok = false;
    const int copies = inputdialogs::getInt(
        this, tr("Duplicate"), tr("Copies of each selected run, one repeat group with a seed each:"), 4, 1, 100, &ok);
    if (ok) {
        document()->duplicateRuns(m_boardView->selectedRuns(), copies);
    }
}

void MainWindow::removeSelected()
{
    if (document()) {
        document()->removeRuns(m_boardView->selectedRuns());
    }
}

void MainWindow::editSelected()
{
    const QList<RunId> ids = m_boardView->selectedRuns();
    if (!document() || ids.size() != 1) {
        return;
    }
    const RunInfo run = document()->run(ids.first());
    if (isActive(run.state)) {
        statusBar()->showMessage(
            tr("%1 is %2; stop it before editing, or duplicate it.").arg(run.name, runStateName(run.state)), 10000);
        return;
    }
    // A run that has run keeps what it was: the edit becomes a new run after it.
    const bool asNewRun =
        run.state != RunState::Queued && run.state != RunState::Waiting && run.state != RunState::Cancelled;
    QJsonObject spec = run.spec;
    int repeat = 1;
    if (!m_specDialogs->edit(&spec, &repeat, false, document(), workerProgram(), run.name, asNewRun)) {
        return;
    }
    if (document() && document()->editRun(ids.first(), spec) && asNewRun) {
        statusBar()->showMessage(tr("Queued the edit of %1 as a new run; it waits for Start.").arg(run.name), 10000);
    }
}

void MainWindow::openRunFolder()
{
    const QList<RunId> ids = m_boardView->selectedRuns();
    if (!document() || ids.isEmpty()) {
        return;
    }
    const QString dir = document()->run(ids.first()).runDir;
    if (dir.isEmpty() || !QFileInfo::exists(dir)) {
        statusBar()->showMessage(tr("The run has no folder yet (it has not started)."), 8000);
        return;
    }
    QDesktopServices::openUrl(QUrl::fromLocalFile(dir));
}

void MainWindow::showWorkerLog()
{
    const QList<RunId> ids = m_boardView->selectedRuns();
    if (document() && !ids.isEmpty()) {
        showRunDetails(ids.first(), RunDetailsDialog::Page::Log);
    }
}

void MainWindow::showSelectedDetails()
{
    const QList<RunId> ids = m_boardView->selectedRuns();
    if (document() && !ids.isEmpty()) {
        showRunDetails(ids.first());
    }
}

RunDetailsDialog *MainWindow::showRunDetails(RunId id, RunDetailsDialog::Page page)
{
    return m_details->showLive(document(), id, page);
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
    return past ? m_details->showPast(*past, index.data(RunTableModel::ExperimentRole).toString(), document())
                : nullptr;
}

void MainWindow::addLane()
{
    if (!session()) {
        return;
    }
    const QStringList devices = devicechoices::items(session()->devices()->devices());
    bool ok = false;
    const QString device =
        devicechoices::device(inputdialogs::getItem(this, tr("Add lane"), devicechoices::label(), devices, true, &ok));
    if (ok && !device.isEmpty() && document()) {
        document()->addLane(device, 1);
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
