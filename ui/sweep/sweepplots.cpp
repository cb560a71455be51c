// qcustomplot.h uses `foreach` in its own templates; our code never does.
#undef QT_NO_FOREACH

#include "ui/sweep/sweepplots.h"

#include "orchestration/runspec/runspecview.h"
#include "orchestration/sweep/asha.h"
#include "ui/plot/plotlogticker.h"
#include "ui/sweep/sweeptablemodel.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace trainyard {

namespace {

void setUpPlot(QCustomPlot *plot)
{
    plot->setMinimumHeight(100); // as the parallel coordinates: the board keeps room
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->xAxis->grid()->setVisible(true);
    plot->yAxis->grid()->setVisible(true);
}

const SweepParameter *parameter(const SweepSpec &sweep, const QString &key)
{
    for (const SweepParameter &p : sweep.space) {
        if (p.key == key) {
            return &p;
        }
    }
    return nullptr;
}

} // namespace

ObjectiveScatter::ObjectiveScatter(QWidget *parent)
    : QWidget(parent)
    , m_combo(new QComboBox(this))
    , m_plot(new QCustomPlot(this))
{
    m_combo->setObjectName(QStringLiteral("sweepScatterKey"));
    m_plot->setObjectName(QStringLiteral("sweepScatter"));
    setUpPlot(m_plot);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_combo);
    layout->addWidget(m_plot, 1);
    connect(m_combo, &QComboBox::currentIndexChanged, this, [this] { replot(); });
}

void ObjectiveScatter::setSweep(const SweepSpec &sweep, const QList<TrialInfo> &trials)
{
    const QString previous = m_combo->currentText();
    m_sweep = sweep;
    m_trials = trials;
    const QStringList keys = sweptKeys(sweep);
    {
        const QSignalBlocker block(m_combo);
        m_combo->clear();
        m_combo->addItems(keys);
        // The user's pick stays; else a logarithmic key, where a search's effect shows most.
        qsizetype pick = keys.indexOf(previous);
        for (qsizetype i = 0; pick < 0 && i < keys.size(); ++i) {
            const SweepParameter *p = parameter(sweep, keys.at(i));
            pick = p && p->isLogarithmic() ? i : -1;
        }
        m_combo->setCurrentIndex(int(std::max<qsizetype>(0, pick)));
    }
    replot();
}

bool ObjectiveScatter::setKey(const QString &key)
{
    const int i = m_combo->findText(key);
    if (i < 0) {
        return false;
    }
    m_combo->setCurrentIndex(i);
    replot();
    return true;
}

QString ObjectiveScatter::key() const
{
    return m_combo->currentText();
}

bool ObjectiveScatter::xIsLogarithmic() const
{
    return m_plot->xAxis->scaleType() == QCPAxis::stLogarithmic;
}

int ObjectiveScatter::pointCount() const
{
    return m_plot->graphCount() ? m_plot->graph(0)->dataCount() : 0;
}

void ObjectiveScatter::replot()
{
    m_plot->clearGraphs();
    const QString key = m_combo->currentText();
    const SweepParameter *p = parameter(m_sweep, key);
    const bool log = p && p->isLogarithmic();
    m_plot->xAxis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    // Strings and booleans: one tick per value, in the space's order.
    QStringList categories;
    if (p && p->kind == SweepParameter::Kind::Values
        && !std::all_of(p->values.begin(), p->values.end(), [](const QJsonValue &v) { return v.isDouble(); })) {
        for (const QJsonValue &v : p->values) {
            categories << RunSpecView::valueText(v);
        }
    }
    if (log) {
        m_plot->xAxis->setTicker(QSharedPointer<PlotLogTicker>::create());
    } else if (!categories.isEmpty()) {
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        for (int i = 0; i < categories.size(); ++i) {
            ticker->addTick(i, categories.at(i));
        }
        m_plot->xAxis->setTicker(ticker);
    } else {
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
    QVector<double> xs;
    QVector<double> ys;
    for (const TrialInfo &t : std::as_const(m_trials)) {
        if (t.phase == TrialInfo::Phase::Failed || !std::isfinite(t.objective)) {
            continue;
        }
        const QJsonValue v = t.values.value(key);
        const double x = categories.isEmpty() ? (v.isDouble() ? v.toDouble() : qQNaN())
                                              : double(categories.indexOf(RunSpecView::valueText(v)));
        if (!std::isfinite(x) || (x <= 0 && log) || (x < 0 && !categories.isEmpty())) {
            continue;
        }
        xs << x;
        ys << t.objective;
    }
    QCPGraph *graph = m_plot->addGraph();
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(33, 145, 140), 7));
    graph->setData(xs, ys);
    m_plot->xAxis->setLabel(key);
    m_plot->yAxis->setLabel(m_sweep.objective);
    m_plot->rescaleAxes();
    // A margin so points on the range's ends are not cut in half.
    if (log) {
        const QCPRange r = m_plot->xAxis->range();
        m_plot->xAxis->setRange(r.lower / 1.3, r.upper * 1.3);
    } else {
        m_plot->xAxis->scaleRange(1.1, m_plot->xAxis->range().center());
    }
    m_plot->yAxis->scaleRange(1.1, m_plot->yAxis->range().center());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

