#include "mainwindow.h"

#include "boardcommands.h"
#include "boardmodel.h"
#include "boardview.h"
#include "devicehistory.h"
#include "deviceinventory.h"
#include "metricstore.h"
#include "modelpalette.h"
#include "modelpalettemodel.h"
#include "plotfeeder.h"
#include "plotwidget.h"
#include "presetstore.h"
#include "runcolors.h"
#include "runeditordialog.h"
#include "runtablemodel.h"
#include "scheduler.h"
#include "session.h"
#include "slotprobedialog.h"
#include "workerlogdialog.h"
#include "workerprocess.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QDockWidget>
#include <QEventLoopLocker>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QUndoStack>
#include <QUrl>
#include <QVBoxLayout>

namespace trainyard {

namespace {
constexpr int maxRecentFiles = 8;
const QString recentKey = QStringLiteral("recentFiles");
} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_undo(new QUndoStack(this))
    , m_colors(new RunColors)
    , m_history(new DeviceHistory(this))
    , m_presets(new PresetStore(QString(), this))
    , m_board(new BoardModel(m_undo, this))
    , m_boardView(new BoardView(m_board, m_colors, this))
    , m_paletteModel(new ModelPaletteModel(m_presets, this))
    , m_palette(new ModelPalette(m_paletteModel, this))
    , m_plot(new PlotWidget(m_colors, this))
    , m_feeder(new PlotFeeder(m_plot, this))
    , m_table(new RunTableModel(this))
    , m_tableProxy(new QSortFilterProxyModel(this))
    , m_tableView(new QTableView(this))
    , m_tableFilter(new QLineEdit(this))
    , m_tabs(new QTabWidget(this))
    , m_finishLabel(new QLabel(this))
    , m_banner(new QLabel(this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/trainyard/icons/trainyard-256.png")));

    // Board on top, plots and the run table below.
    m_banner->setObjectName(QStringLiteral("banner"));
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(QStringLiteral("background: #fff4ce; color: #5c4400; padding: 4px 8px;"
                                           " border-bottom: 1px solid #e8d48a;"));
    m_banner->setVisible(false);
    auto *boardBox = new QWidget(this);
    auto *boardLayout = new QVBoxLayout(boardBox);
    boardLayout->setContentsMargins(0, 0, 0, 0);
    boardLayout->setSpacing(0);
    boardLayout->addWidget(m_banner);
    boardLayout->addWidget(m_boardView, 1);

    m_tableProxy->setSourceModel(m_table);
    m_tableProxy->setSortRole(RunTableModel::SortRole);
    m_tableProxy->setFilterKeyColumn(-1);
    m_tableProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_tableView->setObjectName(QStringLiteral("runTable"));
    m_tableView->setModel(m_tableProxy);
    m_tableView->setSortingEnabled(true);
    m_tableView->sortByColumn(RunTableModel::StartedColumn, Qt::DescendingOrder);
    m_tableView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tableView->setAlternatingRowColors(true);
    m_tableView->setWordWrap(false);
    connect(m_table, &QAbstractItemModel::modelReset, m_tableView, [this] {
        m_tableView->resizeColumnsToContents();
    });
    m_tableView->verticalHeader()->setVisible(false);
    m_tableView->horizontalHeader()->setStretchLastSection(true);
    m_tableView->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_tableFilter->setPlaceholderText(tr("Filter runs (name, model, state, experiment…)"));
    m_tableFilter->setClearButtonEnabled(true);
    connect(m_tableFilter, &QLineEdit::textChanged, m_tableProxy, &QSortFilterProxyModel::setFilterFixedString);
    auto *tableBox = new QWidget(this);
    auto *tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(2, 2, 2, 2);
    tableLayout->addWidget(m_tableFilter);
    tableLayout->addWidget(m_tableView, 1);
    // Selecting open runs in the table selects their cards (and plots them).
    connect(m_tableView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        QList<RunId> ids;
        for (const QModelIndex &index : m_tableView->selectionModel()->selectedRows()) {
            const RunId id = index.data(RunTableModel::RunIdRole).toInt();
            if (id) {
                ids.append(id);
            }
        }
        if (!ids.isEmpty()) {
            m_boardView->selectRuns(ids);
        }
    });
    connect(m_tableView, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        const QString dir = index.data(RunTableModel::RunDirRole).toString();
        if (!dir.isEmpty()) {
            QDesktopServices::openUrl(QUrl::fromLocalFile(dir));
        }
    });

