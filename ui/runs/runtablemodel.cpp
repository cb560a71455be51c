#include "runs/runtablemodel.h"

#include "board/carddelegate.h"
#include "common/uilogcategories.h"
#include "dispatch/board.h"
#include "ingest/ingestion.h"
#include "records/runregistry.h"
#include "runstore/runconfigfile.h"
#include "runstore/runstore.h"
#include "session/orchestrator.h"
#include "session/session.h"
#include "supervision/supervisor.h"

#include <QFileInfo>

#include <cmath>

namespace trainyard {

namespace {

// A number for SortRole; none (an invalid QVariant, sorted last) when missing.
QVariant sortNumber(double value)
{
    return std::isfinite(value) ? QVariant(value) : QVariant();
}

QString number(double v, int digits = 4)
{
    return std::isfinite(v) ? QString::number(v, 'g', digits) : QString();
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

void RunTableModel::setSession(Session *session)
{
    if (m_session) {
        m_session->disconnect(this);
    }
    m_session = session;
    if (!session) {
        setSession(QString(), QString(), nullptr, nullptr);
        return;
    }
    connect(session, &Session::nameChanged, this,
            [this, session] { setExperiment(session->name(), session->runsRoot()); });
    setSession(session->name(), session->runsRoot(), session->orchestrator(), session->metrics());
}

void RunTableModel::setExperiment(const QString &experimentName, const QString &runsRoot)
{
    if (experimentName == m_experiment && runsRoot == m_runsRoot) {
        return;
    }
    m_experiment = experimentName;
    m_runsRoot = runsRoot;
    rebuildLive();
    refreshHistory();
}

void RunTableModel::setSession(const QString &experimentName, const QString &runsRoot, Orchestrator *orchestrator,
                               MetricStore *metrics)
{
    if (m_orchestrator) {
        m_orchestrator->disconnectListener(this);
    }
    m_orchestrator = orchestrator;
    m_metrics = metrics;
    m_experiment = experimentName;
    m_runsRoot = runsRoot;
    if (m_orchestrator) {
        auto structural = [this] { rebuildLive(); };
        connect(m_orchestrator->board(), &Board::reset, this, structural);
        connect(m_orchestrator->board(), &Board::runAdded, this, &RunTableModel::addLive);
        connect(m_orchestrator->board(), &Board::runRemoved, this, structural);
        auto changed = [this] {
            if (!m_refresh.isActive()) {
                m_refresh.start();
            }
        };
        connect(m_orchestrator->runs(), &RunRegistry::changed, this, changed);
        connect(m_orchestrator->supervisor(), &Supervisor::attemptArchived, this, [this] { refreshHistory(); });
        connect(m_orchestrator->ingestion(), &Ingestion::progressChanged, this, changed);
    }
    rebuildLive();
}

void RunTableModel::rebuildLive()
{
    beginResetModel();
    m_live.clear();
    m_liveNotes.clear();
    if (m_orchestrator) {
        const RunStore store(m_runsRoot);
        for (RunId id : m_orchestrator->board()->runIds()) {
            const QString name = m_orchestrator->runs()->value(id).name;
            m_liveNotes.insert(name, store.readNotes(name));
            m_live.append(liveRow(id));
        }
    }
    m_params = ParamColumns::of(m_live, m_past);
    endResetModel();
}

void RunTableModel::addLive(RunId id)
{
    // One row more, not the whole table again: a sweep adds its trials one
    // by one, and rebuilding read every run's notes each time.
    const QList<RunId> ids = m_orchestrator->board()->runIds();
    const qsizetype row = ids.indexOf(id);
    if (row < 0 || ids.size() != m_live.size() + 1) {
        rebuildLive(); // several at once (repeats): their order is the board's
        return;
    }
    const QString name = m_orchestrator->runs()->value(id).name;
    m_liveNotes.insert(name, RunStore(m_runsRoot).readNotes(name));
    QList<RunRow> rows = m_live;
    rows.insert(row, liveRow(id));
    const ParamColumns columns = ParamColumns::of(rows, m_past);
    if (columns != m_params) {
        beginResetModel(); // new or newly differing hyperparameter columns
        m_live = rows;
        m_params = columns;
        endResetModel();
        return;
    }
    beginInsertRows(QModelIndex(), int(row), int(row));
    m_live = rows;
    endInsertRows();
}

void RunTableModel::refreshLive()
{
    if (!m_orchestrator) {
        return;
    }
    QList<RunRow> rows = m_live;
    for (RunRow &row : rows) {
        if (m_orchestrator->runs()->contains(row.id)) {
            row = liveRow(row.id);
        }
    }
    const ParamColumns columns = ParamColumns::of(rows, m_past);
    if (columns != m_params) {
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

RunRow RunTableModel::liveRow(RunId id) const
{
    const RunInfo run = m_orchestrator->runs()->value(id);
    return RunRow::live(id, run, m_metrics, m_experiment, m_liveNotes.value(run.name), m_catalogue,
                        reportedParams(run.runDir));
}

QJsonObject RunTableModel::reportedParams(const QString &runDir) const
{
    if (runDir.isEmpty())
        return {};
    // Twice a second for every live run: a stat, and a read only when the
    // script wrote the file again.
    const QFileInfo info(runconfigfile::paramsPath(runDir));
    if (!info.exists() && !info.isSymLink()) {
        m_reported.remove(runDir);
        return {};
    }
    Reported &cached = m_reported[runDir];
    if (cached.size != info.size() || cached.modified != info.lastModified()) {
        QString error;
        cached.values = runconfigfile::readParams(runDir, &error);
        cached.size = info.size();
        cached.modified = info.lastModified();
        if (!error.isEmpty())
            qCWarning(lcUi).noquote() << error;
    }
    return cached.values;
}

int RunTableModel::paramColumn(const QString &key) const
{
    const qsizetype i = m_params.keys().indexOf(key);
    return i < 0 ? -1 : FixedColumnCount + int(i);
}

void RunTableModel::setCatalogue(const ModelCatalogue &catalogue)
{
    beginResetModel();
    m_catalogue = catalogue;
    for (QList<RunRow> *rows : {&m_live, &m_past}) {
        for (RunRow &row : *rows) {
            row.setSpec(row.spec, m_catalogue);
        }
    }
    m_params = ParamColumns::of(m_live, m_past);
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
        RunRow &row = r < m_live.size() ? m_live[r] : m_past[r - m_live.size()];
        const bool same = row.id ? open && row.name == name : QFileInfo(row.runDir) == QFileInfo(runDir);
        if (!same) {
            continue;
        }
        row.notes = notes;
        if (!row.id) {
            m_history.setNotes(r - int(m_live.size()), notes);
        }
        Q_EMIT dataChanged(index(r, TagsColumn), index(r, TagsColumn));
        Q_EMIT dataChanged(index(r, NoteColumn), index(r, NoteColumn));
    }
}

const RunRecord *RunTableModel::pastRun(int row) const
{
    const qsizetype past = row - m_live.size();
    return past >= 0 && past < m_history.size() ? &m_history.run(int(past)) : nullptr;
}

const RunRow &RunTableModel::rowAt(int row) const
{
    return row < m_live.size() ? m_live.at(row) : m_past.at(row - m_live.size());
}

void RunTableModel::refreshHistory()
{
    beginResetModel();
    m_history.refresh(m_runsRoot, m_experiment);
    m_past.clear();
    for (int i = 0; i < m_history.size(); ++i) {
        const RunRecord &run = m_history.run(i);
        m_past.append(RunRow::past(run, m_history.experiment(i), m_catalogue, reportedParams(run.info.runDir)));
    }
    m_params = ParamColumns::of(m_live, m_past);
    endResetModel();
}

int RunTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_live.size() + m_past.size());
}

int RunTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : FixedColumnCount + int(m_params.keys().size());
}

QVariant RunTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) {
        return {};
    }
    const RunRow &row = rowAt(index.row());
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
        const QString key = m_params.keys().value(index.column() - FixedColumnCount);
        return role == SortRole ? ParamColumns::sortValue(row, key) : ParamColumns::data(row, key, role);
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
    const QString key = section >= FixedColumnCount ? m_params.keys().value(section - FixedColumnCount) : QString();
    if (role == ParamKeyRole) {
        return key;
    }
    if (role == Qt::ToolTipRole && !key.isEmpty()) {
        return m_params.differs(key) ? tr("%1: differs between the runs").arg(key)
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
