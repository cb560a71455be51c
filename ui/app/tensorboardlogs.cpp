#include "ui/app/tensorboardlogs.h"

#include "orchestration/runstore/tensorboardrun.h"
#include "ui/app/appsettings.h"
#include "ui/runs/runtablemodel.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QWidget>

namespace trainyard {

namespace {

const QString kSettingsKey = QStringLiteral("tensorBoardFolders");

} // namespace

TensorBoardLogs::TensorBoardLogs(RunTableModel *table, QWidget *parent, QWidget *runsView)
    : QObject(parent)
    , m_table(table)
    , m_parent(parent)
    , m_runsView(runsView)
    , m_openAction(new QAction(tr("Open &TensorBoard logs…"), this))
    , m_closeMenu(new QMenu(tr("C&lose TensorBoard logs"), parent))
{
    m_openAction->setObjectName(QStringLiteral("openTensorBoardLogs"));
    m_openAction->setStatusTip(tr("Show the runs of a folder of TensorBoard event files as past runs"));
    connect(m_openAction, &QAction::triggered, this, &TensorBoardLogs::choose);
    m_closeMenu->menuAction()->setObjectName(QStringLiteral("closeTensorBoardLogs"));
    m_closeMenu->menuAction()->setStatusTip(tr("Stop showing the runs of a folder of TensorBoard logs"));
    m_folders = appSettings().value(kSettingsKey).toStringList();
    foldersChanged();
}

QAction *TensorBoardLogs::closeAction() const
{
    return m_closeMenu->menuAction();
}

void TensorBoardLogs::foldersChanged()
{
    m_table->setTensorBoardFolders(m_folders);
    m_closeMenu->clear();
    for (const QString &folder : std::as_const(m_folders)) {
        QAction *action = m_closeMenu->addAction(QDir::toNativeSeparators(folder));
        connect(action, &QAction::triggered, this, [this, folder] {
            close(folder);
            m_table->refreshHistory();
        });
    }
    m_closeMenu->menuAction()->setEnabled(!m_folders.isEmpty());
}

bool TensorBoardLogs::close(const QString &folder)
{
    if (!m_folders.removeOne(folder)) {
        return false;
    }
    appSettings().setValue(kSettingsKey, m_folders);
    foldersChanged();
    return true;
}

bool TensorBoardLogs::open(const QString &folder, QString *error)
{
    const QString path = QFileInfo(folder).absoluteFilePath();
    if (!QFileInfo(path).isDir() || !TensorBoardRun::isLogsFolder(path)) {
        if (error) {
            *error = tr("%1 holds no TensorBoard event files (events.out.tfevents.*), neither itself nor in a "
                        "subfolder.")
                         .arg(QDir::toNativeSeparators(path));
        }
        return false;
    }
    if (!m_folders.contains(path)) {
        m_folders.append(path);
        appSettings().setValue(kSettingsKey, m_folders);
        foldersChanged();
    }
    m_table->refreshHistory();
    return true;
}

void TensorBoardLogs::choose()
{
    const QString folder = QFileDialog::getExistingDirectory(m_parent, tr("Open TensorBoard logs"));
    if (folder.isEmpty()) {
        return;
    }
    openAndShow(folder);
}

bool TensorBoardLogs::openAndShow(const QString &folder)
{
    QString error;
    if (!open(folder, &error)) {
        QMessageBox::warning(m_parent, tr("Open TensorBoard logs"), error);
        return false;
    }
    // Where they appear: the runs table, with a word in the status bar.
    for (QWidget *w = m_runsView ? m_runsView->parentWidget() : nullptr; w; w = w->parentWidget()) {
        if (auto *tabs = qobject_cast<QTabWidget *>(w)) {
            tabs->setCurrentWidget(m_runsView);
            break;
        }
    }
    if (auto *window = qobject_cast<QMainWindow *>(m_parent)) {
        window->statusBar()->showMessage(
            tr("The runs of %1 are in the Runs tab, as past runs").arg(QDir::toNativeSeparators(folder)), 8000);
    }
    return true;
}

} // namespace trainyard
