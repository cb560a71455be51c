#include "ui/sweep/sweepview.h"

#include "metrics/metricstore.h"
#include "orchestration/records/runregistry.h"
#include "ui/sweep/parallelcoordinates.h"
#include "ui/sweep/sweeptablemodel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

namespace trainyard {

SweepView::SweepView(QWidget *parent)
    : QWidget(parent)
    , m_sweeps(new QComboBox(this))
    , m_progress(new QLabel(this))
    , m_stop(new QPushButton(tr("Stop"), this))
    , m_pause(new QPushButton(tr("Pause"), this))
    , m_addCount(new QSpinBox(this))
    , m_add(new QPushButton(tr("Add trials"), this))
    , m_promote(new QPushButton(tr("Promote trial"), this))
    , m_stopTrial(new QPushButton(tr("Stop trial"), this))
    , m_export(new QPushButton(tr("Export…"), this))
    , m_model(new SweepTableModel(this))
    , m_tableView(new QTableView(this))
    , m_parallel(new ParallelCoordinatesPlot(this))
    , m_scatter(new ObjectiveScatter(this))
    , m_best(new BestSoFarPlot(this))
    , m_ladder(new RungLadder(this))
    , m_refresh(new QTimer(this))
{
    setObjectName(QStringLiteral("sweepView"));
    m_sweeps->setObjectName(QStringLiteral("sweepChooser"));
    m_progress->setObjectName(QStringLiteral("sweepProgress"));
    m_stop->setObjectName(QStringLiteral("sweepStop"));
    m_pause->setObjectName(QStringLiteral("sweepPause"));
    m_add->setObjectName(QStringLiteral("sweepAddTrials"));
    m_promote->setObjectName(QStringLiteral("sweepPromote"));
    m_stopTrial->setObjectName(QStringLiteral("sweepStopTrial"));
    m_export->setObjectName(QStringLiteral("sweepExport"));
    m_export->setToolTip(tr("Write the trials' table (parameters, objective, rung, state) as CSV"));
    m_tableView->setObjectName(QStringLiteral("sweepTable"));
    m_addCount->setRange(1, 1000);
    m_addCount->setValue(4);
    m_progress->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_sweeps);
    bar->addWidget(m_progress, 1);
    bar->addWidget(m_stop);
    bar->addWidget(m_pause);
    bar->addWidget(m_addCount);
    bar->addWidget(m_add);
    bar->addWidget(m_promote);
    bar->addWidget(m_stopTrial);
    bar->addWidget(m_export);

    m_tableView->setModel(m_model);
    m_tableView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tableView->verticalHeader()->hide();
    m_tableView->horizontalHeader()->setStretchLastSection(true);
    m_tableView->setAlternatingRowColors(true);
    m_tableView->setWordWrap(false);
    m_tableView->verticalHeader()->setDefaultSectionSize(m_tableView->fontMetrics().height() + 8);
    // Trial names share their start ("transe-5-sweep-"): cut in the middle, their numbers stay.
    m_tableView->setTextElideMode(Qt::ElideMiddle);

    auto *left = new QSplitter(Qt::Vertical, this);
    left->setObjectName(QStringLiteral("sweepTableSplit"));
    left->addWidget(m_parallel);
    left->addWidget(m_tableView);
    // The table is what is read: most of the height, the plot above it a third.
    left->setStretchFactor(0, 1);
    left->setStretchFactor(1, 2);
    left->setSizes({300, 600});
    auto *right = new QTabWidget(this);
    right->setObjectName(QStringLiteral("sweepPlots"));
    right->addTab(m_scatter, tr("Objective vs parameter"));
    right->addTab(m_best, tr("Best so far"));
    right->addTab(m_ladder, tr("Rungs"));
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({900, 520});

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    m_refresh->setSingleShot(true);
    m_refresh->setInterval(100);
    connect(m_refresh, &QTimer::timeout, this, &SweepView::refresh);
    connect(m_sweeps, &QComboBox::currentIndexChanged, this, &SweepView::refresh);
    connect(m_parallel, &ParallelCoordinatesPlot::filterChanged, this,
            [this] { m_model->setVisibleTrials(m_parallel->visibleTrials()); });
    connect(m_tableView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateButtons();
        QList<RunId> ids;
        for (const QModelIndex &index : m_tableView->selectionModel()->selectedRows()) {
            if (const RunId run = m_model->trialAt(index.row()).run) {
                ids << run;
            }
        }
        if (!ids.isEmpty()) {
            Q_EMIT runsSelected(ids);
        }
    });
    connect(m_stop, &QPushButton::clicked, this, &SweepView::stopSweep);
    connect(m_pause, &QPushButton::clicked, this, &SweepView::togglePause);
    connect(m_add, &QPushButton::clicked, this, [this] { addTrials(m_addCount->value()); });
    connect(m_promote, &QPushButton::clicked, this, &SweepView::promoteSelected);
    connect(m_stopTrial, &QPushButton::clicked, this, &SweepView::stopSelected);
    connect(m_export, &QPushButton::clicked, this, &SweepView::exportTable);
    m_askPath = [this](const QString &suggested) {
        QString file = QFileDialog::getSaveFileName(this, tr("Export trials"), suggested, tr("CSV data (*.csv)"));
        if (!file.isEmpty() && !file.endsWith(QLatin1String(".csv"))) {
            file += QLatin1String(".csv");
        }
        return file;
    };
    updateButtons();
}

