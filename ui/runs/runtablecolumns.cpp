#include "ui/runs/runtablecolumns.h"

#include "ui/runs/paramcolumns.h"
#include "ui/runs/runrow.h"

#include <QCoreApplication>

#include <cmath>

namespace trainyard {

namespace {

QVariant number(double value)
{
    return std::isfinite(value) ? QVariant(value) : QVariant();
}

QVariant text(const QString &value)
{
    return value.isEmpty() ? QVariant() : QVariant(value);
}

QString tr(const char *text)
{
    return QCoreApplication::translate("trainyard::RunTableModel", text);
}

} // namespace

QString RunTableColumns::title(int column)
{
    switch (column) {
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

bool RunTableColumns::isNumberColumn(int column)
{
    return (column >= StepColumn && column <= AccuracyColumn) || column == DurationColumn;
}

QVariant RunTableColumns::value(const RunRow &row, int column, const QStringList &paramKeys)
{
    if (column >= FixedColumnCount) {
        return ParamColumns::sortValue(row, paramKeys.value(column - FixedColumnCount));
    }
    switch (column) {
    case ExperimentColumn:
        return row.id ? QStringLiteral("%1 (open)").arg(row.experiment) : row.experiment;
    case NameColumn:
        return row.name;
    case TagsColumn:
        return text(row.notes.tagsText());
    case ModelColumn:
        return text(row.model);
    case DataColumn:
        return text(row.data);
    case StateColumn:
        return text(row.state);
    case StepColumn:
        return row.step >= 0 ? QVariant(double(row.step)) : QVariant();
    case LossColumn:
        return number(row.loss);
    case MrrColumn:
        return number(row.mrr);
    case Hits10Column:
        return number(row.hits10);
    case AccuracyColumn:
        return number(row.accuracy);
    case StartedColumn:
        return row.started.isValid() ? QVariant(row.started) : QVariant();
    case DurationColumn:
        return row.trained >= 0 ? QVariant(row.trained) : QVariant();
    case NoteColumn:
        return text(row.notes.note);
    case FolderColumn:
        return text(row.runDir);
    default:
        return {};
    }
}

} // namespace trainyard