    m_tabs->addTab(m_plot, tr("Plots"));
    m_tabs->addTab(tableBox, tr("Runs"));
    connect(m_tabs, &QTabWidget::currentChanged, this, [this, tableBox](int index) {
        if (m_tabs->widget(index) == tableBox) {
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

    connect(m_boardView, &BoardView::selectionChanged, this, [this](const QList<RunId> &ids) {
        m_feeder->setSelection(ids);
        updateActions();
    });
    connect(m_boardView, &BoardView::cardContextMenuRequested, this, &MainWindow::showCardMenu);
    connect(m_boardView, &BoardView::laneContextMenuRequested, this, &MainWindow::showLaneMenu);
    connect(m_boardView, &BoardView::runActivated, this, [this](RunId) { editSelected(); });
    connect(m_board, &BoardModel::editFailed, this, &MainWindow::showBoardError);
    connect(m_board, &BoardModel::runsQueued, this, [this](const QList<RunId> &ids) { m_boardView->selectRuns(ids); });
    m_board->setSpecEditor([this](QJsonObject *spec, int *repeat) {
        return !m_editorEnabled || editSpec(spec, repeat, true);
    });
    connect(m_palette, &ModelPalette::specActivated, this, [this](const QJsonObject &spec, int repeat) {
        // Double-click: queue on the lane of the selected card, else the first lane.
        const QList<RunId> selected = m_boardView->selectedRuns();
        const int lane = selected.isEmpty() || !m_session ? 0 : m_session->scheduler()->run(selected.first()).lane;
        m_board->queueSpec(lane, -1, spec, repeat);
    });
    connect(m_undo, &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);

    createActions();
    createMenus();
    m_table->setHistoryRoots({QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)});
    resize(1500, 940);
    updateActions();
}

MainWindow::~MainWindow()
{
    // Models first: they watch the session's objects.
    m_board->setScheduler(nullptr, nullptr, nullptr, nullptr);
    m_feeder->setSource(nullptr, nullptr);
    m_table->setSession(QString(), QString(), nullptr, nullptr);
    m_history->setInventory(nullptr);
    if (m_session) {
        m_session->close(false);
    }
    m_session.reset();
    delete m_colors;
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
        if (m_session && !m_session->filePath().isEmpty()) {
            saveTo(m_session->filePath());
        } else {
            m_saveAsAction->trigger();
        }
    });
    m_saveAsAction = make(tr("Save &as…"), QKeySequence::SaveAs, QIcon(), [this] {
        const QString name = m_session ? m_session->name() : QStringLiteral("experiment");
        QString path = QFileDialog::getSaveFileName(this, tr("Save experiment"), name + QLatin1String(".json"),
                                                    tr("Experiments (*.json)"));
        if (!path.isEmpty()) {
            if (!path.endsWith(QLatin1String(".json"))) {
                path += QLatin1String(".json");
            }
            saveTo(path);
        }
    });
    m_demoAction = make(tr("Open the &demo"), QKeySequence(), QIcon(), [this] { openDemo(); });
    m_quitAction = make(tr("&Quit"), QKeySequence::Quit, QIcon(), [this] { close(); });

