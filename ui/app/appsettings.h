#pragma once

#include <QSettings>

namespace trainyard {

/// The desktop app's settings (recent files, what the next start opens, the
/// plots' and the runs table's choices): one organisation and application
/// name for all of them. Under QStandardPaths' test mode they go to the test
/// folder, so tests never touch a user's settings.
inline QSettings appSettings()
{
    return QSettings(QStringLiteral("trainyard"), QStringLiteral("trainyard"));
}

} // namespace trainyard
