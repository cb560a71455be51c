#pragma once

#include "orchestration/records/runinfo.h"

#include <QHash>
#include <QList>
#include <QWidget>

#include <functional>

class QTimer;

class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QTableView;

namespace trainyard {

class FrozenTableView;
class RunGroupProxy;
class RunTableModel;
class RunTableProxy;

/// The "Runs" tab: every run of this and past experiments (a RunTableModel),
/// newest first, behind a query box (RunQuery: `model=transe lr<0.01
/// tag:best exp1`; a query that cannot be read turns the box red and says
/// why in its tooltip). The run's experiment and name stay in view while the
/// hyperparameters scroll sideways (FrozenTableView); the header's menu
/// groups the runs by a column (RunGroupProxy) and shows or hides any
/// column; by default the hyperparameters whose values differ between the
/// runs are shown, and no column blank for every run. Selecting open runs
/// asks for their cards to be selected; a double-click, Ctrl+I or the row
/// menu's "Details…" asks for a run's details; the row menu also plots a
/// past run and compares two runs.
class RunTablePanel : public QWidget
{
    Q_OBJECT
public:
    RunTablePanel(RunTableModel *model, QWidget *parent = nullptr);

    RunTableModel *model() const { return m_model; }
    QTableView *view() const;
    /// The view of the columns that do not scroll sideways (over view()'s left edge).
    QTableView *frozenView() const;
    QLineEdit *queryBox() const { return m_filter; }
    /// Whether the past run of a row is plotted (the row menu's check mark).
    void setPlottedQuery(std::function<bool(int row)> query) { m_isPlotted = std::move(query); }
    QAction *detailsAction() const { return m_detailsAction; }
    /// Put in the row menu (the compare action: RunCompare's).
    void addRowAction(QAction *action) { m_rowActions.append(action); }
    /// The RunTableModel row of the current row of the view, -1 when none.
    int currentRow() const;
    /// The RunTableModel rows selected, in the view's order.
    QList<int> selectedRows() const;
    /// The RunTableModel row of a row of the view, -1 for a group's header.
    int modelRow(int viewRow) const;
    /// Filters by `query` as typed in the box; returns why it cannot be read.
    QString setQuery(const QString &query);
    /// Groups the rows by `column` (-1: no groups), as the header's menu does.
    void setGroupColumn(int column);
    int groupColumn() const;
    /// Shows or hides a column as the header's menu does (the choice
    /// outlives the model's resets and the app: QSettings; a hyperparameter
    /// is named by its key).
    void setColumnShown(int column, bool shown);
    /// The header's menu for `column` (-1: none under the pointer): group
    /// by it, no groups, and every column, checked when shown.
    QMenu *headerMenu(int column, QWidget *parent);
    void showHeaderMenu(const QPoint &globalPos, int column = -1);

Q_SIGNALS:
    /// Runs of the open experiment selected in the table (never empty).
    void runsSelected(const QList<trainyard::RunId> &ids);
    /// The details of the run in RunTableModel row `row`.
    void detailsRequested(int row);
    /// Plot (or stop plotting) the past run of row `row` beside the board's runs.
    void plotToggleRequested(int row);
    /// The rows selected changed (RunTableModel rows).
    void selectionChanged();

private:
    QString columnId(int column) const;
    bool shownByDefault(int column) const;
    void applyColumnChoices();
    void loadColumnChoices();
    void saveColumnChoices() const;
    void showRowMenu(QTableView *view, const QPoint &pos);
    void updateStatus();
    /// Widens each shown column that its cells or its header no longer fit
    /// (never narrows one the user sized).
    void widenColumns();

    RunTableModel *m_model;
    RunTableProxy *m_proxy;
    RunGroupProxy *m_groups;
    FrozenTableView *m_view;
    QLineEdit *m_filter;
    QLabel *m_status;
    QAction *m_detailsAction;
    QAction *m_folderAction;
    QAction *m_plotAction;
    QList<QAction *> m_rowActions;
    std::function<bool(int row)> m_isPlotted;
    QHash<QString, bool> m_shown; ///< the user's choices, by columnId; kept in QSettings
    QTimer *m_widen;              ///< widenColumns, once for a burst of changes
};

} // namespace trainyard
