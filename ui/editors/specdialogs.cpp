#include "ui/editors/specdialogs.h"

#include "orchestration/document/experimentdocument.h"
#include "orchestration/runspec/runspecview.h"
#include "ui/editors/programeditordialog.h"
#include "ui/editors/runeditordialog.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QJsonObject>
#include <QPushButton>

namespace trainyard {

namespace {

// The editor's result when the user picked "Sweep…".
constexpr int kSweepResult = 2;

bool specReady(RunEditorDialog &dialog)
{
    QString error;
    return dialog.validate(&error); // the dialog shows why not
}

bool specReady(ProgramEditorDialog &dialog)
{
    return dialog.canAccept();
}

// The run editor and the program editor, set up and run alike.
template <class Dialog>
bool execSpecEditor(Dialog &dialog, const ExperimentDocument *document, QJsonObject *spec, int *repeat,
                    bool repeatEditable, const QString &editedRun, bool asNewRun,
                    const SpecDialogs::SweepHandler &sweep = {})
{
    auto *buttons = dialog.template findChild<QDialogButtonBox *>();
    if (sweep && editedRun.isEmpty() && !asNewRun && buttons) {
        QPushButton *button =
            buttons->addButton(QCoreApplication::translate("SpecDialogs", "S&weep…"), QDialogButtonBox::ActionRole);
        button->setObjectName(QStringLiteral("sweepButton"));
        button->setToolTip(QCoreApplication::translate("SpecDialogs", "Search a space of this run's settings"));
        QObject::connect(button, &QPushButton::clicked, &dialog, [&dialog] {
            if (specReady(dialog)) {
                dialog.done(kSweepResult);
            }
        });
    }
    dialog.setRepeatEditable(repeatEditable);
    // Another run's name is refused as the user types (the board refuses it
    // too, never renames it); an edited run's own name may stay.
    QStringList taken;
    for (RunId id : document ? document->runIds() : QList<RunId>()) {
        const QString name = document->run(id).name;
        if (asNewRun || name != editedRun) {
            taken << name;
        }
    }
    dialog.setTakenNames(taken);
    if (!editedRun.isEmpty() && !asNewRun) {
        dialog.setAcceptText(QCoreApplication::translate("SpecDialogs", "&Apply")); // an edit, not a new run
    } else if (asNewRun) {
        dialog.setAcceptText(QCoreApplication::translate("SpecDialogs", "&Queue as new run"));
    }
    int result = dialog.exec();
    // A sweep of it instead of the run; the sweep editor cancelled, the run editor is back with its edits.
    while (result == kSweepResult) {
        if (sweep(dialog.spec())) {
            return false;
        }
        result = dialog.exec();
    }
    if (result != QDialog::Accepted) {
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

bool SpecDialogs::edit(QJsonObject *spec, int *repeat, bool repeatEditable, const ExperimentDocument *document,
                       const QString &workerProgram, const QString &editedRun, bool asNewRun) const
{
    if (asNewRun && document) { // the edit of a run that has run: a new run needs a name of its own
        spec->insert(QStringLiteral("name"), document->uniqueName(editedRun));
    }
    if (RunSpecView(*spec).isProgram()) {
        ProgramEditorDialog dialog(*spec, *repeat, m_parent);
        return execSpecEditor(dialog, document, spec, repeat, repeatEditable, editedRun, asNewRun, m_sweepHandler);
    }
    RunEditorDialog dialog(m_catalogue, *spec, *repeat, m_parent);
    dialog.setPresetStore(m_presets);
    dialog.setWorkerProgram(workerProgram); // the program that will run it checks its data
    return execSpecEditor(dialog, document, spec, repeat, repeatEditable, editedRun, asNewRun, m_sweepHandler);
}

} // namespace trainyard