SweepView::~SweepView() = default;

void SweepView::setRunner(SweepRunner *runner, const RunRegistry *runs, const MetricStore *metrics)
{
    if (m_runner) {
        disconnect(m_runner, nullptr, this, nullptr);
    }
    m_runner = runner;
    m_runs = runs;
    m_metrics = metrics;
    if (runner) {
        connect(runner, &SweepRunner::sweepsChanged, this, &SweepView::refreshSweeps);
        connect(runner, &SweepRunner::trialsChanged, this, [this](const QString &sweep) {
            // At most one refresh per interval: restarting the timer on every
            // change would put it off for as long as trials keep reporting.
            if (sweep == currentSweep() && !m_refresh->isActive()) {
                m_refresh->start();
            }
        });
        connect(runner, &SweepRunner::warning, this, &SweepView::message);
    }
    refreshSweeps();
}

void SweepView::refreshSweeps()
{
    const QString current = currentSweep();
    {
        const QSignalBlocker block(m_sweeps);
        m_sweeps->clear();
        if (m_runner) {
            for (const SweepSpec &s : m_runner->sweeps()) {
                m_sweeps->addItem(s.name);
            }
        }
        const int i = m_sweeps->findText(current);
        m_sweeps->setCurrentIndex(i >= 0 ? i : 0);
    }
    refresh();
}

bool SweepView::selectSweep(const QString &name)
{
    const int i = m_sweeps->findText(name);
    if (i < 0) {
        return false;
    }
    m_sweeps->setCurrentIndex(i);
    refresh();
    return true;
}

QString SweepView::currentSweep() const
{
    return m_sweeps->currentText();
}

void SweepView::refresh()
{
    const SweepSpec *sweep = m_runner ? m_runner->sweep(currentSweep()) : nullptr;
    if (!sweep) {
        if (m_runner) {
            display(SweepSpec(), {}, {});
        }
        return;
    }
    const QList<TrialInfo> trials = m_runner->trials(sweep->name);
    display(*sweep, trials, reports(*sweep, trials));
    m_progress->setText(m_runner->progressLine(sweep->name));
}

void SweepView::showSweep(const SweepSpec &sweep, const QList<TrialInfo> &trials,
                          const QList<BestSoFarPlot::Report> &reports)
{
    {
        const QSignalBlocker block(m_sweeps);
        if (m_sweeps->findText(sweep.name) < 0) {
            m_sweeps->addItem(sweep.name);
        }
        m_sweeps->setCurrentIndex(m_sweeps->findText(sweep.name));
    }
    display(sweep, trials, reports);
}

void SweepView::display(const SweepSpec &sweep, const QList<TrialInfo> &trials,
                        const QList<BestSoFarPlot::Report> &reports)
{
    const int selected = selectedTrial();
    m_trials = trials;
    m_model->setSweep(sweep, trials);
    m_parallel->setSweep(sweep, trials); // its filterChanged filters the table's new rows
    m_scatter->setSweep(sweep, trials);
    m_best->setReports(reports, sweep.maximize, sweep.objective);
    m_ladder->setSweep(sweep, trials);
    // Every trial's whole name and state; the reason, last, takes what is
    // left. Sized again when trials or their states change, not on every report.
    size_t shape = qHash(sweep.name);
    for (const TrialInfo &t : trials) {
        shape = shape * 31 + size_t(t.phase) + 1;
    }
    if (shape != m_columnsShape) {
        m_columnsShape = shape;
        for (int c = 0; c + 1 < m_model->columnCount(); ++c) {
            m_tableView->resizeColumnToContents(c);
        }
    }
    m_pause->setText(m_runner && m_runner->isPaused(sweep.name) ? tr("Resume") : tr("Pause"));
    if (selected >= 0) {
        selectTrial(selected);
    }
    updateButtons();
}

