#pragma once

#include "orchestration/records/runinfo.h"
#include "ui/runs/rundetailsdialog.h"

#include <QHash>
#include <QObject>
#include <QPointer>

namespace trainyard {

class ExperimentDocument;
class ModelCatalogue;
class RunTableModel;
struct RunRecord;

/// The open run details windows, one per run folder: asking for a run whose
/// window is open raises that window (with the newest record) instead of a
/// second one. Windows of the open experiment follow its run live.
class RunDetailsWindows : public QObject
{
    Q_OBJECT

public:
    /// `catalogue` (the worker's defaults shown beside each value) must outlive
    /// this; notes saved in a window go to `table`.
    RunDetailsWindows(const ModelCatalogue &catalogue, RunTableModel *table, QWidget *parentWindow);

    /// A run of `document`, on `page`; null if it has no such run.
    RunDetailsDialog *showLive(ExperimentDocument *document, RunId id, RunDetailsDialog::Page page);
    /// A run as read from disk (a past run), not followed. Its job details
    /// are asked of `open` when it is the run's experiment (whose clusters
    /// the run's device names); else of nobody.
    RunDetailsDialog *showPast(const RunRecord &run, const QString &experiment, ExperimentDocument *open = nullptr);

private:
    RunDetailsDialog *show(const RunRecord &run, const QString &experiment, RunDetailsDialog::Source source,
                           RunDetailsDialog::Page page, ExperimentDocument *jobs);

    const ModelCatalogue &m_catalogue;
    RunTableModel *m_table;
    QWidget *m_parentWindow;
    QHash<QString, QPointer<RunDetailsDialog>> m_open; ///< by run folder
};

} // namespace trainyard
