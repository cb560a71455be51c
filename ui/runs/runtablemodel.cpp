#include "ui/runs/runtablemodel.h"

#include "orchestration/document/experimentdocument.h"
#include "orchestration/runstore/runstore.h"
#include "ui/board/carddelegate.h"

#include <QFileInfo>

namespace trainyard {

namespace {

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
    // Past runs arrive in batches while they are read: their statistics grow
    // with each batch, and are taken again whole once a second at most (a
    // value that shrank).
    m_statsTimer.setInterval(1000);
    m_statsTimer.setSingleShot(true);
    connect(&m_statsTimer, &QTimer::timeout, this, [this] {
        m_pastStatsStale = true;
        updateStats();
    });
    connect(&m_history, &PastRuns::removing, this, [this] { beginResetModel(); });
    connect(&m_history, &PastRuns::removed, this, &RunTableModel::pastRebuilt);
    connect(&m_history, &PastRuns::added, this, &RunTableModel::pastAdded);
    connect(&m_history, &PastRuns::changed, this, &RunTableModel::pastChanged);
}

ExperimentDocument *RunTableModel::document() const
{
    return m_document;
}

void RunTableModel::setDocument(ExperimentDocument *document)
{
    if (!document) {
        setDocument(QString(), QString(), nullptr);
        return;
    }
    setDocument(document->name(), document->runsRoot(), document);
    connect(document, &ExperimentDocument::nameChanged, this,
            [this, document] { setExperiment(document->name(), document->runsRoot()); });
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

void RunTableModel::setDocument(const QString &experimentName, const QString &runsRoot, ExperimentDocument *document)
{
    if (m_document) {
        disconnect(m_document, nullptr, this, nullptr);
    }
    m_document = document;
    m_metrics = document ? document->metrics() : nullptr;
    m_experiment = experimentName;
    m_runsRoot = runsRoot;
    if (m_document) {
        auto structural = [this] { rebuildLive(); };
        connect(m_document, &ExperimentDocument::reset, this, structural);
        connect(m_document, &ExperimentDocument::runAdded, this, &RunTableModel::addLive);
        connect(m_document, &ExperimentDocument::runRemoved, this, structural);
        auto changed = [this] {
            if (!m_refresh.isActive()) {
                m_refresh.start();
            }
        };
        connect(m_document, &ExperimentDocument::runChanged, this, changed);
        connect(m_document, &ExperimentDocument::attemptArchived, this, [this] { refreshHistory(); });
        connect(m_document, &ExperimentDocument::progressChanged, this, changed);
    }
    rebuildLive();
}

void RunTableModel::rebuildLive()
{
    m_lanes.clear();
    beginResetModel();
    m_live.clear();
    m_liveNotes.clear();
    if (m_document) {
        const RunStore store(m_runsRoot);
        for (RunId id : m_document->runIds()) {
            const QString name = m_document->run(id).name;
            m_liveNotes.insert(name, store.readNotes(name));
            m_live.append(liveRow(id));
        }
    }
    m_params = m_pastParams;
    for (const RunRow &row : std::as_const(m_live)) {
        m_params.add(row);
    }
    m_pastStatsStale = true; // the columns may have changed
    changed();
    updateStats(false);
    endResetModel();
}

void RunTableModel::addLive(RunId id)
{
    // One row more, not the whole table again: a sweep adds its trials one
    // by one, and rebuilding read every run's notes each time.
    const QList<RunId> ids = m_document->runIds();
    const qsizetype row = ids.indexOf(id);
    if (row < 0 || ids.size() != m_live.size() + 1) {
        rebuildLive(); // several at once (repeats): their order is the board's
        return;
    }
    const QString name = m_document->run(id).name;
    m_lanes.clear();
    m_liveNotes.insert(name, RunStore(m_runsRoot).readNotes(name));
    beginInsertRows(QModelIndex(), int(row), int(row));
    m_live.insert(row, liveRow(id));
    changed();
    endInsertRows();
    updateColumns();
}

void RunTableModel::refreshLive()
{
    if (!m_document || m_live.isEmpty()) {
        return;
    }
    m_lanes.clear();
    for (RunRow &row : m_live) {
        if (m_document->hasRun(row.id)) {
            row = liveRow(row.id);
        }
    }
    changed();
    Q_EMIT dataChanged(index(0, 0), index(int(m_live.size()) - 1, columnCount() - 1));
    updateColumns(); // a spec edit may change the hyperparameter columns
}

ParamColumns RunTableModel::pastColumns() const
{
    ParamColumns columns;
    for (int i = 0; i < m_pastShown; ++i) {
        columns.add(m_history.row(i));
    }
    return columns;
}

void RunTableModel::updateColumns()
{
    ParamColumns columns = m_pastParams;
    for (const RunRow &row : std::as_const(m_live)) {
        columns.add(row);
    }
    const bool defaults = columns != m_params;
    if (columns.keys() != m_params.keys()) {
        beginResetModel(); // new hyperparameter columns: the view lays them out again
        m_params = columns;
        m_pastStatsStale = true;
        changed();
        updateStats(false);
        endResetModel();
    } else {
        m_params = columns;
        updateStats();
    }
    if (defaults) {
        Q_EMIT headerDataChanged(Qt::Horizontal, FixedColumnCount, columnCount() - 1);
        Q_EMIT columnDefaultsChanged();
    }
}

void RunTableModel::updateStats(bool announce)
{
    if (m_pastStatsStale) {
        m_pastStats = ColumnStats::of(
            m_pastShown, [this](int i) -> const RunRow & { return m_history.row(i); }, paramKeys());
        m_pastStatsStale = false;
    }
    ColumnStats stats = ColumnStats::of(m_live, paramKeys());
    stats.merge(m_pastStats);
    if (stats == m_stats) {
        return;
    }
    const bool blankChanged = stats.blankColumns() != m_stats.blankColumns();
    m_stats = stats;
    if (!announce) {
        return; // inside a reset
    }
    if (rowCount() > 0) {
        // Only how numbers are written: the proxy neither sorts nor filters again.
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), {Qt::DisplayRole});
    }
    if (blankChanged) {
        Q_EMIT columnDefaultsChanged();
    }
}