QList<BestSoFarPlot::Report> SweepView::reports(const SweepSpec &sweep, const QList<TrialInfo> &trials) const
{
    QList<BestSoFarPlot::Report> out;
    if (!m_runs || !m_metrics) {
        return out;
    }
    // The worker's wall is seconds since its run started: placed on one clock by each run's start.
    QList<std::pair<qint64, const MetricSeries *>> series;
    qint64 first = std::numeric_limits<qint64>::max();
    for (const TrialInfo &t : trials) {
        if (!t.run || t.phase == TrialInfo::Phase::Failed) {
            continue;
        }
        const RunInfo info = m_runs->value(t.run);
        const MetricSeries *s = m_metrics->series(t.run, sweep.objective);
        if (!s || s->isEmpty() || !info.started.isValid()) {
            continue;
        }
        const qint64 start = info.started.toMSecsSinceEpoch();
        first = std::min(first, start);
        series.append({start, s});
    }
    for (const auto &[start, s] : std::as_const(series)) {
        for (std::size_t i = 0; i < s->size(); ++i) {
            out.append({double(start - first) / 1000.0 + s->wall(i), s->value(i)});
        }
    }
    return out;
}

int SweepView::selectedTrial() const
{
    const QModelIndex current = m_tableView->selectionModel()->currentIndex();
    if (!current.isValid() || !m_tableView->selectionModel()->isRowSelected(current.row(), QModelIndex())) {
        return -1;
    }
    return m_model->trialAt(current.row()).index;
}

void SweepView::selectTrial(int trial)
{
    const int row = m_model->rowOfTrial(trial);
    if (row < 0) {
        return;
    }
    const QSignalBlocker block(m_tableView->selectionModel()); // a refresh must not move the board's selection
    m_tableView->selectionModel()->setCurrentIndex(m_model->index(row, 0),
                                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    updateButtons();
}

void SweepView::updateButtons()
{
    const bool runner = m_runner && m_runner->sweep(currentSweep());
    const bool going = runner && !m_runner->isDone(currentSweep());
    m_stop->setEnabled(going);
    m_pause->setEnabled(going); // a sweep that ended has nothing to pause
    m_export->setEnabled(!m_trials.isEmpty());
    m_add->setEnabled(runner && m_runner->sweep(currentSweep())->method == QLatin1String("random"));
    m_addCount->setEnabled(m_add->isEnabled());
    const int trial = selectedTrial();
    const int row = m_model->rowOfTrial(trial);
    const TrialInfo::Phase phase = row >= 0 ? m_model->trialAt(row).phase : TrialInfo::Phase::Finished;
    m_promote->setEnabled(runner && row >= 0 && phase == TrialInfo::Phase::Paused);
    m_stopTrial->setEnabled(runner && row >= 0
                            && (phase == TrialInfo::Phase::Waiting || phase == TrialInfo::Phase::Training
                                || phase == TrialInfo::Phase::Paused));
}

bool SweepView::exportCsv(const QString &file, QString *error) const
{
    QSaveFile out(file);
    const QByteArray text = m_model->toCsv();
    if (!out.open(QIODevice::WriteOnly) || out.write(text) != text.size() || !out.commit()) {
        if (error) {
            *error = tr("Could not write %1: %2").arg(file, out.errorString());
        }
        return false;
    }
    return true;
}

void SweepView::exportTable()
{
    const QString file = m_askPath ? m_askPath(currentSweep() + QStringLiteral(".csv")) : QString();
    if (file.isEmpty()) {
        return;
    }
    QString error;
    if (!exportCsv(file, &error)) {
        QMessageBox::warning(this, tr("Export trials"), error);
        return;
    }
    Q_EMIT message(tr("Exported %n trial(s) of %1 to %2", nullptr, int(m_trials.size())).arg(currentSweep(), file));
}

void SweepView::stopSweep()
{
    if (m_runner && m_runner->sweep(currentSweep())) {
        m_runner->stopSweep(currentSweep());
        refresh();
    }
}

void SweepView::togglePause()
{
    const QString name = currentSweep();
    if (!m_runner || !m_runner->sweep(name)) {
        return;
    }
    if (m_runner->isPaused(name)) {
        m_runner->resumeSweep(name);
    } else {
        m_runner->pauseSweep(name);
    }
    refresh();
}

void SweepView::addTrials(int count)
{
    QString error;
    if (m_runner && !m_runner->addTrials(currentSweep(), count, &error)) {
        Q_EMIT message(error);
    }
    refresh();
}

void SweepView::promoteSelected()
{
    QString error;
    if (m_runner && selectedTrial() >= 0 && !m_runner->promoteTrial(currentSweep(), selectedTrial(), &error)) {
        Q_EMIT message(error);
    }
    refresh();
}

void SweepView::stopSelected()
{
    QString error;
    if (m_runner && selectedTrial() >= 0 && !m_runner->stopTrial(currentSweep(), selectedTrial(), &error)) {
        Q_EMIT message(error);
    }
    refresh();
}

} // namespace trainyard
