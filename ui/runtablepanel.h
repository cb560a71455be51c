#pragma once

#include "runinfo.h"

#include <QList>
#include <QWidget>

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace trainyard {

class RunTableModel;

/// The "Runs" tab: every run of this and past experiments (a RunTableModel)
/// behind a filter box, newest first. Selecting open runs asks for their
/// cards to be selected; a double-click opens a run's folder.
class RunTablePanel : public QWidget
{
    Q_OBJECT
public:
    RunTablePanel(RunTableModel *model, QWidget *parent = nullptr);

    QTableView *view() const { return m_view; }

Q_SIGNALS:
    /// Runs of the open experiment selected in the table (never empty).
    void runsSelected(const QList<trainyard::RunId> &ids);

private:
    RunTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_view;
    QLineEdit *m_filter;
};

} // namespace trainyard