void RunTableModel::changed()
{
    ++m_revision;
}

RunRow RunTableModel::liveRow(RunId id) const
{
    const RunInfo run = m_document->run(id);
    // A lane's info and busy slots once per pass over the rows, not once per row.
    auto lane = m_lanes.constFind(run.lane);
    if (lane == m_lanes.constEnd()) {
        const LaneInfo info = m_document->lane(run.lane);
        lane = m_lanes.insert(run.lane, {info, RunStatusRow::busySlots(info, [this](RunId other) {
                                             return m_document->run(other).state;
                                         })});
    }
    return RunRow::live(id, run, RunStatusRow::live(run, lane->first, lane->second), m_metrics, m_experiment,
                        m_liveNotes.value(run.name), m_catalogue, m_reported.of(run.runDir));
}

void RunTableModel::pastAdded(int first, int count)
{
    const int at = rowCount();
    ParamColumns past = m_pastParams;
    for (int i = first; i < first + count; ++i) {
        past.add(m_history.row(i));
    }
    ParamColumns all = past;
    for (const RunRow &row : std::as_const(m_live)) {
        all.add(row);
    }
    const bool newKeys = all.keys() != m_params.keys();
    const bool defaults = all != m_params;
    // Between the two calls the rows are the model's already: Qt's item
    // views ask nothing in between.
    if (newKeys) {
        beginResetModel(); // new hyperparameter columns: the view lays them out again
    } else {
        beginInsertRows(QModelIndex(), at, at + count - 1);
    }
    m_pastParams = past;
    m_params = all;
    m_pastShown = m_history.size();
    changed();
    if (newKeys) {
        m_pastStatsStale = true;
        updateStats(false); // before the view asks which columns are blank
        endResetModel();
    } else {
        m_pastStats.merge(ColumnStats::of(
            count, [this, first](int i) -> const RunRow & { return m_history.row(first + i); }, paramKeys()));
        endInsertRows();
        updateStats();
    }
    if (defaults) {
        Q_EMIT headerDataChanged(Qt::Horizontal, FixedColumnCount, columnCount() - 1);
        Q_EMIT columnDefaultsChanged();
    }
}

void RunTableModel::pastChanged(const QList<int> &indices, bool specs)
{
    int low = rowCount();
    int high = -1;
    for (int i : indices) {
        low = std::min(low, int(m_live.size()) + i);
        high = std::max(high, int(m_live.size()) + i);
    }
    changed();
    if (high >= low) {
        Q_EMIT dataChanged(index(low, 0), index(high, columnCount() - 1));
    }
    if (specs) {
        m_pastParams = pastColumns();
        m_pastStatsStale = true;
        updateColumns();
        return;
    }
    if (m_history.pending() == 0) {
        // The last batch: exact again now, not a second later while the user sorts.
        m_statsTimer.stop();
        m_pastStatsStale = true;
        updateStats();
        return;
    }
    m_pastStats.merge(ColumnStats::of(
        int(indices.size()), [this, &indices](int i) -> const RunRow & { return m_history.row(indices.at(i)); },
        paramKeys()));
    updateStats();
    if (!m_statsTimer.isActive()) {
        m_statsTimer.start(); // exact again, after the batches
    }
}

