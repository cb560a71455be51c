#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace trainyard {

// The small JSON files Trainyard keeps in the runs root and run folders.

// Writes atomically (beside it, then renamed). A link in its place is
// removed, never followed (QSaveFile would write to whatever it points
// at), and the file is written in its place; `privateFile`: mode 0600.
bool writeJsonFile(const QString &path, const QJsonObject &object, QString *error, bool privateFile = false);

// A file that says what to adopt, resume or signal (the state file, a
// sweep's state): believed only when it is the user's own regular file that
// nobody else can write, at most `maxBytes`, holding a JSON object. nullopt
// with `error` empty when there is none; with the reason when it is refused.
std::optional<QJsonObject> readOwnJsonFile(const QString &path, qint64 maxBytes, QString *error);
// Writes such a file (writeJsonFile), leaving another user's file alone
// (false, the reason): theirs to keep in a shared runs root.
bool writeOwnJsonFile(const QString &path, const QJsonObject &object, QString *error, bool privateFile = false);

// The strings of a JSON array; anything else reads as none.
QStringList jsonStringList(const QJsonValue &value);

} // namespace trainyard
