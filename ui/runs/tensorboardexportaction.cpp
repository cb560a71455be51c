#include "ui/runs/tensorboardexportaction.h"

#include "orchestration/document/experimentdocument.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/runstore/tensorboardexport.h"
#include "orchestration/sweep/trialparameters.h"
#include "ui/runs/runtablemodel.h"
#include "ui/runs/runtablepanel.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>

namespace trainyard {

TensorBoardExportAction::TensorBoardExportAction(RunTablePanel *panel)
    : QObject(panel)
    , m_panel(panel)
    , m_action(new QAction(tr("Export to &TensorBoard…"), this))
{
    m_action->setObjectName(QStringLiteral("exportToTensorBoard"));
    m_action->setToolTip(tr("Write the selected runs' curves as TensorBoard logs, one folder per run"));
    connect(m_action, &QAction::triggered, this, &TensorBoardExportAction::exportSelected);
    panel->addRowAction(m_action);
}

int TensorBoardExportAction::exportRuns(const QStringList &runDirs, const QString &dir, QString *error,
                                        const Experiment *experiment, const QString &runsRoot)
{
    QStringList names;
    for (const QString &runDir : runDirs) {
        const QString name = QFileInfo(runDir).fileName();
        if (names.contains(name)) {
            *error = tr("Two of the runs are named %1: export them one at a time, into different folders.").arg(name);
            return -1;
        }
        names << name;
    }
    const QString refusal = TensorBoardExport::refusal(dir, names);
    if (!refusal.isEmpty()) {
        *error = refusal;
        return -1;
    }
    QHash<QString, TrialParameters::Values> hparams;
    if (experiment && !runsRoot.isEmpty()) {
        hparams = TrialParameters::searched(*experiment, RunStore(runsRoot), names);
    }
    const QString root = QFileInfo(runsRoot).absoluteFilePath();
    for (const QString &runDir : runDirs) {
        const QFileInfo info(runDir);
        const bool ofTheExperiment = !runsRoot.isEmpty() && info.absolutePath() == root;
        const TensorBoardExport::Result result =
            TensorBoardExport::writeRun(RunStore(info.absolutePath()), info.fileName(), dir,
                                        ofTheExperiment ? hparams.value(info.fileName()) : TrialParameters::Values());
        if (!result.ok) {
            *error = result.error;
            return -1;
        }
    }
    return int(runDirs.size());
}

void TensorBoardExportAction::exportSelected()
{
    QStringList runDirs;
    for (int row : m_panel->selectedRows()) {
        const QString runDir = m_panel->model()->row(row).runDir;
        if (!runDir.isEmpty() && !runDirs.contains(runDir)) {
            runDirs << runDir;
        }
    }
    if (runDirs.isEmpty()) {
        return;
    }
    const QString dir = QFileDialog::getExistingDirectory(m_panel, tr("Export to TensorBoard"));
    if (dir.isEmpty()) {
        return;
    }
    QString error;
    const ExperimentDocument *document = m_panel->model()->document();
    const Experiment experiment = document ? document->experiment() : Experiment();
    const int written =
        exportRuns(runDirs, dir, &error, document ? &experiment : nullptr, document ? document->runsRoot() : QString());
    if (written < 0) {
        QMessageBox::warning(m_panel, tr("Export to TensorBoard"), error);
    } else {
        QMessageBox::information(m_panel, tr("Export to TensorBoard"),
                                 tr("%n run(s) written to %1; view them with: tensorboard --logdir %1", "", written)
                                     .arg(QDir::toNativeSeparators(dir)));
    }
}

} // namespace trainyard
