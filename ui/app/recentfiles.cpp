#include "ui/app/recentfiles.h"

#include "ui/app/appsettings.h"

#include <QFileInfo>
#include <QMenu>

namespace trainyard {

namespace {
constexpr int maxRecentFiles = 8;
const QString recentKey = QStringLiteral("recentFiles");
} // namespace

RecentFiles::RecentFiles(QMenu *menu, QObject *parent)
    : QObject(parent)
    , m_menu(menu)
{
    rebuildMenu();
}

QStringList RecentFiles::files() const
{
    return appSettings().value(recentKey).toStringList();
}

void RecentFiles::add(const QString &path)
{
    QStringList list = files();
    list.removeAll(path);
    list.prepend(path);
    while (list.size() > maxRecentFiles) {
        list.removeLast();
    }
    appSettings().setValue(recentKey, list);
    rebuildMenu();
}

void RecentFiles::rebuildMenu()
{
    m_menu->clear();
    const QStringList list = files();
    for (const QString &file : list) {
        m_menu->addAction(QFileInfo(file).fileName(), this, [this, file] { Q_EMIT openRequested(file); })
            ->setToolTip(file);
    }
    m_menu->setEnabled(!list.isEmpty());
}

} // namespace trainyard
