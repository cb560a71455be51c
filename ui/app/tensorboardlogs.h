#pragma once

#include <QObject>
#include <QStringList>

class QAction;
class QMenu;
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
    /// File ▸ Close TensorBoard logs: a submenu of the folders opened (off
    /// when there are none).
    QAction *closeAction() const;
    QStringList folders() const { return m_folders; }

    /// Adds `folder` (a folder of runs' logs, or one run's) to the table's
    /// past experiments and the settings, and reads it; false, with `error`
    /// saying why, when it holds no events file.
    bool open(const QString &folder, QString *error);
    /// What the menu does with the folder picked: open() it, then show the
    /// runs view with a word in the status bar, or say why not in a dialog.
    bool openAndShow(const QString &folder);
    /// Stops showing `folder`'s runs and forgets it (nothing is removed
    /// from the disk); false when it was not open.
    bool close(const QString &folder);

private:
    void choose();
    // The folders changed: the settings, the table and the close menu follow.
    void foldersChanged();

    RunTableModel *m_table;
    QWidget *m_parent;
    QWidget *m_runsView;
    QAction *m_openAction;
    QMenu *m_closeMenu;
    QStringList m_folders;
};

} // namespace trainyard