    m_undoAction = m_undo->createUndoAction(this, tr("&Undo"));
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_undoAction->setIcon(s->standardIcon(QStyle::SP_ArrowBack));
    m_redoAction = m_undo->createRedoAction(this, tr("&Redo"));
    m_redoAction->setShortcut(QKeySequence::Redo);
    m_redoAction->setIcon(s->standardIcon(QStyle::SP_ArrowForward));
    addAction(m_undoAction);
    addAction(m_redoAction);
    m_addLaneAction = make(tr("Add &lane…"), QKeySequence(Qt::CTRL | Qt::Key_L), QIcon(), [this] { addLane(); });
    m_fallbackAction = make(tr("Run lanes of missing GPUs on the &CPU"), QKeySequence(), QIcon(), [this](bool on) {
        if (m_session) {
            m_session->scheduler()->setCpuFallback(on);
            updateFallbackBanner();
        }
    });
    m_fallbackAction->setCheckable(true);

    m_startAllAction = make(tr("Start &all"), QKeySequence(Qt::Key_F5), s->standardIcon(QStyle::SP_MediaPlay),
                            [this] { startAll(); });
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
    m_duplicateAction = make(tr("&Duplicate"), QKeySequence(Qt::CTRL | Qt::Key_D), QIcon(),
                             [this] { duplicateSelected(); });
    m_removeAction = make(tr("&Remove"), QKeySequence::Delete, s->standardIcon(QStyle::SP_TrashIcon),
                          [this] { removeSelected(); });
    m_editAction = make(tr("&Edit…"), QKeySequence(Qt::Key_F2), QIcon(), [this] { editSelected(); });
    m_folderAction = make(tr("Open run &folder"), QKeySequence(Qt::CTRL | Qt::Key_E), s->standardIcon(QStyle::SP_DirOpenIcon),
                          [this] { openRunFolder(); });
    m_logAction = make(tr("Show worker &log"), QKeySequence(Qt::CTRL | Qt::Key_G), QIcon(), [this] { showWorkerLog(); });
    // Card shortcuts act on the board, not while typing in a filter box.
    for (QAction *a : {m_startAction, m_stopAction, m_pauseAction, m_resumeAction, m_retryAction, m_duplicateAction,
                       m_removeAction, m_editAction, m_folderAction, m_logAction}) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        m_boardView->addAction(a);
    }
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_newAction);
    file->addAction(m_openAction);
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addAction(m_demoAction);
    file->addSeparator();
    file->addAction(m_saveAction);
    file->addAction(m_saveAsAction);
    file->addSeparator();
    file->addAction(m_quitAction);
    rebuildRecentMenu();

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(m_undoAction);
    edit->addAction(m_redoAction);
    edit->addSeparator();
    edit->addAction(m_editAction);
    edit->addAction(m_duplicateAction);
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
    run->addAction(m_folderAction);
    run->addAction(m_logAction);

    QToolBar *bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(m_newAction);
    bar->addAction(m_openAction);
    bar->addAction(m_saveAction);
    bar->addSeparator();
    bar->addAction(m_undoAction);
    bar->addAction(m_redoAction);
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
    const QString program = m_session ? m_session->scheduler()->workerProgram() : WorkerProcess::findWorkerProgram();
    if (program.isEmpty()) {
        m_palette->setProblem(tr("trainyard-worker was not found (beside this program, on PATH, or in $TRAINYARD_WORKER)."));
        loader->deleteLater();
        return;
    }
    loader->load(program);
}

void MainWindow::setCatalog(const ModelCatalog &catalog)
{
    m_catalog = catalog;
    m_paletteModel->setCatalog(catalog);
    m_palette->setProblem(QString());
}

bool MainWindow::openDemo()
{
    if (!closeSession()) {
        return false;
    }
    auto session = std::make_unique<Session>();
    QStringList errors;
    if (!session->loadDemo(&errors)) {
        return installSession(nullptr, errors);
    }
    return installSession(std::move(session), errors);
}

bool MainWindow::openFile(const QString &path)
{
    if (!closeSession()) {
        return false;
    }
    auto session = std::make_unique<Session>();
    QStringList errors;
    if (!session->load(path, &errors)) {
        return installSession(nullptr, errors);
    }
    addRecentFile(QFileInfo(path).absoluteFilePath());
    return installSession(std::move(session), errors);
}

