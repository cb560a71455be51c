
#include "ui/runs/comparedialog.h"

#include "orchestration/runspec/runspecview.h"
#include "ui/board/carddelegate.h"
#include "ui/plot/plotwidget.h"
#include "ui/runs/numberformat.h"
#include "ui/runs/paramcolumns.h"
#include "ui/runs/runtablecolumns.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>

namespace trainyard {

namespace {

// The rows of results: the runs table's columns that say how a run went.
const int kResults[] = {RunTableColumns::ExperimentColumn, RunTableColumns::ModelColumn,
                        RunTableColumns::DataColumn,       RunTableColumns::StateColumn,
                        RunTableColumns::StepColumn,       RunTableColumns::LossColumn,
                        RunTableColumns::MrrColumn,        RunTableColumns::Hits10Column,
                        RunTableColumns::AccuracyColumn,   RunTableColumns::DurationColumn};

// A result of `row`, its number written as the other run's is (`format`).
QString resultText(const RunRow &row, int column, const NumberFormat &format)
{
    const QVariant value = RunTableColumns::value(row, column, {});
    if (!value.isValid()) {
        return QStringLiteral("—");
    }
    if (column == RunTableColumns::DurationColumn) {
        return CardDelegate::formatDuration(value.toDouble());
    }
    if (RunTableColumns::isNumberColumn(column)) {
        return format.text(value.toDouble());
    }
    return value.toString();
}

} // namespace

CompareDialog::CompareDialog(const Side &a, const Side &b, RunColors *colors, QWidget *parent)
    : QDialog(parent)
    , m_table(new QTreeWidget(this))
    , m_onlyDifferences(new QCheckBox(tr("Only what differs"), this))
    , m_plot(new PlotWidget(colors, this))
{
    setObjectName(QStringLiteral("compareRuns"));
    setWindowTitle(tr("Compare %1 and %2").arg(a.row.name, b.row.name));
    m_table->setObjectName(QStringLiteral("compareTable"));
    m_table->setHeaderLabels({tr("Key"), a.row.name, b.row.name});
    m_table->setAlternatingRowColors(true);
    m_table->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_onlyDifferences->setObjectName(QStringLiteral("onlyDifferences"));
    connect(m_onlyDifferences, &QCheckBox::toggled, this, &CompareDialog::setOnlyDifferences);
    fill(a, b);

    // The curves, each where it is already kept.
    for (const Side *side : {&a, &b}) {
        if (side->curves.store) {
            m_plot->addRun(side->plotKey, side->row.name, side->plotKey, side->curves, side->origin);
        }
    }
    m_plot->setSelectedRuns({a.plotKey, b.plotKey});

    auto *top = new QWidget(this);
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    auto *count = new QLabel(m_differing.isEmpty() ? tr("The two runs have the same spec and results.")
                                                   : tr("%1 keys differ (marked).").arg(m_differing.size()),
                             this);
    count->setObjectName(QStringLiteral("differenceCount"));
    topLayout->addWidget(count);
    topLayout->addWidget(m_onlyDifferences);
    topLayout->addWidget(m_table, 1);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(top);
    splitter->addWidget(m_plot);
    splitter->setSizes({360, 360});
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(splitter, 1);
    layout->addWidget(buttons);
    resize(900, 760);
}

void CompareDialog::fill(const Side &a, const Side &b)
{
    QFont bold = m_table->font();
    bold.setBold(true);
    const QBrush marked(QColor(255, 214, 102, 110)); // amber, readable in light and dark themes
    const auto add = [&](QTreeWidgetItem *parent, const QString &key, const QString &left, const QString &right) {
        auto *item = new QTreeWidgetItem(parent, QStringList{key, left, right});
        if (left != right) {
            m_differing << key;
            item->setData(0, Qt::UserRole, true);
            for (int c = 0; c < 3; ++c) {
                item->setFont(c, bold);
                item->setBackground(c, marked);
            }
            item->setToolTip(0, tr("%1 differs").arg(key));
        }
    };
    auto *results = new QTreeWidgetItem(m_table, QStringList{tr("Results")});
    for (int column : kResults) {
        NumberFormat format;
        for (const RunRow *row : {&a.row, &b.row}) {
            format.add(RunTableColumns::value(*row, column, {}).toDouble());
        }
        add(results, RunTableColumns::title(column), resultText(a.row, column, format),
            resultText(b.row, column, format));
    }
    auto *spec = new QTreeWidgetItem(m_table, QStringList{tr("Spec (with the defaults)")});
    // The keys of both, in the runs table's order of hyperparameter columns.
    const ParamColumns columns = ParamColumns::of({a.row, b.row}, {});
    for (const QString &key : columns.keys()) {
        const auto text = [&key](const RunRow &row) {
            const auto it = row.params.constFind(key);
            return it == row.params.constEnd() ? QStringLiteral("—") : RunSpecView::valueText(*it);
        };
        add(spec, key, text(a.row), text(b.row));
    }
    m_table->expandAll();
    for (int c = 0; c < 3; ++c) {
        m_table->resizeColumnToContents(c);
    }
}

void CompareDialog::setOnlyDifferences(bool on)
{
    if (m_onlyDifferences->isChecked() != on) {
        m_onlyDifferences->setChecked(on); // comes back here
        return;
    }
    for (int g = 0; g < m_table->topLevelItemCount(); ++g) {
        QTreeWidgetItem *group = m_table->topLevelItem(g);
        for (int i = 0; i < group->childCount(); ++i) {
            QTreeWidgetItem *item = group->child(i);
            item->setHidden(on && !item->data(0, Qt::UserRole).toBool());
        }
    }
}

QString CompareDialog::valueText(const QString &key, int side) const
{
    for (int g = 0; g < m_table->topLevelItemCount(); ++g) {
        QTreeWidgetItem *group = m_table->topLevelItem(g);
        for (int i = 0; i < group->childCount(); ++i) {
            if (group->child(i)->text(0) == key) {
                return group->child(i)->text(1 + side);
            }
        }
    }
    return {};
}

} // namespace trainyard
