#include "runtablemodel.h"

#include "carddelegate.h"
#include "metricstore.h"
#include "runspecview.h"
#include "runstore.h"
#include "scheduler.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonObject>

#include <cmath>

namespace trainyard {

namespace {

QString dataText(const QJsonObject &spec)
{
    return RunSpecView(spec).dataSummary();
}

// A number for SortRole; none (an invalid QVariant, sorted last) when missing.
QVariant sortNumber(double value)
{
    return std::isfinite(value) ? QVariant(value) : QVariant();
}

QString modelText(const QJsonObject &spec)
{
    return RunSpecView(spec).modelType();
}

// The run's final evaluation of `metric` (the test split's when it has one).
double finalOf(const RunRecord &run, const QString &metric)
{
    const RunRecord::Eval *eval = run.finalEval(metric);
    return eval ? eval->last : qQNaN();
}

double lastOf(const MetricStore *metrics, RunId id, const QString &metric)
{
    for (const QString &split : {QStringLiteral("test/"), QStringLiteral("valid/"), QStringLiteral("train/")}) {
        const MetricSeries *s = metrics->series(id, split + metric);
        if (s && !s->isEmpty()) {
            return s->lastValue();
        }
    }
    return qQNaN();
}

QString number(double v, int digits = 4)
{
    return std::isfinite(v) ? QString::number(v, 'g', digits) : QString();
}

} // namespace

RunTableModel::RunTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
    // Live rows change many times a second; the table catches up twice a second.
    m_refresh.setInterval(500);
    m_refresh.setSingleShot(true);
    connect(&m_refresh, &QTimer::timeout, this, &RunTableModel::refreshLive);
}

void RunTableModel::setSession(const QString &experimentName, const QString &runsRoot, Scheduler *scheduler,
                               MetricStore *metrics)
{
    if (m_scheduler) {
        disconnect(m_scheduler, nullptr, this, nullptr);
    }
    m_scheduler = scheduler;
    m_metrics = metrics;
    m_experiment = experimentName;
    m_runsRoot = runsRoot;
    if (m_scheduler) {
        auto structural = [this] { rebuildLive(); };
        connect(m_scheduler, &Scheduler::reset, this, structural);
        connect(m_scheduler, &Scheduler::runAdded, this, structural);
        connect(m_scheduler, &Scheduler::runRemoved, this, structural);
        auto changed = [this] {
            if (!m_refresh.isActive()) {
                m_refresh.start();
            }
        };
        connect(m_scheduler, &Scheduler::runChanged, this, changed);
        connect(m_scheduler, &Scheduler::progressChanged, this, changed);
    }
    rebuildLive();
}

void RunTableModel::rebuildLive()
{
    beginResetModel();
    m_live.clear();
    if (m_scheduler) {
        for (RunId id : m_scheduler->runIds()) {
            m_live.append(liveRow(id));
        }
    }
    endResetModel();
}

void RunTableModel::refreshLive()
{
    if (!m_scheduler) {
        return;
    }
    for (int i = 0; i < m_live.size(); ++i) {
        if (m_scheduler->contains(m_live.at(i).id)) {
            m_live[i] = liveRow(m_live.at(i).id);
        }
    }
    if (!m_live.isEmpty()) {
        Q_EMIT dataChanged(index(0, 0), index(int(m_live.size()) - 1, ColumnCount - 1));
    }
}

RunTableModel::Row RunTableModel::liveRow(RunId id) const
{
    const RunInfo run = m_scheduler->run(id);
    Row row;
    row.id = id;
    row.experiment = m_experiment;
    row.name = run.name;
    row.model = modelText(run.spec);
    row.data = dataText(run.spec);
    row.state = runStateName(run.state);
    row.step = run.step;
    row.loss = run.loss;
    if (m_metrics) {
        row.mrr = lastOf(m_metrics, id, QStringLiteral("mrr"));
        row.hits10 = lastOf(m_metrics, id, QStringLiteral("hits@10"));
        row.accuracy = lastOf(m_metrics, id, QStringLiteral("accuracy"));
    }
    row.started = run.started;
    row.ended = run.ended;
    row.runDir = run.runDir;
    return row;
}

