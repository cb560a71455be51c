#pragma once

#include <QObject>
#include <QStringList>

class QMenu;

namespace trainyard {

/// The recently used experiment files (the newest first, at most eight),
/// kept in the app's settings and listed in a menu ("Open recent").
class RecentFiles : public QObject
{
    Q_OBJECT
public:
    /// Fills `menu` (not owned) and keeps it up to date.
    explicit RecentFiles(QMenu *menu, QObject *parent = nullptr);

    QStringList files() const;
    /// Puts `path` first.
    void add(const QString &path);

Q_SIGNALS:
    /// The user picked a file in the menu.
    void openRequested(const QString &path);

private:
    void rebuildMenu();

    QMenu *m_menu;
};

} // namespace trainyard
