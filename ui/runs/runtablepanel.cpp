#include "ui/runs/runtablepanel.h"

#include "ui/app/appsettings.h"

#include "ui/runs/frozentableview.h"
#include "ui/runs/rungroupproxy.h"
#include "ui/runs/runtablemodel.h"
#include "ui/runs/runtableproxy.h"
#include "ui/runs/tensorboardexportaction.h"

#include <QAction>
#include <QDesktopServices>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QTableView>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace trainyard {

RunTablePanel::RunTablePanel(RunTableModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_proxy(new RunTableProxy(this))
    , m_groups(new RunGroupProxy(model, this))
    , m_view(new FrozenTableView(RunTableModel::FrozenColumnCount, this))
    , m_filter(new QLineEdit(this))
    , m_status(new QLabel(this))
    , m_detailsAction(new QAction(tr("&Details…"), this))
    , m_folderAction(new QAction(tr("Open run &folder"), this))
    , m_plotAction(new QAction(tr("&Plot beside the board's runs"), this))
    , m_widen(new QTimer(this))
{
    loadColumnChoices();
    m_proxy->setSourceModel(m_model);
    m_groups->setSourceModel(m_proxy);
    m_view->setObjectName(QStringLiteral("runTable"));
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->setModel(m_groups);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(RunTableModel::StartedColumn, Qt::DescendingOrder);
    m_view->verticalHeader()->setVisible(false);
    // Sized from the rows in view and a few hundred more, not ten thousand.
    m_view->horizontalHeader()->setResizeContentsPrecision(200);
    connect(m_groups, &QAbstractItemModel::modelReset, m_view, [this] {
        applyColumnChoices();
        m_view->resizeColumnsToContents();
        m_view->syncFrozen();
    });
    connect(m_model, &RunTableModel::columnDefaultsChanged, this, [this] {
        applyColumnChoices();
        m_view->syncFrozen();
    });
    QHeaderView *header = m_view->horizontalHeader();
    header->setStretchLastSection(true);
    header->setSectionResizeMode(QHeaderView::Interactive);
    for (QHeaderView *h : {header, m_view->frozenView()->horizontalHeader()}) {
        h->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(h, &QHeaderView::customContextMenuRequested, this,
                [this, h](const QPoint &pos) { showHeaderMenu(h->mapToGlobal(pos), h->logicalIndexAt(pos)); });
    }
    m_filter->setObjectName(QStringLiteral("runQuery"));
    m_filter->setPlaceholderText(tr("Filter runs: model=transe lr<0.01 tag:best mrr>=0.3 name…"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, this, &RunTablePanel::setQuery);
    m_status->setObjectName(QStringLiteral("runCount"));
    auto *top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_status);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    connect(m_groups, &QAbstractItemModel::modelReset, this, &RunTablePanel::updateStatus);
    connect(m_groups, &QAbstractItemModel::layoutChanged, this, &RunTablePanel::updateStatus);
    connect(m_groups, &QAbstractItemModel::rowsInserted, this, &RunTablePanel::updateStatus);
    connect(m_groups, &QAbstractItemModel::rowsRemoved, this, &RunTablePanel::updateStatus);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &RunTablePanel::updateStatus);
    // Numbers arrive and groups form after the reset sized the columns: a
    // cut "0.853…" or "Model = mnis…" reads as another value.
    m_widen->setSingleShot(true);
    m_widen->setInterval(100);
    connect(m_widen, &QTimer::timeout, this, &RunTablePanel::widenColumns);
    const auto widenLater = [this] { m_widen->start(); };
    connect(m_groups, &QAbstractItemModel::layoutChanged, this, widenLater);
    connect(m_groups, &QAbstractItemModel::rowsInserted, this, widenLater);
    connect(m_groups, &QAbstractItemModel::dataChanged, this, widenLater);

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
    for (QTableView *v : {static_cast<QTableView *>(m_view), m_view->frozenView()}) {
        v->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(v, &QWidget::customContextMenuRequested, this, [this, v](const QPoint &pos) { showRowMenu(v, pos); });
    }
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        QList<RunId> ids;
        for (int row : selectedRows()) {
            if (const RunId id = m_model->row(row).id) {
                ids.append(id);
            }
        }
        // Past runs have no card: only open runs change the board's selection.
        if (!ids.isEmpty()) {
            Q_EMIT runsSelected(ids);
        }
        Q_EMIT selectionChanged();
    });
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        if (const int row = modelRow(index.row()); row >= 0) {
            Q_EMIT detailsRequested(row);
        }
    });
    // A click on a group's header row folds it up or opens it.
    for (QTableView *v : {static_cast<QTableView *>(m_view), m_view->frozenView()}) {
        connect(v, &QTableView::clicked, this, [this](const QModelIndex &index) {
            if (m_groups->isGroupHeader(index.row())) {
                m_groups->toggleGroup(index.row());
            }
        });
    }
    applyColumnChoices();
    updateStatus();
    new TensorBoardExportAction(this); // its row menu item
}

