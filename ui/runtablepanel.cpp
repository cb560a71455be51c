#include "runtablepanel.h"

#include "runtablemodel.h"

#include <QDesktopServices>
#include <QHeaderView>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>

namespace trainyard {

RunTablePanel::RunTablePanel(RunTableModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_proxy(new RunTableSortProxy(this))
    , m_view(new QTableView(this))
    , m_filter(new QLineEdit(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_view->setObjectName(QStringLiteral("runTable"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(RunTableModel::StartedColumn, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    connect(m_model, &QAbstractItemModel::modelReset, m_view, [this] { m_view->resizeColumnsToContents(); });
    m_view->verticalHeader()->setVisible(false);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_filter->setPlaceholderText(tr("Filter runs (name, model, state, experiment…)"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_filter);
    layout->addWidget(m_view, 1);

    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        QList<RunId> ids;
        for (const QModelIndex &index : m_view->selectionModel()->selectedRows()) {
            const RunId id = index.data(RunTableModel::RunIdRole).toInt();
            if (id) {
                ids.append(id);
            }
        }
        // Past runs have no card: only open runs change the board's selection.
        if (!ids.isEmpty()) {
            Q_EMIT runsSelected(ids);
        }
    });
    connect(m_view, &QTableView::doubleClicked, this, [](const QModelIndex &index) {
        const QString dir = index.data(RunTableModel::RunDirRole).toString();
        if (!dir.isEmpty()) {
            QDesktopServices::openUrl(QUrl::fromLocalFile(dir));
        }
    });
}

} // namespace trainyard
