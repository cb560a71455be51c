#pragma once

#include "app/runnotifier.h"
#include "app/sessioncontroller.h"
#include "board/boardcontroller.h"
#include "board/runcontrol.h"
#include "catalogue/modelcatalogue.h"
#include "records/runinfo.h"
#include "runs/rundetailsdialog.h"

#include <QHash>
#include <QMainWindow>
#include <QPointer>

#include <functional>

class QAction;
class QLabel;
class QTabWidget;
class QUndoStack;

namespace trainyard {

class Autosave;
class BoardModel;
class BoardView;
class DeviceHistory;
class FallbackBanner;
class ModelPalette;
class ModelPaletteModel;
class PlotFeeder;
class PlotWidget;
class PresetStore;
class RecentFiles;
class RunColors;
class RunDetailsWindows;
class RunTableModel;
class RunTablePanel;
class Scheduler;
class Session;

/// The desktop app's window: the model palette, the board of lanes, the live
/// plots and the run table around one open experiment, with the menus, tool
/// bar and shortcuts, run control and notifications. It lays the widgets out
/// and wires them; the open experiment belongs to a SessionController and
/// every board edit (and so undo) to a BoardController.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    /// What to do with training runs when the window closes.
    using CloseChoice = SessionController::CloseChoice;

    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Experiment files. Each returns false (after telling the user) on failure.
    bool openDemo() { return m_sessions->openDemo(); }
    /// What the app opens without a file: a recovered unsaved board, the
    /// experiment left training, the last one used, else the demo.
    bool openAtStart() { return m_sessions->openAtStart(); }
    /// Answers the recovery question instead of a dialog (tests).
    /// Answers Start all's "start anyway?" instead of a dialog (tests).
    void setStartChooser(RunControl::StartChooser chooser) { m_runControl->setStartChooser(std::move(chooser)); }
    /// Answers Retry's "start a new attempt?" instead of a dialog (tests).
    void setAttemptChooser(RunControl::AttemptChooser chooser) { m_runControl->setAttemptChooser(std::move(chooser)); }
    void setRecoveryChooser(SessionController::RecoveryChooser chooser) { m_recoveryChooser = std::move(chooser); }
    void setTrustChooser(SessionController::TrustChooser chooser) { m_trustChooser = std::move(chooser); }
    Autosave *autosave() const { return m_autosave; }
    bool openFile(const QString &path) { return m_sessions->openFile(path); }
    bool newExperiment() { return m_sessions->newExperiment(); }
    bool saveTo(const QString &path) { return m_sessions->saveTo(path); }

    /// Loads the palette from `trainyard-worker --list-models` (asynchronously).
    void loadCatalogue();
    void setCatalogue(const ModelCatalogue &catalogue);
    const ModelCatalogue &catalogue() const { return m_catalogue; }

    Session *session() const { return m_sessions->session(); }
    SessionController *sessionController() const { return m_sessions; }
    BoardController *boardController() const { return m_controller; }
    BoardModel *boardModel() const { return m_board; }
    BoardView *boardView() const { return m_boardView; }
    PlotWidget *plot() const { return m_plot; }
    PlotFeeder *plotFeeder() const { return m_feeder; }
    RunTableModel *runTable() const { return m_table; }
    RunTablePanel *runTablePanel() const { return m_tablePanel; }
    ModelPaletteModel *paletteModel() const { return m_paletteModel; }
    ModelPalette *palette() const { return m_palette; }
    RunControl *runControl() const { return m_runControl; }
    QUndoStack *undoStack() const { return m_controller->undoStack(); }
    QString finishCountText() const { return m_sessions->finishCountText(); }

    /// Replaces the dialogs that ask the user (tests, screenshots).
    void setCloseChooser(std::function<CloseChoice()> chooser);
    using UnsavedChoice = SessionController::UnsavedChoice;
    /// Answers "save the unsaved edits?" instead of the dialog (tests, tools);
    /// it may save (e.g. trigger the Save action) before answering Save.
    void setUnsavedChooser(std::function<UnsavedChoice()> chooser) { m_unsavedChooser = std::move(chooser); }
    /// When set, a run dropped from the palette is queued without the editor.
    void setEditorEnabled(bool on) { m_editorEnabled = on; }
    /// The last notification shown (finished / failed runs), for tests.
    QString lastNotification() const { return m_notifier->lastNotification(); }

