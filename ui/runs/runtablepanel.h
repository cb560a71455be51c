#pragma once

#include "records/runinfo.h"

#include <QHash>
#include <QList>
#include <QWidget>

#include <functional>

class QAction;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace trainyard {

class RunTableModel;

/// The "Runs" tab: every run of this and past experiments (a RunTableModel)
/// behind a filter box (names, tags, notes, hyperparameter values...),
/// newest first. Selecting open runs asks for their cards to be selected; a
/// double-click, Ctrl+I or the row menu's "Details…" asks for a run's
/// details. The header's menu shows or hides any column; by default the
/// hyperparameters whose values differ between the runs are shown.
class RunTablePanel : public QWidget
{
    Q_OBJECT
public:
    RunTablePanel(RunTableModel *model, QWidget *parent = nullptr);

    QTableView *view() const { return m_view; }
    /// Whether the past run of a row is plotted (the row menu's check mark).
    void setPlottedQuery(std::function<bool(int row)> query) { m_isPlotted = std::move(query); }
    QAction *detailsAction() const { return m_detailsAction; }
    /// The RunTableModel row of the current row of the view, -1 when none.
    int currentRow() const;
    /// Shows or hides a column as the header's menu does (the choice
    /// outlives the model's resets and the app: QSettings; a hyperparameter
    /// is named by its key).
    void setColumnShown(int column, bool shown);
    /// The header's menu: every column, checked when shown.
    void showHeaderMenu(const QPoint &globalPos);

Q_SIGNALS:
    /// Runs of the open experiment selected in the table (never empty).
    void runsSelected(const QList<trainyard::RunId> &ids);
    /// The details of the run in RunTableModel row `row`.
    void detailsRequested(int row);
    /// Plot (or stop plotting) the past run of row `row` beside the board's runs.
    void plotToggleRequested(int row);

private:
    QString columnId(int column) const;
    bool shownByDefault(int column) const;
    void applyColumnChoices();
    void loadColumnChoices();
    void saveColumnChoices() const;
    void showRowMenu(const QPoint &pos);

    RunTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_view;
    QLineEdit *m_filter;
    QAction *m_detailsAction;
    QAction *m_folderAction;
    QAction *m_plotAction;
    std::function<bool(int row)> m_isPlotted;
    QHash<QString, bool> m_shown; ///< the user's choices, by columnId; kept in QSettings
};

} // namespace trainyard