bool MainWindow::newExperiment()
{
    if (!closeSession()) {
        return false;
    }
    Experiment experiment;
    experiment.name = QStringLiteral("untitled-%1").arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
    ExperimentLane lane;
    lane.device = QStringLiteral("cpu");
    experiment.lanes.append(lane);
    auto session = std::make_unique<Session>();
    QStringList errors;
    if (!session->open(experiment, QString(), &errors)) {
        return installSession(nullptr, errors);
    }
    return installSession(std::move(session), errors);
}

bool MainWindow::installSession(std::unique_ptr<Session> session, const QStringList &errors)
{
    if (!session) {
        QMessageBox::warning(this, tr("Open experiment"),
                             tr("The experiment could not be opened:\n\n%1").arg(errors.join(QLatin1Char('\n'))));
        updateTitle();
        updateActions();
        return false;
    }
    m_session = std::move(session);
    Session *s = m_session.get();
    Scheduler *scheduler = s->scheduler();
    m_undo->clear();
    m_history->setInventory(s->devices());
    m_board->setScheduler(scheduler, s->metrics(), s->devices(), m_history);
    m_feeder->setSource(scheduler, s->metrics());
    m_table->setSession(s->name(), s->runsRoot(), scheduler, s->metrics());
    connect(scheduler, &Scheduler::finishCountChanged, this, &MainWindow::updateFinishCount);
    connect(scheduler, &Scheduler::runChanged, this, [this] { updateActions(); });
    connect(scheduler, &Scheduler::warning, this, [this](const QString &text) { statusBar()->showMessage(text, 15000); });
    connect(scheduler, &Scheduler::runEnded, this, [this](RunId id, RunState state) {
        if (!m_session) {
            return;
        }
        const RunInfo run = m_session->scheduler()->run(id);
        if (state == RunState::Finished) {
            notify(tr("Run finished"), tr("%1 finished (%2).").arg(run.name, finishCountText()));
        } else if (state == RunState::Failed || state == RunState::Diverged) {
            notify(tr("Run %1").arg(runStateName(state)),
                   tr("%1 %2: %3").arg(run.name, runStateName(state), run.message));
        }
    });
    connect(scheduler, &Scheduler::idle, this, [this] {
        if (m_session && m_session->scheduler()->totalCount() > 0) {
            notify(tr("Experiment done"), tr("%1: %2.").arg(m_session->name(), finishCountText()));
        }
    });
    connect(s, &Session::nameChanged, this, &MainWindow::updateTitle);
    m_fallbackAction->setChecked(!scheduler->missingDeviceLanes().isEmpty());
    scheduler->setCpuFallback(m_fallbackAction->isChecked());
    updateFallbackBanner();
    updateTitle();
    updateFinishCount();
    updateActions();
    // Show the first lane's runs in the plot so it is never empty on open.
    const QList<RunId> ids = scheduler->runIds();
    if (!ids.isEmpty()) {
        m_boardView->selectRuns(scheduler->lane(0).runs);
    }
    if (!errors.isEmpty()) {
        statusBar()->showMessage(errors.join(QLatin1String("; ")), 15000);
    }
    return true;
}

void MainWindow::updateFallbackBanner()
{
    if (!m_session) {
        m_banner->setVisible(false);
        return;
    }
    Scheduler *scheduler = m_session->scheduler();
    QStringList missing;
    for (int lane : scheduler->missingDeviceLanes()) {
        missing.append(scheduler->lane(lane).device);
    }
    if (missing.isEmpty()) {
        m_banner->setVisible(false);
        return;
    }
    const int gpus = m_session->devices()->gpuCount();
    const QString have = gpus == 0 ? tr("This machine has no GPU") : tr("This machine has %n GPU(s)", nullptr, gpus);
    m_banner->setText(scheduler->cpuFallback()
                          ? tr("%1: the lanes for %2 run on the CPU (Edit ▸ Run lanes of missing GPUs on the CPU).")
                                .arg(have, missing.join(QLatin1String(", ")))
                          : tr("%1: the lanes for %2 will not start until you let them run on the CPU "
                               "(Edit ▸ Run lanes of missing GPUs on the CPU).")
                                .arg(have, missing.join(QLatin1String(", "))));
    m_banner->setVisible(true);
}

