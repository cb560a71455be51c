#include "editors/specdialogs.h"

#include "dispatch/board.h"
#include "editors/programeditordialog.h"
#include "editors/runeditordialog.h"
#include "experiment/runspecview.h"
#include "records/runregistry.h"
#include "session/orchestrator.h"

#include <QCoreApplication>
#include <QJsonObject>

namespace trainyard {

namespace {

// The run editor and the program editor, set up and run alike.
template <class Dialog>
bool execSpecEditor(Dialog &dialog, const Orchestrator *orchestrator, QJsonObject *spec, int *repeat,
                    bool repeatEditable, const QString &editedRun, bool asNewRun)
{
    dialog.setRepeatEditable(repeatEditable);
    if (!editedRun.isEmpty() && !asNewRun) {
        dialog.setAcceptText(QCoreApplication::translate("SpecDialogs", "Apply")); // an edit, not a new run
        // Its name may stay; another run's would be refused after the dialog closed.
        QStringList taken;
        for (RunId id : orchestrator->board()->runIds()) {
            if (orchestrator->runs()->value(id).name != editedRun) {
                taken << orchestrator->runs()->value(id).name;
            }
        }
        dialog.setTakenNames(taken);
    } else if (asNewRun) {
        dialog.setAcceptText(QCoreApplication::translate("SpecDialogs", "Queue as new run"));
    }
    if (dialog.exec() != QDialog::Accepted) {
        return false;
    }
    *spec = dialog.spec();
    *repeat = dialog.repeat();
    return true;
}

} // namespace

SpecDialogs::SpecDialogs(QWidget *parent, const ModelCatalogue &catalogue, PresetStore *presets)
    : m_parent(parent)
    , m_catalogue(catalogue)
    , m_presets(presets)
{
}

bool SpecDialogs::edit(QJsonObject *spec, int *repeat, bool repeatEditable, const Orchestrator *orchestrator,
                       const QString &workerProgram, const QString &editedRun, bool asNewRun) const
{
    if (RunSpecView(*spec).isProgram()) {
        ProgramEditorDialog dialog(*spec, *repeat, m_parent);
        return execSpecEditor(dialog, orchestrator, spec, repeat, repeatEditable, editedRun, asNewRun);
    }
    RunEditorDialog dialog(m_catalogue, *spec, *repeat, m_parent);
    dialog.setPresetStore(m_presets);
    dialog.setWorkerProgram(workerProgram); // the program that will run it checks its data
    return execSpecEditor(dialog, orchestrator, spec, repeat, repeatEditable, editedRun, asNewRun);
}

} // namespace trainyard
