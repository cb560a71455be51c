#pragma once

#include "modelcatalog.h"
#include "runinfo.h"

#include <QMainWindow>

#include <functional>
#include <memory>

class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QSortFilterProxyModel;
class QTableView;
class QTabWidget;
class QUndoStack;

namespace trainyard {

class BoardModel;
class BoardView;
class DeviceHistory;
class ModelPalette;
class ModelPaletteModel;
class PlotFeeder;
class PlotWidget;
class PresetStore;
class RunColors;
class RunTableModel;
class Session;

/// The desktop app's window: the model palette, the board of lanes, the live
/// plots and the run table around one open experiment (a core Session), with
/// file handling (new, open, save, recent files), undo, run control and
/// notifications.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    /// What to do with training runs when the window closes.
    enum class CloseChoice { StopRuns, LeaveRunning, Cancel };

    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Experiment files. Each returns false (after telling the user) on failure.
    bool openDemo();
    bool openFile(const QString &path);
    bool newExperiment();
    bool saveTo(const QString &path);

    /// Loads the palette from `trainyard-worker --list-models` (asynchronously).
    void loadCatalog();
    void setCatalog(const ModelCatalog &catalog);
    const ModelCatalog &catalog() const { return m_catalog; }

    Session *session() const { return m_session.get(); }
    BoardModel *boardModel() const { return m_board; }
    BoardView *boardView() const { return m_boardView; }
    PlotWidget *plot() const { return m_plot; }
    PlotFeeder *plotFeeder() const { return m_feeder; }
    RunTableModel *runTable() const { return m_table; }
    ModelPaletteModel *paletteModel() const { return m_paletteModel; }
    ModelPalette *palette() const { return m_palette; }
    QUndoStack *undoStack() const { return m_undo; }
    QString finishCountText() const;

    /// Replaces the dialogs that ask the user (tests, screenshots).
    void setCloseChooser(std::function<CloseChoice()> chooser) { m_closeChooser = std::move(chooser); }
    /// When set, a run dropped from the palette is queued without the editor.
    void setEditorEnabled(bool on) { m_editorEnabled = on; }
    /// The last notification shown (finished / failed runs), for tests.
    QString lastNotification() const { return m_lastNotification; }

    // Run control on the selected runs (also the actions' slots).
    void startSelected();
    void stopSelected();
    void pauseSelected();
    void resumeSelected();
    void retrySelected();
    void duplicateSelected();
    void removeSelected();
    void startAll();
    void stopAll();
    void openRunFolder();
    void showWorkerLog();
    void editSelected();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void createActions();
    void createMenus();
    bool installSession(std::unique_ptr<Session> session, const QStringList &errors);
    bool closeSession();
    void updateTitle();
    void updateFinishCount();
    void updateActions();
    void addRecentFile(const QString &path);
    void rebuildRecentMenu();
    void notify(const QString &title, const QString &text);
    void showBoardError(const QString &message);
    bool editSpec(QJsonObject *spec, int *repeat, bool repeatEditable);
    void showCardMenu(const QPoint &globalPos);
    void showLaneMenu(int lane, const QPoint &globalPos);
    void addLane();
    void forEachSelected(const std::function<bool(RunId, QString *)> &action);
    void updateFallbackBanner();

    std::unique_ptr<Session> m_session;
    ModelCatalog m_catalog;
    QUndoStack *m_undo;
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
    QSortFilterProxyModel *m_tableProxy;
    QTableView *m_tableView;
    QLineEdit *m_tableFilter;
    QTabWidget *m_tabs;
    QLabel *m_finishLabel;
    QLabel *m_banner;
    QMenu *m_recentMenu = nullptr;
    QString m_lastNotification;
    bool m_editorEnabled = true;
    std::function<CloseChoice()> m_closeChooser;

    QAction *m_newAction = nullptr;
    QAction *m_openAction = nullptr;
    QAction *m_saveAction = nullptr;
    QAction *m_saveAsAction = nullptr;
    QAction *m_demoAction = nullptr;
    QAction *m_quitAction = nullptr;
    QAction *m_undoAction = nullptr;
    QAction *m_redoAction = nullptr;
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
};

} // namespace trainyard