bool MainWindow::closeSession()
{
    if (!m_session) {
        return true;
    }
    bool leave = false;
    if (m_session->scheduler()->activeCount() > 0) {
        CloseChoice choice = CloseChoice::Cancel;
        if (m_closeChooser) {
            choice = m_closeChooser();
        } else {
            QMessageBox box(QMessageBox::Question, tr("Runs are training"),
                            tr("%n run(s) of %1 are still training.", nullptr, m_session->scheduler()->activeCount())
                                .arg(m_session->name()),
                            QMessageBox::NoButton, this);
            box.setInformativeText(tr("Stop them (each saves a checkpoint first), or leave them running? "
                                      "Runs left running go on without the window; opening this experiment "
                                      "again reattaches to them."));
            QPushButton *stop = box.addButton(tr("Stop runs"), QMessageBox::DestructiveRole);
            QPushButton *leaveButton = box.addButton(tr("Leave running"), QMessageBox::AcceptRole);
            box.addButton(QMessageBox::Cancel);
            box.setDefaultButton(leaveButton);
            box.exec();
            choice = box.clickedButton() == stop          ? CloseChoice::StopRuns
                     : box.clickedButton() == leaveButton ? CloseChoice::LeaveRunning
                                                          : CloseChoice::Cancel;
        }
        if (choice == CloseChoice::Cancel) {
            return false;
        }
        leave = choice == CloseChoice::LeaveRunning;
    }
    m_board->setScheduler(nullptr, nullptr, nullptr, nullptr);
    m_feeder->setSource(nullptr, nullptr);
    m_table->setSession(QString(), QString(), nullptr, nullptr);
    m_history->setInventory(nullptr);
    m_undo->clear();
    // Stopping runs ends later: the session lives on until its runs have
    // ended, then deletes itself; meanwhile the application does not quit.
    Session *closing = m_session.release();
    closing->scheduler()->disconnect(this);
    closing->disconnect(this);
    closing->setParent(this);
    auto *keepRunning = new QEventLoopLocker;
    connect(closing, &QObject::destroyed, [keepRunning] { delete keepRunning; });
    connect(closing, &Session::closed, closing, &QObject::deleteLater);
    closing->close(leave);
    updateActions();
    return true;
}

bool MainWindow::saveTo(const QString &path)
{
    if (!m_session) {
        return false;
    }
    QString error;
    if (!m_session->save(path, &error)) {
        QMessageBox::warning(this, tr("Save experiment"), error);
        return false;
    }
    m_undo->setClean();
    addRecentFile(QFileInfo(path).absoluteFilePath());
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
    return true;
}

void MainWindow::addRecentFile(const QString &path)
{
    QSettings settings(QStringLiteral("trainyard"), QStringLiteral("trainyard"));
    QStringList files = settings.value(recentKey).toStringList();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > maxRecentFiles) {
        files.removeLast();
    }
    settings.setValue(recentKey, files);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    if (!m_recentMenu) {
        return;
    }
    m_recentMenu->clear();
    const QStringList files = QSettings(QStringLiteral("trainyard"), QStringLiteral("trainyard")).value(recentKey).toStringList();
    for (const QString &file : files) {
        m_recentMenu->addAction(QFileInfo(file).fileName(), this, [this, file] { openFile(file); })->setToolTip(file);
    }
    m_recentMenu->setEnabled(!files.isEmpty());
}

