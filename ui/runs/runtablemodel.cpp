#include "runs/runtablemodel.h"

#include "board/carddelegate.h"
#include "dispatch/scheduler.h"
#include "experiment/runspecview.h"
#include "metrics/metricstore.h"
#include "runstore/runstore.h"

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
    return RunSpecView(spec).kindLabel();
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

// Shown in the Run and Model columns already.
bool isFixedKey(const QString &key)
{
    return key == QLatin1String("name") || key == QLatin1String("model.type");
}

// `from` merged into `into`, objects key by key: the union of the runs'
// specs, whose flattened keys are the columns in RunSpecView's one order.
void mergeKeys(QJsonObject *into, const QJsonObject &from)
{
    for (auto it = from.constBegin(); it != from.constEnd(); ++it) {
        if (it.value().isObject()) {
            QJsonObject inner = into->value(it.key()).toObject();
            mergeKeys(&inner, it.value().toObject());
            into->insert(it.key(), inner);
        } else if (!into->contains(it.key())) {
            into->insert(it.key(), it.value());
        }
    }
}

QString firstLine(const QString &text)
{
    const QString trimmed = text.trimmed();
    const qsizetype end = trimmed.indexOf(QLatin1Char('\n'));
    return end < 0 ? trimmed : trimmed.left(end) + QStringLiteral(" …");
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
        connect(m_scheduler, &Scheduler::attemptArchived, this, [this] { refreshHistory(); });
        connect(m_scheduler, &Scheduler::progressChanged, this, changed);
    }
    rebuildLive();
}

void RunTableModel::rebuildLive()
{
    beginResetModel();
    m_live.clear();
    m_liveNotes.clear();
    if (m_scheduler) {
        const RunStore store(m_runsRoot);
        for (RunId id : m_scheduler->runIds()) {
            const QString name = m_scheduler->run(id).name;
            m_liveNotes.insert(name, store.readNotes(name));
            m_live.append(liveRow(id));
        }
    }
    m_params = paramColumns(m_live);
    endResetModel();
}

void RunTableModel::refreshLive()
{
    if (!m_scheduler) {
        return;
    }
    QList<Row> rows = m_live;
    for (Row &row : rows) {
        if (m_scheduler->contains(row.id)) {
            row = liveRow(row.id);
        }
    }
    const ParamColumns columns = paramColumns(rows);
    if (!(columns == m_params)) {
        // A spec edit changed the hyperparameter columns: the view lays them out again.
        beginResetModel();
        m_live = rows;
        m_params = columns;
        endResetModel();
        return;
    }
    m_live = rows;
    if (!m_live.isEmpty()) {
        Q_EMIT dataChanged(index(0, 0), index(int(m_live.size()) - 1, columnCount() - 1));
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
    row.trained = isTerminal(run.state) ? trainedSeconds(run) : -1;
    row.runDir = run.runDir;
    row.notes = m_liveNotes.value(run.name);
    setSpec(&row, run.spec);
    return row;
}

RunTableModel::Row RunTableModel::pastRow(const RunRecord &run, const QString &experiment) const
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
    row.trained = isTerminal(run.info.state) ? trainedSeconds(run.info) : -1;
    row.runDir = run.info.runDir;
    row.notes = run.notes;
    setSpec(&row, run.info.spec);
    return row;
}

void RunTableModel::setSpec(Row *row, const QJsonObject &spec) const
{
    row->spec = spec;
    row->resolved = m_catalogue.resolve(spec);
    row->params.clear();
    for (const RunSpecView::Param &p : RunSpecView(row->resolved).flattened()) {
        if (!isFixedKey(p.key)) {
            row->params.insert(p.key, p.value);
        }
    }
}

RunTableModel::ParamColumns RunTableModel::paramColumns(const QList<Row> &live) const
{
    QJsonObject all;
    for (const QList<Row> *rows : {&live, &m_past}) {
        for (const Row &row : *rows) {
            mergeKeys(&all, row.resolved);
        }
    }
    ParamColumns columns;
    for (const RunSpecView::Param &p : RunSpecView(all).flattened()) {
        if (!isFixedKey(p.key)) {
            columns.keys.append(p.key);
        }
    }
    const auto at = [&](qsizetype r) -> const Row & {
        return r < live.size() ? live.at(r) : m_past.at(r - live.size());
    };
    const qsizetype rows = live.size() + m_past.size();
    for (const QString &key : std::as_const(columns.keys)) {
        const QJsonValue first = rows > 0 ? at(0).params.value(key) : QJsonValue();
        for (qsizetype r = 1; r < rows; ++r) {
            if (at(r).params.value(key) != first) {
                columns.differing.insert(key);
                break;
            }
        }
    }
    return columns;
}

int RunTableModel::paramColumn(const QString &key) const
{
    const qsizetype i = m_params.keys.indexOf(key);
    return i < 0 ? -1 : FixedColumnCount + int(i);
}

void RunTableModel::setCatalogue(const ModelCatalogue &catalogue)
{
    beginResetModel();
    m_catalogue = catalogue;
    for (QList<Row> *rows : {&m_live, &m_past}) {
        for (Row &row : *rows) {
            setSpec(&row, row.spec);
        }
    }
    m_params = paramColumns(m_live);
    endResetModel();
}

