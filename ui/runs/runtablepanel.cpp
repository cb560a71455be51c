#include "runs/runtablepanel.h"

#include "app/appsettings.h"

#include "runs/runtablemodel.h"

#include <QAction>
#include <QDesktopServices>
#include <QFileInfo>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
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
    , m_detailsAction(new QAction(tr("&Details…"), this))
    , m_folderAction(new QAction(tr("Open run &folder"), this))
    , m_plotAction(new QAction(tr("&Plot beside the board's runs"), this))
{
    loadColumnChoices();
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
    connect(m_model, &QAbstractItemModel::modelReset, m_view, [this] {
        applyColumnChoices();
        m_view->resizeColumnsToContents();
    });
    m_view->verticalHeader()->setVisible(false);
    QHeaderView *header = m_view->horizontalHeader();
    header->setStretchLastSection(true);
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(header, &QHeaderView::customContextMenuRequested, this,
            [this, header](const QPoint &pos) { showHeaderMenu(header->mapToGlobal(pos)); });
    m_filter->setPlaceholderText(tr("Filter runs (name, tag, note, model, state, experiment, hyperparameter value…)"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_filter);
    layout->addWidget(m_view, 1);

    // Ctrl+I here, not while typing in the filter box; the board's cards have
    // their own action with the same key.
    m_detailsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    m_detailsAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_view->addAction(m_detailsAction);
    connect(m_detailsAction, &QAction::triggered, this, [this] {
        const int row = currentRow();
        if (row >= 0) {
            Q_EMIT detailsRequested(row);
        }
    });
    m_plotAction->setCheckable(true);
    connect(m_plotAction, &QAction::triggered, this, [this] {
        if (const int row = currentRow(); row >= 0) {
            Q_EMIT plotToggleRequested(row);
        }
    });
    connect(m_folderAction, &QAction::triggered, this, [this] {
        const int row = currentRow();
        const QString dir = row >= 0 ? m_model->index(row, 0).data(RunTableModel::RunDirRole).toString() : QString();
        if (!dir.isEmpty() && QFileInfo::exists(dir)) {
            QDesktopServices::openUrl(QUrl::fromLocalFile(dir));
        }
    });
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, &RunTablePanel::showRowMenu);

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
    connect(m_view, &QTableView::doubleClicked, this,
            [this](const QModelIndex &index) { Q_EMIT detailsRequested(m_proxy->mapToSource(index).row()); });
    applyColumnChoices();
}

int RunTablePanel::currentRow() const
{
    const QModelIndex current = m_view->currentIndex();
    return current.isValid() ? m_proxy->mapToSource(current).row() : -1;
}

void RunTablePanel::showRowMenu(const QPoint &pos)
{
    const QModelIndex index = m_view->indexAt(pos);
    if (!index.isValid()) {
        return;
    }
    m_view->setCurrentIndex(index);
    QMenu menu(this);
    menu.addAction(m_detailsAction);
    menu.addAction(m_folderAction);
    // The open experiment's runs are plotted by selecting their cards.
    const int row = currentRow();
    const bool past = row >= 0 && m_model->pastRun(row) != nullptr;
    m_plotAction->setEnabled(past);
    m_plotAction->setChecked(past && m_isPlotted && m_isPlotted(row));
    menu.addAction(m_plotAction);
    menu.exec(m_view->viewport()->mapToGlobal(pos));
}

QString RunTablePanel::columnId(int column) const
{
    const QString key = m_model->headerData(column, Qt::Horizontal, RunTableModel::ParamKeyRole).toString();
    return key.isEmpty() ? QStringLiteral("#%1").arg(column) : key;
}

bool RunTablePanel::shownByDefault(int column) const
{
    if (column < RunTableModel::FixedColumnCount) {
        // The folder is in the details and the row menu; its long path would
        // push the hyperparameters out of sight.
        return column != RunTableModel::FolderColumn;
    }
    return m_model->paramDiffers(columnId(column));
}

namespace {
// The user's column choices outlive the window: "id=1" / "id=0" per column.
const QString columnsKey = QStringLiteral("runsTable/columns");
} // namespace

void RunTablePanel::loadColumnChoices()
{
    for (const QString &entry : appSettings().value(columnsKey).toStringList()) {
        const qsizetype eq = entry.lastIndexOf(QLatin1Char('='));
        if (eq > 0) {
            m_shown.insert(entry.left(eq), entry.mid(eq + 1) == QLatin1String("1"));
        }
    }
}

void RunTablePanel::saveColumnChoices() const
{
    QStringList entries;
    for (auto it = m_shown.constBegin(); it != m_shown.constEnd(); ++it) {
        entries << it.key() + (it.value() ? QStringLiteral("=1") : QStringLiteral("=0"));
    }
    entries.sort();
    appSettings().setValue(columnsKey, entries);
}

void RunTablePanel::applyColumnChoices()
{
    for (int c = 0; c < m_model->columnCount(); ++c) {
        m_view->setColumnHidden(c, !m_shown.value(columnId(c), shownByDefault(c)));
    }
}

void RunTablePanel::setColumnShown(int column, bool shown)
{
    m_shown.insert(columnId(column), shown);
    saveColumnChoices();
    m_view->setColumnHidden(column, !shown);
    if (shown) {
        m_view->resizeColumnToContents(column);
    }
}

void RunTablePanel::showHeaderMenu(const QPoint &globalPos)
{
    QMenu menu(this);
    const auto add = [this](QMenu *into, int c) {
        QAction *a = into->addAction(m_model->headerData(c, Qt::Horizontal).toString());
        a->setCheckable(true);
        a->setChecked(!m_view->isColumnHidden(c));
        connect(a, &QAction::toggled, this, [this, c](bool on) { setColumnShown(c, on); });
    };
    for (int c = 0; c < RunTableModel::FixedColumnCount; ++c) {
        add(&menu, c);
    }
    if (m_model->columnCount() > RunTableModel::FixedColumnCount) {
        QMenu *params = menu.addMenu(tr("Hyperparameters"));
        QAction *differing = params->addAction(tr("Show those that differ between the runs"));
        connect(differing, &QAction::triggered, this, [this] {
            for (int c = RunTableModel::FixedColumnCount; c < m_model->columnCount(); ++c) {
                m_shown.remove(columnId(c));
            }
            saveColumnChoices();
            applyColumnChoices();
        });
        params->addSeparator();
        for (int c = RunTableModel::FixedColumnCount; c < m_model->columnCount(); ++c) {
            add(params, c);
        }
    }
    menu.exec(globalPos);
}

} // namespace trainyard
