#pragma once

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/records/runinfo.h"
#include "ui/app/runnotifier.h"
#include "ui/app/sessioncontroller.h"
#include "ui/board/boardcontroller.h"
#include "ui/board/runcontrol.h"
#include "ui/runs/rundetailsdialog.h"

#include <QHash>
#include <QMainWindow>
#include <QPointer>

#include <functional>
#include <memory>

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
class SpecCheckBanner;
class ModelPalette;
class ModelPaletteModel;
class PlotFeeder;
class PlotWidget;
class PresetStore;
class Prompts;
class ScriptedPrompts;
class SpecDialogs;
class SweepPanel;
class RunColors;
class RunCompare;
class RunDetailsWindows;
class RunTableModel;
class RunTablePanel;
class WindowActions;
class Orchestrator;
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
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Experiment files. Each returns false (after telling the user) on failure.
    bool openDemo() { return m_sessions->openDemo(); }
    /// What the app opens without a file: a recovered unsaved board, the
    /// experiment left training, the last one used, else the demo.
    bool openAtStart() { return m_sessions->openAtStart(); }
    Autosave *autosave() const { return m_autosave; }
    bool openFile(const QString &path) { return m_sessions->openFile(path); }
    bool newExperiment() { return m_sessions->newExperiment(); }
    bool saveTo(const QString &path) { return m_sessions->saveTo(path); }

    /// Loads the palette from `trainyard-worker --list-models` (asynchronously).
    void loadCatalogue();
    void setCatalogue(const ModelCatalogue &catalogue);
    const ModelCatalogue &catalogue() const { return m_catalogue; }

    Session *session() const { return m_sessions->session(); }
    /// The open experiment (null between one and the next).
    ExperimentDocument *document() const;
    SessionController *sessionController() const { return m_sessions; }
    BoardController *boardController() const { return m_controller; }
    BoardModel *boardModel() const { return m_board; }
    BoardView *boardView() const { return m_boardView; }
    PlotWidget *plot() const { return m_plot; }
    PlotFeeder *plotFeeder() const { return m_feeder; }
    RunTableModel *runTable() const { return m_table; }
    RunTablePanel *runTablePanel() const { return m_tablePanel; }
    RunCompare *runCompare() const { return m_compare; }
    ModelPaletteModel *paletteModel() const { return m_paletteModel; }
    ModelPalette *palette() const { return m_palette; }
    RunControl *runControl() const { return m_runControl; }
    SweepPanel *sweepPanel() const { return m_sweeps; }
    QUndoStack *undoStack() const { return m_controller->undoStack(); }
    QString finishCountText() const { return m_sessions->finishCountText(); }

    /// Replaces the dialogs that ask the user by answers given in advance
    /// (tests, tools): the returned prompts, owned by the window, whose
    /// answers the caller may change.
    ScriptedPrompts *useScriptedPrompts();
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
    /// Asks for a device and slots, then adds a lane (an undoable edit).
    void addLane();
    /// Lanes of missing GPUs run on the CPU (`on`) or wait.
    void setCpuFallback(bool on);
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
    void attachSession(ExperimentDocument *document, const QStringList &warnings);
    void detachSession();
    void setPrompts(Prompts *prompts);
    void updateFinishCount();
    void updateActions();
    void showBoardError(const QString &message);
    void showLaneMenu(int lane, const QPoint &globalPos);

    BoardController *m_controller;
    SessionController *m_sessions;
    Autosave *m_autosave = nullptr;
    std::unique_ptr<Prompts> m_dialogs;
    std::unique_ptr<ScriptedPrompts> m_scripted;
    Prompts *m_prompts = nullptr; ///< one of the two
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
    SpecCheckBanner *m_specChecks;
    RunControl *m_runControl;
    RunNotifier *m_notifier;
    bool m_editorEnabled = true;

    WindowActions *m_actions = nullptr;
    RunDetailsWindows *m_details = nullptr;
    RunCompare *m_compare = nullptr;
    std::unique_ptr<SpecDialogs> m_specDialogs;
    SweepPanel *m_sweeps = nullptr; ///< the Sweep view's tab and the sweep editor
};

} // namespace trainyard