QTableView *RunTablePanel::view() const
{
    return m_view;
}

QTableView *RunTablePanel::frozenView() const
{
    return m_view->frozenView();
}

int RunTablePanel::modelRow(int viewRow) const
{
    const QModelIndex sorted = m_groups->mapToSource(m_groups->index(viewRow, 0));
    return sorted.isValid() ? m_proxy->mapToSource(sorted).row() : -1;
}

int RunTablePanel::currentRow() const
{
    const QModelIndex current = m_view->currentIndex();
    return current.isValid() ? modelRow(current.row()) : -1;
}

QList<int> RunTablePanel::selectedRows() const
{
    QList<int> viewRows;
    for (const QModelIndex &index : m_view->selectionModel()->selectedRows()) {
        viewRows.append(index.row());
    }
    std::sort(viewRows.begin(), viewRows.end());
    QList<int> rows;
    for (int viewRow : std::as_const(viewRows)) {
        if (const int row = modelRow(viewRow); row >= 0) {
            rows.append(row);
        }
    }
    return rows;
}

QString RunTablePanel::setQuery(const QString &query)
{
    if (m_filter->text() != query) {
        m_filter->setText(query); // comes back here through textChanged
        return m_proxy->queryError();
    }
    const QString error = m_proxy->setQuery(query);
    m_filter->setToolTip(error.isEmpty() ? tr("All terms must hold: model=transe, lr<0.01 (also <=, >, >=, !=), "
                                              "tag:best, note:\"some words\", and words of a run's name or "
                                              "experiment.")
                                         : tr("Not a query: %1").arg(error));
    m_filter->setStyleSheet(error.isEmpty() ? QString() : QStringLiteral("QLineEdit { border: 2px solid #d0021b; }"));
    m_filter->setProperty("queryError", error);
    updateStatus();
    return error;
}

void RunTablePanel::setGroupColumn(int column)
{
    m_groups->setGroupColumn(column);
}

int RunTablePanel::groupColumn() const
{
    return m_groups->groupColumn();
}

void RunTablePanel::updateStatus()
{
    const int shown = m_proxy->rowCount();
    const int all = m_model->rowCount();
    QString text =
        shown == all ? (all == 1 ? tr("1 run") : tr("%1 runs").arg(all)) : tr("%1 of %2 runs").arg(shown).arg(all);
    if (m_groups->groupCount() > 0) {
        text += tr(", %1 groups").arg(m_groups->groupCount());
    }
    if (m_model->historyPending() > 0) {
        text += tr(" · reading run folders…");
    }
    m_status->setText(text);
}

void RunTablePanel::showRowMenu(QTableView *view, const QPoint &pos)
{
    const QModelIndex index = view->indexAt(pos);
    if (!index.isValid() || modelRow(index.row()) < 0) {
        return;
    }
    if (!view->selectionModel()->isRowSelected(index.row(), {})) {
        m_view->setCurrentIndex(m_groups->index(index.row(), qMax(index.column(), 0)));
    } else {
        m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::NoUpdate);
    }
    QMenu menu(this);
    menu.addAction(m_detailsAction);
    menu.addAction(m_folderAction);
    // The open experiment's runs are plotted by selecting their cards.
    const int row = currentRow();
    const bool past = row >= 0 && m_model->pastRun(row) != nullptr;
    m_plotAction->setEnabled(past);
    m_plotAction->setChecked(past && m_isPlotted && m_isPlotted(row));
    menu.addAction(m_plotAction);
    if (!m_rowActions.isEmpty()) {
        menu.addSeparator();
        menu.addActions(m_rowActions);
    }
    menu.exec(view->viewport()->mapToGlobal(pos));
}

