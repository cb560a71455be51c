#include "runs/rundetailswindows.h"

#include "dispatch/startplanner.h"
#include "metrics/metricstore.h"
#include "records/runrecord.h"
#include "records/runregistry.h"
#include "runs/runtablemodel.h"
#include "runstore/runstore.h"
#include "session/orchestrator.h"
#include "session/session.h"

#include <QFileInfo>

namespace trainyard {

namespace {

// A run of the open session as its details show it: the registry's record
// with the command line it started (or would start) with, its folder even
// before it has one, the store's evaluations.
std::optional<RunRecord> liveRecord(Session *session, RunId id)
{
    Orchestrator *orchestrator = session ? session->orchestrator() : nullptr;
    if (!orchestrator || !orchestrator->runs()->contains(id)) {
        return std::nullopt;
    }
    RunInfo info = orchestrator->runs()->value(id);
    info.command = orchestrator->startPlanner()->commandLine(id);
    if (info.runDir.isEmpty()) {
        info.runDir = session->store()->runDir(info.name);
    }
    return RunRecord::live(info, *session->metrics());
}

} // namespace

RunDetailsWindows::RunDetailsWindows(const ModelCatalogue &catalogue, RunTableModel *table, QWidget *parentWindow)
    : QObject(parentWindow)
    , m_catalogue(catalogue)
    , m_table(table)
    , m_parentWindow(parentWindow)
{
}

RunDetailsDialog *RunDetailsWindows::showLive(Session *session, RunId id, RunDetailsDialog::Page page)
{
    std::optional<RunRecord> run = liveRecord(session, id);
    if (!run) {
        return nullptr;
    }
    run->notes = session->store()->readNotes(run->info.name);
    QPointer<Session> owner = session;
    return show(
        *run, session->name(), [owner, id] { return liveRecord(owner, id); }, page,
        session->orchestrator()->launcher());
}

RunDetailsDialog *RunDetailsWindows::showPast(const RunRecord &run, const QString &experiment, Session *open)
{
    // Another experiment's cluster of the same name may be another cluster.
    Launcher *launcher =
        open && open->orchestrator() && open->name() == experiment ? open->orchestrator()->launcher() : nullptr;
    return show(run, experiment, {}, RunDetailsDialog::Page::Overview, launcher);
}

RunDetailsDialog *RunDetailsWindows::show(const RunRecord &run, const QString &experiment,
                                          RunDetailsDialog::Source source, RunDetailsDialog::Page page,
                                          Launcher *launcher)
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
    dialog->setLauncher(launcher);
    dialog->showPage(page);
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
    return dialog;
}

} // namespace trainyard
