#pragma once

#include <QString>
#include <QStringList>
#include <QVariant>

#include <Qt>

namespace trainyard {

struct RunRow;

/// The runs table's columns and roles, and what a row holds in each: the
/// fixed columns, then one per hyperparameter (the keys of ParamColumns).
/// The one place a column's value is taken from a RunRow: the model shows
/// it, the proxy sorts and filters by it, the statistics format it.
struct RunTableColumns
{
    enum Columns {
        ExperimentColumn,
        NameColumn,
        TagsColumn,
        ModelColumn,
        DataColumn,
        StateColumn,
        StepColumn,
        LossColumn,
        MrrColumn,
        Hits10Column,
        AccuracyColumn,
        StartedColumn,
        DurationColumn,
        NoteColumn,
        FolderColumn,
        FixedColumnCount ///< the hyperparameter columns follow
    };
    /// The columns that stay in view while the others scroll sideways.
    static constexpr int FrozenColumnCount = NameColumn + 1;
    enum Roles {
        SortRole = Qt::UserRole, ///< value(): numbers as numbers, for sorting
        RunIdRole,               ///< RunId of a live run, 0 for past runs
        RunDirRole,
        ExperimentRole, ///< the experiment's name (without "(open)")
        ParamKeyRole,   ///< header: the hyperparameter of a column ("train.lr"); empty for fixed columns
        GroupHeaderRole ///< true on a group's header row (RunGroupProxy)
    };

    /// The header of fixed column `column`.
    static QString title(int column);
    /// Whether a fixed column holds numbers (Step to Accuracy, Duration).
    static bool isNumberColumn(int column);
    /// What `row` holds in `column` (a hyperparameter: `paramKeys`' entry
    /// after the fixed columns): numbers as double, the start as QDateTime,
    /// text as QString, a hyperparameter's boolean as 0 or 1; invalid when
    /// the row has none (no loss yet, a key it lacks, null: "no limit").
    static QVariant value(const RunRow &row, int column, const QStringList &paramKeys);
};

} // namespace trainyard