QString RunTablePanel::columnId(int column) const
{
    const QString key = m_model->headerData(column, Qt::Horizontal, RunTableModel::ParamKeyRole).toString();
    return key.isEmpty() ? QStringLiteral("#%1").arg(column) : key;
}

bool RunTablePanel::shownByDefault(int column) const
{
    if (m_model->columnBlank(column)) {
        return false; // no run has a value: it would only crowd the others
    }
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

void RunTablePanel::widenColumns()
{
    const QHeaderView *header = m_view->horizontalHeader();
    const QAbstractItemView *cells = m_view; // QTableView hides its sizeHintForColumn
    for (int c = 0; c < m_groups->columnCount(); ++c) {
        if (m_view->isColumnHidden(c)) {
            continue;
        }
        const int wanted = std::max(cells->sizeHintForColumn(c), header->sectionSizeHint(c));
        if (wanted > m_view->columnWidth(c)) {
            m_view->setColumnWidth(c, wanted);
        }
    }
    m_view->syncFrozen();
}

void RunTablePanel::applyColumnChoices()
{
    for (int c = 0; c < m_model->columnCount(); ++c) {
        const bool hidden = !m_shown.value(columnId(c), shownByDefault(c));
        if (m_view->isColumnHidden(c) != hidden) {
            m_view->setColumnHidden(c, hidden);
        }
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
    m_view->syncFrozen();
}

QMenu *RunTablePanel::headerMenu(int column, QWidget *parent)
{
    auto *menu = new QMenu(parent);
    const auto title = [this](int c) { return m_model->headerData(c, Qt::Horizontal).toString(); };
    if (column >= 0 && column < m_model->columnCount()) {
        QAction *group = menu->addAction(tr("&Group by %1").arg(title(column)));
        group->setObjectName(QStringLiteral("groupBy"));
        group->setCheckable(true);
        group->setChecked(groupColumn() == column);
        connect(group, &QAction::toggled, this, [this, column](bool on) { setGroupColumn(on ? column : -1); });
    }
    QAction *ungroup = menu->addAction(tr("&No groups"));
    ungroup->setObjectName(QStringLiteral("noGroups"));
    ungroup->setEnabled(groupColumn() >= 0);
    connect(ungroup, &QAction::triggered, this, [this] { setGroupColumn(-1); });
    menu->addSeparator();
    const auto add = [this, &title](QMenu *into, int c) {
        QAction *a = into->addAction(title(c));
        a->setCheckable(true);
        a->setChecked(!m_view->isColumnHidden(c));
        if (m_model->columnBlank(c)) {
            a->setToolTip(tr("No run has a value here"));
        }
        connect(a, &QAction::toggled, this, [this, c](bool on) { setColumnShown(c, on); });
    };
    for (int c = 0; c < RunTableModel::FixedColumnCount; ++c) {
        add(menu, c);
    }
    if (m_model->columnCount() > RunTableModel::FixedColumnCount) {
        QMenu *params = menu->addMenu(tr("Hyperparameters"));
        params->setToolTipsVisible(true);
        QAction *differing = params->addAction(tr("Show those that differ between the runs"));
        connect(differing, &QAction::triggered, this, [this] {
            for (int c = RunTableModel::FixedColumnCount; c < m_model->columnCount(); ++c) {
                m_shown.remove(columnId(c));
            }
            saveColumnChoices();
            applyColumnChoices();
            m_view->syncFrozen();
        });
        params->addSeparator();
        for (int c = RunTableModel::FixedColumnCount; c < m_model->columnCount(); ++c) {
            add(params, c);
        }
    }
    menu->setToolTipsVisible(true);
    return menu;
}

void RunTablePanel::showHeaderMenu(const QPoint &globalPos, int column)
{
    QMenu *menu = headerMenu(column, this);
    menu->exec(globalPos);
    delete menu;
}

} // namespace trainyard