void RunTableModel::pastRebuilt()
{
    // Inside a reset (PastRuns::removing).
    m_pastShown = m_history.size();
    m_pastParams = pastColumns();
    m_params = m_pastParams;
    for (const RunRow &row : std::as_const(m_live)) {
        m_params.add(row);
    }
    m_pastStatsStale = true;
    changed();
    updateStats(false);
    endResetModel();
    Q_EMIT columnDefaultsChanged();
}

int RunTableModel::paramColumn(const QString &key) const
{
    const qsizetype i = m_params.keys().indexOf(key);
    return i < 0 ? -1 : FixedColumnCount + int(i);
}

void RunTableModel::setCatalogue(const ModelCatalogue &catalogue)
{
    // The live rows now; the past ones are made again in the background (pastChanged).
    beginResetModel();
    m_catalogue = catalogue;
    for (RunRow &row : m_live) {
        row.setSpec(row.spec, m_catalogue);
    }
    m_params = m_pastParams;
    for (const RunRow &row : std::as_const(m_live)) {
        m_params.add(row);
    }
    m_pastStatsStale = true;
    changed();
    updateStats(false);
    endResetModel();
    Q_EMIT columnDefaultsChanged();
    m_history.setCatalogue(catalogue);
}

void RunTableModel::setNotes(const QString &runDir, const RunNotes &notes)
{
    const QString dir = QFileInfo(runDir).absoluteFilePath();
    const QString name = QFileInfo(runDir).fileName();
    const bool open = QFileInfo(runDir).absolutePath() == QFileInfo(m_runsRoot).absoluteFilePath();
    if (open) {
        m_liveNotes.insert(name, notes);
    }
    for (int r = 0; r < rowCount(); ++r) {
        const RunRow &row = this->row(r);
        const bool same = row.id ? open && row.name == name : row.runDir == dir;
        if (!same) {
            continue;
        }
        if (row.id) {
            m_live[r].notes = notes;
        } else {
            m_history.setNotes(r - int(m_live.size()), notes);
        }
        changed();
        Q_EMIT dataChanged(index(r, TagsColumn), index(r, TagsColumn));
        Q_EMIT dataChanged(index(r, NoteColumn), index(r, NoteColumn));
    }
    m_pastStatsStale = true;
    updateStats();
}

const RunRecord *RunTableModel::pastRun(int row) const
{
    const qsizetype past = row - m_live.size();
    return past >= 0 && past < m_pastShown ? &m_history.run(int(past)) : nullptr;
}

const RunRow &RunTableModel::row(int row) const
{
    return row < m_live.size() ? m_live.at(row) : m_history.row(row - int(m_live.size()));
}

void RunTableModel::refreshHistory()
{
    m_history.refresh(m_runsRoot, m_experiment);
}

void RunTableModel::waitForHistory()
{
    m_history.waitForReads();
    m_statsTimer.stop();
    m_pastStatsStale = true;
    updateStats();
}

int RunTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_live.size()) + m_pastShown;
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
    const RunRow &row = this->row(index.row());
    const int column = index.column();
    switch (role) {
    case RunIdRole:
        return row.id;
    case RunDirRole:
        return row.runDir;
    case ExperimentRole:
        return row.experiment;
    case SortRole:
        return RunTableColumns::value(row, column, paramKeys());
    default:
        break;
    }
    if (column >= FixedColumnCount) {
        const QString key = m_params.keys().value(column - FixedColumnCount);
        const auto value = row.params.constFind(key);
        if (role == Qt::DisplayRole && value != row.params.constEnd() && value->isDouble()) {
            return m_stats.format(column).text(value->toDouble()); // alike in the column
        }
        return ParamColumns::data(row, key, role);
    }
    if (role == Qt::ForegroundRole && column == StateColumn) {
        RunState state;
        return runStateFromName(row.state, &state) ? QVariant(CardDelegate::stateColor(state)) : QVariant();
    }
    if (role == Qt::ToolTipRole && column == StateColumn && !row.status.reason.isEmpty()) {
        return QStringLiteral("%1: %2").arg(row.state, row.status.reason); // why it waits, as trainyard status says
    }
    if (role == Qt::TextAlignmentRole && isNumberColumn(column)) {
        return int(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) {
        return {};
    }
    switch (column) {
    case StartedColumn:
        return row.started.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm"));
    case DurationColumn:
        return CardDelegate::formatDuration(row.trained);
    case NoteColumn:
        return role == Qt::ToolTipRole ? row.notes.note : firstLine(row.notes.note);
    default:
        break;
    }
    const QVariant value = RunTableColumns::value(row, column, paramKeys());
    if (isNumberColumn(column)) {
        return value.isValid() ? m_stats.format(column).text(value.toDouble()) : QString();
    }
    return value.toString();
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
    return key.isEmpty() ? title(section) : key;
}

} // namespace trainyard