void RunTableModel::setNotes(const QString &runDir, const RunNotes &notes)
{
    const QString name = QFileInfo(runDir).fileName();
    const bool open = QFileInfo(runDir).absolutePath() == QFileInfo(m_runsRoot).absoluteFilePath();
    if (open) {
        m_liveNotes.insert(name, notes);
    }
    for (int r = 0; r < rowCount(); ++r) {
        Row &row = r < m_live.size() ? m_live[r] : m_past[r - m_live.size()];
        const bool same = row.id ? open && row.name == name : QFileInfo(row.runDir) == QFileInfo(runDir);
        if (!same) {
            continue;
        }
        row.notes = notes;
        if (!row.id) {
            m_pastRecords[r - m_live.size()].notes = notes;
        }
        Q_EMIT dataChanged(index(r, TagsColumn), index(r, TagsColumn));
        Q_EMIT dataChanged(index(r, NoteColumn), index(r, NoteColumn));
    }
}

const RunRecord *RunTableModel::pastRun(int row) const
{
    const qsizetype past = row - m_live.size();
    return past >= 0 && past < m_pastRecords.size() ? &m_pastRecords.at(past) : nullptr;
}

const RunTableModel::Row &RunTableModel::rowAt(int row) const
{
    return row < m_live.size() ? m_live.at(row) : m_past.at(row - m_live.size());
}

void RunTableModel::refreshHistory()
{
    beginResetModel();
    m_past.clear();
    m_pastRecords.clear();
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
                m_pastRecords.append(run);
            }
            history.insert(runsRoot, std::move(runs));
        }
    }
    // The open experiment's runs are the live rows; their earlier attempts
    // (kept by a new attempt: RunStore::archiveRunDir) are its history.
    if (!m_runsRoot.isEmpty()) {
        QList<RunRecord> runs = m_history.take(m_runsRoot);
        RunStore(m_runsRoot).readHistory(&runs, [](const QString &name) { return RunStore::attemptNumber(name) > 0; });
        for (const RunRecord &run : std::as_const(runs)) {
            m_past.append(pastRow(run, m_experiment));
            m_pastRecords.append(run);
        }
        history.insert(m_runsRoot, std::move(runs));
    }
    m_history = std::move(history);
    m_params = paramColumns(m_live);
    endResetModel();
}

int RunTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_live.size() + m_past.size());
}

int RunTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : FixedColumnCount + int(m_params.keys.size());
}

QVariant RunTableModel::paramData(const Row &row, const QString &key, int role) const
{
    const auto it = row.params.constFind(key);
    if (it == row.params.constEnd()) {
        return {};
    }
    const QJsonValue value = it.value();
    switch (role) {
    case Qt::DisplayRole:
        return RunSpecView::valueText(value);
    case Qt::ToolTipRole:
        return QStringLiteral("%1 = %2").arg(key, RunSpecView::valueText(value));
    case SortRole:
        // Numbers as numbers (2 before 10); null ("no limit") sorts last.
        if (value.isDouble()) {
            return value.toDouble();
        }
        if (value.isBool()) {
            return int(value.toBool());
        }
        return value.isNull() ? QVariant() : QVariant(RunSpecView::valueText(value));
    case Qt::TextAlignmentRole:
        return value.isDouble() ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    default:
        return {};
    }
}

QVariant RunTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) {
        return {};
    }
    const Row &row = rowAt(index.row());
    if (role == RunIdRole) {
        return row.id;
    }
    if (role == RunDirRole) {
        return row.runDir;
    }
    if (role == ExperimentRole) {
        return row.experiment;
    }
    if (index.column() >= FixedColumnCount) {
        return paramData(row, m_params.keys.value(index.column() - FixedColumnCount), role);
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
    const double duration = row.trained;
    switch (index.column()) {
    case ExperimentColumn:
        return row.id ? QStringLiteral("%1 (open)").arg(row.experiment) : row.experiment;
    case NameColumn:
        return row.name;
    case TagsColumn:
        return row.notes.tagsText();
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
    case NoteColumn:
        return role == Qt::ToolTipRole ? row.notes.note : firstLine(row.notes.note);
    case FolderColumn:
        return row.runDir;
    default:
        return {};
    }
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal) {
        return {};
    }
    const QString key = section >= FixedColumnCount ? m_params.keys.value(section - FixedColumnCount) : QString();
    if (role == ParamKeyRole) {
        return key;
    }
    if (role == Qt::ToolTipRole && !key.isEmpty()) {
        return m_params.differing.contains(key) ? tr("%1: differs between the runs").arg(key)
                                                : tr("%1: the same for every run").arg(key);
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    if (!key.isEmpty()) {
        return key;
    }
    switch (section) {
    case ExperimentColumn:
        return tr("Experiment");
    case NameColumn:
        return tr("Run");
    case TagsColumn:
        return tr("Tags");
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
    case NoteColumn:
        return tr("Note");
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