void MainWindow::updateTitle()
{
    const QString name = m_session ? m_session->name() : tr("no experiment");
    const QString file = m_session && !m_session->filePath().isEmpty() ? QFileInfo(m_session->filePath()).fileName()
                                                                        : tr("not saved");
    setWindowTitle(QStringLiteral("%1%2 (%3) — Trainyard").arg(name, m_undo->isClean() ? QString() : QStringLiteral("*"), file));
}

QString MainWindow::finishCountText() const
{
    if (!m_session) {
        return {};
    }
    const Scheduler *s = m_session->scheduler();
    return tr("%1 of %2 finished").arg(s->finishedCount()).arg(s->totalCount());
}

void MainWindow::updateFinishCount()
{
    if (!m_session) {
        m_finishLabel->clear();
        return;
    }
    const int active = m_session->scheduler()->activeCount();
    QString text = finishCountText();
    if (active > 0) {
        text += tr(" · %n running", nullptr, active);
    }
    m_finishLabel->setText(text);
}

void MainWindow::updateActions()
{
    const bool open = m_session != nullptr;
    const bool selected = open && !m_boardView->selectedRuns().isEmpty();
    for (QAction *a : {m_saveAction, m_saveAsAction, m_addLaneAction, m_startAllAction, m_stopAllAction,
                       m_fallbackAction}) {
        a->setEnabled(open);
    }
    for (QAction *a : {m_startAction, m_stopAction, m_pauseAction, m_resumeAction, m_retryAction, m_duplicateAction,
                       m_removeAction, m_editAction, m_folderAction, m_logAction}) {
        a->setEnabled(selected);
    }
    updateFinishCount();
}

void MainWindow::notify(const QString &title, const QString &text)
{
    m_lastNotification = text;
    statusBar()->showMessage(text, 15000);
    if (QSystemTrayIcon::isSystemTrayAvailable() && QSystemTrayIcon::supportsMessages()) {
        static QSystemTrayIcon *tray = nullptr;
        if (!tray) {
            tray = new QSystemTrayIcon(windowIcon(), qApp);
            tray->show();
        }
        tray->showMessage(title, text, QSystemTrayIcon::Information, 8000);
    }
    QApplication::alert(this);
}

void MainWindow::showBoardError(const QString &message)
{
    statusBar()->showMessage(message, 15000);
    if (isVisible() && !m_closeChooser) {
        QMessageBox::information(this, tr("Board"), message);
    }
}

bool MainWindow::editSpec(QJsonObject *spec, int *repeat, bool repeatEditable)
{
    RunEditorDialog dialog(m_catalog, *spec, *repeat, this);
    dialog.setPresetStore(m_presets);
    dialog.setRepeatEditable(repeatEditable);
    if (dialog.exec() != QDialog::Accepted) {
        return false;
    }
    *spec = dialog.spec();
    *repeat = dialog.repeat();
    return true;
}

void MainWindow::forEachSelected(const std::function<bool(RunId, QString *)> &action)
{
    if (!m_session) {
        return;
    }
    QStringList problems;
    for (RunId id : m_boardView->selectedRuns()) {
        QString error;
        if (!action(id, &error) && !error.isEmpty()) {
            problems.append(error);
        }
    }
    if (!problems.isEmpty()) {
        statusBar()->showMessage(problems.join(QLatin1String("; ")), 10000);
    }
    updateActions();
}

void MainWindow::startSelected()
{
    forEachSelected([this](RunId id, QString *e) { return m_session->scheduler()->startRun(id, e); });
}

void MainWindow::stopSelected()
{
    forEachSelected([this](RunId id, QString *e) { return m_session->scheduler()->stopRun(id, e); });
}

void MainWindow::pauseSelected()
{
    forEachSelected([this](RunId id, QString *e) { return m_session->scheduler()->pauseRun(id, e); });
}

void MainWindow::resumeSelected()
{
    forEachSelected([this](RunId id, QString *e) { return m_session->scheduler()->resumeRun(id, e); });
}