BestSoFarPlot::BestSoFarPlot(QWidget *parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    m_plot->setObjectName(QStringLiteral("sweepBestSoFar"));
    setUpPlot(m_plot);
    m_plot->xAxis->setLabel(tr("wall time (s)"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
}

QList<BestSoFarPlot::Report> BestSoFarPlot::bestSoFar(QList<Report> reports, bool maximize)
{
    std::stable_sort(reports.begin(), reports.end(), [](const Report &a, const Report &b) { return a.time < b.time; });
    QList<Report> steps;
    for (const Report &r : std::as_const(reports)) {
        if (!std::isfinite(r.value)) {
            continue;
        }
        if (steps.isEmpty() || (maximize ? r.value > steps.last().value : r.value < steps.last().value)) {
            steps << r;
        }
    }
    return steps;
}

void BestSoFarPlot::setReports(QList<Report> reports, bool maximize, const QString &objective)
{
    m_steps = bestSoFar(std::move(reports), maximize);
    m_plot->clearGraphs();
    QCPGraph *graph = m_plot->addGraph();
    graph->setLineStyle(QCPGraph::lsStepLeft);
    graph->setPen(QPen(QColor(33, 145, 140), 2));
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    QVector<double> xs;
    QVector<double> ys;
    for (const Report &r : std::as_const(m_steps)) {
        xs << r.time;
        ys << r.value;
    }
    graph->setData(xs, ys, true);
    m_plot->yAxis->setLabel(tr("best %1").arg(objective));
    m_plot->rescaleAxes();
    m_plot->yAxis->scaleRange(1.1, m_plot->yAxis->range().center());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

RungLadder::RungLadder(QWidget *parent)
    : QWidget(parent)
    , m_table(new QTableWidget(this))
    , m_none(new QLabel(this))
{
    m_none->setAlignment(Qt::AlignCenter);
    m_none->hide();
    m_table->setObjectName(QStringLiteral("sweepRungLadder"));
    m_table->setColumnCount(6);
    m_table->setHorizontalHeaderLabels(
        {tr("Rung"), tr("At"), tr("Recorded"), tr("Continued"), tr("Stopped (promotable)"), tr("Stopped")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_table);
    layout->addWidget(m_none);
}

QList<RungLadder::Rung> RungLadder::count(const SweepSpec &sweep, const QList<TrialInfo> &trials)
{
    QList<Rung> rungs;
    if (sweep.stopping.rule != SweepStopping::Rule::Asha) {
        return rungs;
    }
    const Asha asha(sweep.stopping.min, sweep.stopping.max, sweep.stopping.eta, sweep.maximize);
    const QList<double> levels = asha.rungs();
    for (int k = 0; k < levels.size(); ++k) {
        Rung r;
        r.resource = levels.at(k);
        for (const TrialInfo &t : trials) {
            if (t.rung < k) {
                continue;
            }
            ++r.recorded;
            const bool here = t.rung == k;
            if (here && t.phase == TrialInfo::Phase::Paused) {
                ++r.paused;
            } else if (here && (t.phase == TrialInfo::Phase::Stopped || t.phase == TrialInfo::Phase::Failed)) {
                ++r.stopped;
            } else if (!here || k + 1 < levels.size()) {
                ++r.continued; // past the rung, or training on towards the next one
            }
        }
        rungs << r;
    }
    return rungs;
}

void RungLadder::setSweep(const SweepSpec &sweep, const QList<TrialInfo> &trials)
{
    const QList<Rung> rungs = count(sweep, trials);
    m_table->setRowCount(int(rungs.size()));
    for (int k = 0; k < rungs.size(); ++k) {
        const Rung &r = rungs.at(k);
        const QStringList cells{
            QString::number(k + 1), // counted from 1, as the progress line and the reasons do
            QStringLiteral("%1 %2").arg(sweep.stopping.resource, QString::number(r.resource, 'g', 4)),
            QString::number(r.recorded),
            QString::number(r.continued),
            QString::number(r.paused),
            QString::number(r.stopped)};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells.at(c));
            item->setTextAlignment(c >= 2 ? Qt::AlignRight | Qt::AlignVCenter : Qt::AlignLeft | Qt::AlignVCenter);
            m_table->setItem(k, c, item);
        }
    }
    // Not setVisible() on the ladder itself: shown while it is not the current tab it would lie over the others.
    m_none->setVisible(rungs.isEmpty());
    m_none->setText(sweep.stopping.rule == SweepStopping::Rule::Median ? tr("The median rule has no rungs.")
                                                                       : tr("No early stopping: no rungs."));
    m_table->setVisible(!rungs.isEmpty());
}

} // namespace trainyard
