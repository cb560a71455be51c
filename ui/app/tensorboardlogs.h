#pragma once

#include <QObject>
#include <QStringList>

class QAction;
class QWidget;

namespace trainyard {

class RunTableModel;

/// File ▸ Open TensorBoard logs…: folders of TensorBoard event files shown
/// in the runs table as past experiments (TensorBoardRun: their scalars as
/// curves, evaluations and metrics; read only). The folders opened are
/// remembered in the settings and shown again at the next start.
class TensorBoardLogs : public QObject
{
    Q_OBJECT
public:
    /// Gives `table` the remembered folders. `runsView`, the view of
    /// `table` (a tab of the window), is brought forward once logs are
    /// opened from the menu.
    TensorBoardLogs(RunTableModel *table, QWidget *parent, QWidget *runsView = nullptr);

    QAction *openAction() const { return m_openAction; }
    QStringList folders() const { return m_folders; }

    /// Adds `folder` (a folder of runs' logs, or one run's) to the table's
    /// past experiments and the settings, and reads it; false, with `error`
    /// saying why, when it holds no events file.
    bool open(const QString &folder, QString *error);
    /// What the menu does with the folder picked: open() it, then show the
    /// runs view with a word in the status bar, or say why not in a dialog.
    bool openAndShow(const QString &folder);

private:
    void choose();

    RunTableModel *m_table;
    QWidget *m_parent;
    QWidget *m_runsView;
    QAction *m_openAction;
    QStringList m_folders;
};

} // namespace trainyard