void MainWindow::retrySelected()
{
    forEachSelected([this](RunId id, QString *e) {
        // A stopped run has a checkpoint: carry on from it rather than start over.
        const bool fromCheckpoint = m_session->scheduler()->run(id).state == RunState::Stopped;
        return m_session->scheduler()->retryRun(id, fromCheckpoint, e);
    });
}

void MainWindow::duplicateSelected()
{
    if (!m_session) {
        return;
    }
    const QList<RunId> ids = m_boardView->selectedRuns();
    m_undo->beginMacro(tr("Duplicate"));
    for (RunId id : ids) {
        const RunInfo run = m_session->scheduler()->run(id);
        m_board->duplicateTo(id, run.lane, m_session->scheduler()->position(id) + 1);
    }
    m_undo->endMacro();
}

void MainWindow::removeSelected()
{
    if (!m_session) {
        return;
    }
    const QList<RunId> ids = m_boardView->selectedRuns();
    m_undo->beginMacro(tr("Remove"));
    for (RunId id : ids) {
        m_board->removeRun(id);
    }
    m_undo->endMacro();
}

void MainWindow::editSelected()
{
    const QList<RunId> ids = m_boardView->selectedRuns();
    if (!m_session || ids.size() != 1) {
        return;
    }
    const RunInfo run = m_session->scheduler()->run(ids.first());
    if (run.state != RunState::Queued && run.state != RunState::Cancelled) {
        statusBar()->showMessage(tr("%1 has already run; duplicate it to change its spec.").arg(run.name), 10000);
        return;
    }
    QJsonObject spec = run.spec;
    int repeat = 1;
    if (!editSpec(&spec, &repeat, false)) {
        return;
    }
    m_undo->push(new EditRunCommand(m_session->scheduler(), [this](const QString &m) { showBoardError(m); },
                                    run.name, spec));
}