    // Run control on the selected runs (also the actions' slots).
    void startSelected() { m_runControl->startSelected(); }
    void stopSelected() { m_runControl->stopSelected(); }
    void pauseSelected() { m_runControl->pauseSelected(); }
    void resumeSelected() { m_runControl->resumeSelected(); }
    void retrySelected() { m_runControl->retrySelected(); }
    void duplicateSelected();
    void duplicateSelectedMany();
    /// Plots the past run of runs-table row `row` beside the board's runs, or
    /// stops plotting it; true when it is plotted now.
    bool togglePastRunPlot(int row);
    /// The worker the open board's runs start with (or would, with none open).
    QString workerProgram() const;
    void removeSelected();
    void startAll() { m_runControl->startAll(); }
    void stopAll() { m_runControl->stopAll(); }
    void openRunFolder();
    void showWorkerLog();
    void editSelected();
    /// The details of the first selected card (the Details action, Ctrl+I).
    void showSelectedDetails();
    /// The details of a run of the open experiment, on `page`; an open
    /// details window of the same run is raised instead of a second one.
    RunDetailsDialog *showRunDetails(RunId id, RunDetailsDialog::Page page = RunDetailsDialog::Page::Overview);
    /// The details of the run in RunTableModel row `row` (open or past).
    RunDetailsDialog *showTableRunDetails(int row);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void createLayout();
    void createActions();
    void createMenus();
    void attachSession(Session *session, const QStringList &warnings);
    void detachSession(trainyard::Session *session);
    CloseChoice askHowToClose();
    UnsavedChoice askAboutUnsavedEdits();
    bool askAboutRecovery(const QString &name, const QDateTime &savedAt);
    bool askAboutTrust(const QString &file, const QStringList &commands);
    Scheduler *scheduler() const;
    void updateFinishCount();
    void updateActions();
    void showBoardError(const QString &message);
    /// The run editor on `spec`. `editedRun`: the name of the board's run it
    /// edits (its name may stay, no other run's may be taken); `asNewRun`: the
    /// edit of a run that has run, queued as a new run.
    bool editSpec(QJsonObject *spec, int *repeat, bool repeatEditable, const QString &editedRun = QString(),
                  bool asNewRun = false);
    void showCardMenu(const QPoint &globalPos);
    void showLaneMenu(int lane, const QPoint &globalPos);
    void addLane();

    BoardController *m_controller;
    SessionController *m_sessions;
    Autosave *m_autosave = nullptr;
    SessionController::RecoveryChooser m_recoveryChooser;
    SessionController::TrustChooser m_trustChooser;
    ModelCatalogue m_catalogue;
    RunColors *m_colors;
    DeviceHistory *m_history;
    PresetStore *m_presets;
    BoardModel *m_board;
    BoardView *m_boardView;
    ModelPaletteModel *m_paletteModel;
    ModelPalette *m_palette;
    PlotWidget *m_plot;
    PlotFeeder *m_feeder;
    RunTableModel *m_table;
    RunTablePanel *m_tablePanel;
    QTabWidget *m_tabs;
    QLabel *m_finishLabel;
    FallbackBanner *m_banner;
    RunControl *m_runControl;
    RunNotifier *m_notifier;
    RecentFiles *m_recent = nullptr;
    bool m_editorEnabled = true;
    std::function<CloseChoice()> m_closeChooser;
    std::function<UnsavedChoice()> m_unsavedChooser;

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
    QAction *m_addLaneAction = nullptr;
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
    QAction *m_folderAction = nullptr;
    QAction *m_logAction = nullptr;
    QAction *m_detailsAction = nullptr;
    RunDetailsWindows *m_details = nullptr;
};

} // namespace trainyard
