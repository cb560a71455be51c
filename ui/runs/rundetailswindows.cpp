#include "ui/runs/rundetailswindows.h"

#include "orchestration/document/experimentdocument.h"
#include "orchestration/records/runrecord.h"
#include "ui/runs/runtablemodel.h"

#include <QFileInfo>

namespace trainyard {

RunDetailsWindows::RunDetailsWindows(const ModelCatalogue &catalogue, RunTableModel *table, QWidget *parentWindow)
    : QObject(parentWindow)
    , m_catalogue(catalogue)
    , m_table(table)
    , m_parentWindow(parentWindow)
{
}

RunDetailsDialog *RunDetailsWindows::showLive(ExperimentDocument *document, RunId id, RunDetailsDialog::Page page)
{
    std::optional<RunRecord> run = document ? document->runRecord(id) : std::nullopt;
    if (!run) {
        return nullptr;
    }
    run->notes = document->runNotes(id);
    QPointer<ExperimentDocument> owner = document;
    const auto follow = [owner, id]() -> std::optional<RunRecord> {
        return owner ? owner->runRecord(id) : std::nullopt;
    };
    return show(*run, document->name(), follow, page, document);
}

RunDetailsDialog *RunDetailsWindows::showPast(const RunRecord &run, const QString &experiment, ExperimentDocument *open)
{
    // Another experiment's cluster of the same name may be another cluster.
    ExperimentDocument *jobs = open && open->name() == experiment ? open : nullptr;
    return show(run, experiment, {}, RunDetailsDialog::Page::Overview, jobs);
}

RunDetailsDialog *RunDetailsWindows::show(const RunRecord &run, const QString &experiment,
                                          RunDetailsDialog::Source source, RunDetailsDialog::Page page,
                                          ExperimentDocument *jobs)
{
    const QString key = QFileInfo(run.info.runDir).absoluteFilePath();
    RunDetailsDialog *dialog = m_open.value(key);
    if (!dialog) {
        dialog = new RunDetailsDialog(run, experiment, m_catalogue, m_parentWindow);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &RunDetailsDialog::notesSaved, m_table, &RunTableModel::setNotes);
        m_open.insert(key, dialog);
    } else {
        // Open already, perhaps from a session closed since: this one's record.
        dialog->setRecord(run);
    }
    dialog->setSource(std::move(source));
    RunDetailsDialog::JobSource ask;
    if (jobs) {
        ask = [jobs](const RunInfo &info, QObject *context, RunDetailsDialog::JobDescribed done) {
            return jobs->describeJob(info, context, std::move(done));
        };
    }
    dialog->setJobSource(std::move(ask), jobs);
    dialog->showPage(page);
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
    return dialog;
}

} // namespace trainyard
