#include "runtablemodel.h"

#include "carddelegate.h"
#include "metricstore.h"
#include "scheduler.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace trainyard {

namespace {

QString dataText(const QJsonObject &spec)
{
    const QJsonObject data = spec.value(QLatin1String("data")).toObject();
    const QString kind = data.value(QLatin1String("kind")).toString();
    const QString path = data.value(QLatin1String("path")).toString();
    return path.isEmpty() ? kind : QStringLiteral("%1: %2").arg(kind, QFileInfo(path).fileName());
}

QJsonObject readJson(const QString &file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) {
        return {};
    }
    return QJsonDocument::fromJson(f.readAll()).object();
}

// Prefers the test split over valid (the final word on a run).
void takeEval(const QJsonObject &line, double *mrr, double *hits10, double *accuracy, bool *haveTest)
{
    const bool test = line.value(QLatin1String("split")).toString() == QLatin1String("test");
    if (*haveTest && !test) {
        return;
    }
    *haveTest = *haveTest || test;
    if (line.contains(QLatin1String("mrr"))) {
        *mrr = line.value(QLatin1String("mrr")).toDouble();
    }
    if (line.contains(QLatin1String("hits@10"))) {
        *hits10 = line.value(QLatin1String("hits@10")).toDouble();
    }
    if (line.contains(QLatin1String("accuracy"))) {
        *accuracy = line.value(QLatin1String("accuracy")).toDouble();
    }
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
    row.model = run.spec.value(QLatin1String("model")).toObject().value(QLatin1String("type")).toString();
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

bool RunTableModel::readRunFolder(const QString &dir, const QString &experiment, Row *row)
{
    const QJsonObject spec = readJson(dir + QLatin1String("/spec.json"));
    const QJsonObject status = readJson(dir + QLatin1String("/status.json"));
    if (spec.isEmpty() && status.isEmpty()) {
        return false;
    }
    row->experiment = experiment;
    row->name = spec.value(QLatin1String("name")).toString(QFileInfo(dir).fileName());
    row->model = spec.value(QLatin1String("model")).toObject().value(QLatin1String("type")).toString();
    row->data = dataText(spec);
    row->state = status.value(QLatin1String("state")).toString(QStringLiteral("unknown"));
    row->started = QDateTime::fromString(status.value(QLatin1String("started")).toString(), Qt::ISODate);
    row->ended = QDateTime::fromString(status.value(QLatin1String("ended")).toString(), Qt::ISODate);
    row->runDir = dir;

    // Only the tail of metrics.jsonl: the final loss and evaluation are at its end.
    QFile metrics(dir + QLatin1String("/metrics.jsonl"));
    if (metrics.open(QIODevice::ReadOnly)) {
        constexpr qint64 tail = 256 * 1024;
        if (metrics.size() > tail) {
            metrics.seek(metrics.size() - tail);
            metrics.readLine(); // a partial line
        }
        bool haveTest = false;
        while (!metrics.atEnd()) {
            const QJsonObject line = QJsonDocument::fromJson(metrics.readLine()).object();
            const QString type = line.value(QLatin1String("type")).toString();
            if (type == QLatin1String("metric")) {
                row->step = line.value(QLatin1String("step")).toInteger(-1);
                row->loss = line.value(QLatin1String("loss")).toDouble(qQNaN());
            } else if (type == QLatin1String("eval")) {
                takeEval(line, &row->mrr, &row->hits10, &row->accuracy, &haveTest);
            } else if (type == QLatin1String("done") && !status.contains(QLatin1String("state"))) {
                row->state = line.value(QLatin1String("status")).toString(row->state);
            }
        }
    }
    return true;
}

void RunTableModel::refreshHistory()
{
    beginResetModel();
    m_past.clear();
    const QString current = QFileInfo(m_runsRoot).canonicalFilePath();
    for (const QString &root : std::as_const(m_historyRoots)) {
        const QDir dir(root);
        for (const QFileInfo &experimentDir : dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            if (experimentDir.canonicalFilePath() == current) {
                continue; // the open experiment's runs are the live rows
            }
            const QDir runs(experimentDir.absoluteFilePath());
            for (const QFileInfo &runDir : runs.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
                Row row;
                if (readRunFolder(runDir.absoluteFilePath(), experimentDir.fileName(), &row)) {
                    m_past.append(row);
                }
            }
        }
    }
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
        return sort ? QVariant(row.step) : (row.step >= 0 ? QVariant(row.step) : QVariant());
    case LossColumn:
        return sort ? QVariant(std::isfinite(row.loss) ? row.loss : -1e300) : QVariant(number(row.loss));
    case MrrColumn:
        return sort ? QVariant(std::isfinite(row.mrr) ? row.mrr : -1.0) : QVariant(number(row.mrr));
    case Hits10Column:
        return sort ? QVariant(std::isfinite(row.hits10) ? row.hits10 : -1.0) : QVariant(number(row.hits10));
    case AccuracyColumn:
        return sort ? QVariant(std::isfinite(row.accuracy) ? row.accuracy : -1.0) : QVariant(number(row.accuracy));
    case StartedColumn:
        return sort ? QVariant(row.started) : QVariant(row.started.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    case DurationColumn:
        return sort ? QVariant(duration) : QVariant(CardDelegate::formatDuration(duration));
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

} // namespace trainyard
