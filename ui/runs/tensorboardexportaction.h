#pragma once

#include <QObject>
#include <QStringList>

class QAction;

namespace trainyard {

class Experiment;
class RunTablePanel;

/// The runs table's "Export to TensorBoard…": the selected runs' folders
/// written as TensorBoard logs into a folder the user picks, as `trainyard
/// export --tensorboard` writes them (TensorBoardExport), a trial of the
/// open experiment's sweeps with the values its sweep searched.
class TensorBoardExportAction : public QObject
{
    Q_OBJECT
public:
    /// Adds itself to `panel`'s row menu.
    explicit TensorBoardExportAction(RunTablePanel *panel);

    QAction *action() const { return m_action; }

    /// Writes the runs of `runDirs` into `dir`, one subfolder each, named
    /// as its folder; refuses them all, writing nothing, when a subfolder
    /// already holds files or two runs share a name. The number written;
    /// -1 with `error` saying why. Runs of `runsRoot` that are trials of
    /// `experiment`'s sweeps get their searched values as hparams.
    static int exportRuns(const QStringList &runDirs, const QString &dir, QString *error,
                          const Experiment *experiment = nullptr, const QString &runsRoot = {});

private:
    void exportSelected();

    RunTablePanel *m_panel;
    QAction *m_action;
};

} // namespace trainyard