void MainWindow::startAll()
{
    if (!m_session) {
        return;
    }
    Scheduler *scheduler = m_session->scheduler();
    const QStringList problems = scheduler->preflight();
    if (!problems.isEmpty() && !m_closeChooser) {
        const auto answer = QMessageBox::warning(this, tr("Start all"),
                                                 tr("Before starting:\n\n%1\n\nStart anyway?")
                                                     .arg(problems.join(QLatin1Char('\n'))),
                                                 QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
        if (answer != QMessageBox::Yes) {
            return;
        }
    }
    scheduler->startAll();
    updateActions();
}

void MainWindow::stopAll()
{
    if (m_session) {
        m_session->scheduler()->stopAll();
        updateActions();
    }
}

void MainWindow::openRunFolder()
{
    const QList<RunId> ids = m_boardView->selectedRuns();
    if (!m_session || ids.isEmpty()) {
        return;
    }
    const QString dir = m_session->scheduler()->run(ids.first()).runDir;
    if (dir.isEmpty() || !QFileInfo::exists(dir)) {
        statusBar()->showMessage(tr("The run has no folder yet (it has not started)."), 8000);
        return;
    }
    QDesktopServices::openUrl(QUrl::fromLocalFile(dir));
}

void MainWindow::showWorkerLog()
{
    const QList<RunId> ids = m_boardView->selectedRuns();
    if (!m_session || ids.isEmpty()) {
        return;
    }
    const RunInfo run = m_session->scheduler()->run(ids.first());
    auto *dialog = new WorkerLogDialog(run.name, run.runDir + QLatin1String("/worker.log"), this);
    dialog->setObjectName(QStringLiteral("workerLog"));
    dialog->show();
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
    menu.addAction(m_removeAction);
    menu.addSeparator();
    menu.addAction(m_folderAction);
    menu.addAction(m_logAction);
    menu.addSeparator();
    menu.addAction(m_startAllAction);
    menu.addAction(m_stopAllAction);
    menu.exec(globalPos);
}

void MainWindow::showLaneMenu(int lane, const QPoint &globalPos)
{
    if (!m_session) {
        return;
    }
    Scheduler *scheduler = m_session->scheduler();
    QMenu menu(this);
    menu.addAction(tr("Slots…"), this, [this, scheduler, lane] {
        bool ok = false;
        const LaneInfo info = scheduler->lane(lane);
        const int slots_ = QInputDialog::getInt(this, tr("Lane %1").arg(info.device), tr("Runs at once"),
                                                info.slotCount, 1, 64, 1, &ok);
        if (ok) {
            m_undo->push(new EditLaneCommand(scheduler, [this](const QString &m) { showBoardError(m); }, lane,
                                             info.device, slots_));
        }
    });
    // Measures with the lane's first queued run (its model, data and batch size).
    QJsonObject probeSpec;
    for (RunId id : scheduler->lane(lane).runs) {
        if (scheduler->run(id).state == RunState::Queued) {
            probeSpec = scheduler->run(id).spec;
            break;
        }
    }
    QAction *measure = menu.addAction(tr("Measure slots…"), this, [this, scheduler, lane, probeSpec] {
        Session *session = m_session.get();
        auto *dialog = new SlotProbeDialog(scheduler->lane(lane).effectiveDevice, probeSpec, scheduler->activeCount(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &SlotProbeDialog::adviceRecorded, m_board, &BoardModel::reloadSlotAdvice);
        connect(dialog, &SlotProbeDialog::setSlotsRequested, this, [this, session, scheduler, lane](int slotCount) {
            if (m_session.get() != session || lane >= scheduler->laneCount()) {
                return; // the board changed meanwhile
            }
            m_undo->push(new EditLaneCommand(scheduler, [this](const QString &m) { showBoardError(m); }, lane,
                                             scheduler->lane(lane).device, slotCount));
        });
        dialog->open();
        dialog->start();
    });
    if (probeSpec.isEmpty()) {
        measure->setEnabled(false);
        measure->setToolTip(tr("Queue a run on this lane first: the measurement trains copies of its first queued run"));
        menu.setToolTipsVisible(true);
    } else {
        measure->setToolTip(tr("Train 1, 2 and 4 copies of the first queued run side by side on this lane's device "
                               "and recommend how many slots pay off"));
    }
    menu.addAction(tr("Device…"), this, [this, scheduler, lane] {
        bool ok = false;
        const LaneInfo info = scheduler->lane(lane);
        const QString device = QInputDialog::getText(this, tr("Lane device"), tr("Device (cpu or cuda:N)"),
                                                     QLineEdit::Normal, info.device, &ok);
        if (ok && !device.isEmpty()) {
            m_undo->push(new EditLaneCommand(scheduler, [this](const QString &m) { showBoardError(m); }, lane,
                                             device.trimmed(), info.slotCount));
        }
    });
    menu.addAction(m_addLaneAction);
    menu.addAction(tr("Remove lane"), this, [this, scheduler, lane] {
        m_undo->push(new RemoveLaneCommand(scheduler, [this](const QString &m) { showBoardError(m); }, lane));
    });
    menu.exec(globalPos);
}

void MainWindow::addLane()
{
    if (!m_session) {
        return;
    }
    QStringList devices;
    for (const DeviceInfo &d : m_session->devices()->devices()) {
        devices.append(d.id);
    }
    if (!devices.contains(QLatin1String("cpu"))) {
        devices.prepend(QStringLiteral("cpu"));
    }
    bool ok = false;
    const QString device = QInputDialog::getItem(this, tr("Add lane"), tr("Device"), devices, 0, true, &ok);
    if (ok && !device.isEmpty()) {
        m_undo->push(new AddLaneCommand(m_session->scheduler(), [this](const QString &m) { showBoardError(m); },
                                        device.trimmed(), 1));
    }
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!closeSession()) {
        event->ignore();
        return;
    }
    event->accept();
}

} // namespace trainyard