RunTableModel::Row RunTableModel::pastRow(const RunRecord &run, const QString &experiment)
{
    Row row;
    row.experiment = experiment;
    row.name = run.info.name;
    row.model = modelText(run.info.spec);
    row.data = dataText(run.info.spec);
    row.state = run.stateName();
    row.step = run.info.step;
    row.loss = run.info.loss;
    row.mrr = finalOf(run, QStringLiteral("mrr"));
    row.hits10 = finalOf(run, QStringLiteral("hits@10"));
    row.accuracy = finalOf(run, QStringLiteral("accuracy"));
    row.started = run.info.started;
    row.ended = run.info.ended;
    row.runDir = run.info.runDir;
    return row;
}

void RunTableModel::refreshHistory()
{
    beginResetModel();
    m_past.clear();
    QHash<QString, QList<RunRecord>> history;
    const QString current = QFileInfo(m_runsRoot).canonicalFilePath();
    for (const QString &root : std::as_const(m_historyRoots)) {
        const QDir dir(root);
        for (const QFileInfo &experimentDir : dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            if (experimentDir.canonicalFilePath() == current) {
                continue; // the open experiment's runs are the live rows
            }
            const QString runsRoot = experimentDir.absoluteFilePath();
            QList<RunRecord> runs = m_history.take(runsRoot);
            RunStore(runsRoot).readHistory(&runs);
            for (const RunRecord &run : std::as_const(runs)) {
                m_past.append(pastRow(run, experimentDir.fileName()));
            }
            history.insert(runsRoot, std::move(runs));
        }
    }
    m_history = std::move(history);
    endResetModel();
}

int RunTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_live.size() + m_past.size());
}

int RunTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) {
        return {};
    }
    const Row &row = index.row() < m_live.size() ? m_live.at(index.row()) : m_past.at(index.row() - m_live.size());
    if (role == RunIdRole) {
        return row.id;
    }
    if (role == RunDirRole) {
        return row.runDir;
    }
    if (role == Qt::ForegroundRole && index.column() == StateColumn) {
        RunState state;
        if (runStateFromName(row.state, &state)) {
            return CardDelegate::stateColor(state);
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole && index.column() >= StepColumn && index.column() <= AccuracyColumn) {
        return int(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole) {
        return {};
    }
    const bool sort = role == SortRole;
    const double duration = row.started.isValid() && row.ended.isValid() ? row.started.secsTo(row.ended) : -1;
    switch (index.column()) {
    case ExperimentColumn:
        return row.id ? QStringLiteral("%1 (open)").arg(row.experiment) : row.experiment;
    case NameColumn:
        return row.name;
    case ModelColumn:
        return row.model;
    case DataColumn:
        return row.data;
    case StateColumn:
        return row.state;
    case StepColumn:
        return row.step >= 0 ? QVariant(row.step) : QVariant();
    case LossColumn:
        return sort ? sortNumber(row.loss) : QVariant(number(row.loss));
    case MrrColumn:
        return sort ? sortNumber(row.mrr) : QVariant(number(row.mrr));
    case Hits10Column:
        return sort ? sortNumber(row.hits10) : QVariant(number(row.hits10));
    case AccuracyColumn:
        return sort ? sortNumber(row.accuracy) : QVariant(number(row.accuracy));
    case StartedColumn:
        return sort ? QVariant(row.started)
                    : QVariant(row.started.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    case DurationColumn:
        return sort ? (duration >= 0 ? QVariant(duration) : QVariant())
                    : QVariant(CardDelegate::formatDuration(duration));
    case FolderColumn:
        return row.runDir;
    default:
        return {};
    }
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case ExperimentColumn:
        return tr("Experiment");
    case NameColumn:
        return tr("Run");
    case ModelColumn:
        return tr("Model");
    case DataColumn:
        return tr("Data");
    case StateColumn:
        return tr("State");
    case StepColumn:
        return tr("Step");
    case LossColumn:
        return tr("Loss");
    case MrrColumn:
        return tr("MRR");
    case Hits10Column:
        return tr("Hits@10");
    case AccuracyColumn:
        return tr("Accuracy");
    case StartedColumn:
        return tr("Started");
    case DurationColumn:
        return tr("Duration");
    case FolderColumn:
        return tr("Folder");
    default:
        return {};
    }
}

RunTableSortProxy::RunTableSortProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(RunTableModel::SortRole);
}

bool RunTableSortProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const QVariant a = left.data(sortRole());
    const QVariant b = right.data(sortRole());
    if (!a.isValid() || !b.isValid()) {
        // Rows without a value go last in either order (the view reverses
        // lessThan for a descending sort, so say the opposite then).
        const bool descending = sortOrder() == Qt::DescendingOrder;
        if (a.isValid() == b.isValid()) {
            return false;
        }
        return a.isValid() != descending;
    }
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace trainyard
