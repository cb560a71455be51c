#include "ui/app/tensorboardlogs.h"

#include "orchestration/runstore/tensorboardrun.h"
#include "ui/app/appsettings.h"
#include "ui/runs/runtablemodel.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QWidget>

namespace trainyard {

namespace {

const QString kSettingsKey = QStringLiteral("tensorBoardFolders");

} // namespace

TensorBoardLogs::TensorBoardLogs(RunTableModel *table, QWidget *parent)
    : QObject(parent)
    , m_table(table)
    , m_parent(parent)
    , m_openAction(new QAction(tr("Open &TensorBoard logs…"), this))
{
    m_openAction->setObjectName(QStringLiteral("openTensorBoardLogs"));
    m_openAction->setStatusTip(tr("Show the runs of a folder of TensorBoard event files as past runs"));
    connect(m_openAction, &QAction::triggered, this, &TensorBoardLogs::choose);
    m_folders = appSettings().value(kSettingsKey).toStringList();
    m_table->setTensorBoardFolders(m_folders);
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
    }
    m_table->setTensorBoardFolders(m_folders);
    m_table->refreshHistory();
    return true;
}

void TensorBoardLogs::choose()
{
    const QString folder = QFileDialog::getExistingDirectory(m_parent, tr("Open TensorBoard logs"));
    if (folder.isEmpty()) {
        return;
    }
    QString error;
    if (!open(folder, &error)) {
        QMessageBox::warning(m_parent, tr("Open TensorBoard logs"), error);
    }
}

} // namespace trainyard
