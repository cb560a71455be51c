#include "orchestration/runstore/jsonfile.h"

#include "metrics/runfile.h"
#include "orchestration/logcategories.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSaveFile>

#include <sys/stat.h>
#include <unistd.h>

namespace trainyard {

bool writeJsonFile(const QString &path, const QJsonObject &object, QString *error, bool privateFile)
{
    // QSaveFile would write through a link, to whatever it points at (another
    // run's status.json): a link in place of one of our files is removed,
    // never followed, and the file is written in its place.
    struct stat st
    {};
    if (::lstat(QFile::encodeName(path).constData(), &st) == 0 && S_ISLNK(st.st_mode)) {
        qCWarning(lcRunStore).noquote() << path << "is a symbolic link: removed, not followed; written in its place";
        if (!QFile::remove(path)) {
            if (error) {
                *error = path
                         + QStringLiteral(" is a symbolic link and cannot be removed; Trainyard does not "
                                          "follow links in run folders");
            }
            return false;
        }
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error) {
            *error = path + QStringLiteral(": cannot write: ") + file.errorString();
        }
        return false;
    }
    if (privateFile) {
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    }
    file.write(QJsonDocument(object).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        if (error) {
            *error = path + QStringLiteral(": cannot write: ") + file.errorString();
        }
        qCWarning(lcRunStore).noquote() << path << "not written:" << file.errorString();
        return false;
    }
    if (privateFile) {
        ::chmod(QFile::encodeName(path).constData(), 0600);
    }
    return true;
}

std::optional<QJsonObject> readOwnJsonFile(const QString &path, qint64 maxBytes, QString *error)
{
    error->clear();
    QFile file;
    struct stat st
    {};
    if (!openRegularFile(path, &file, error, &st)) {
        return std::nullopt; // none (error empty), or not a regular file
    }
    if (st.st_uid != ::geteuid()) {
        *error = QStringLiteral("%1 is owned by another user (uid %2)").arg(path).arg(st.st_uid);
    } else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        *error = QStringLiteral("%1 is writable by others (mode %2)")
                     .arg(path)
                     .arg(st.st_mode & 0777, 4, 8, QLatin1Char('0'));
    } else if (st.st_size > maxBytes) {
        *error =
            QStringLiteral("%1 is %2 bytes, more than it can be (%3)").arg(path).arg(qint64(st.st_size)).arg(maxBytes);
    }
    if (!error->isEmpty()) {
        return std::nullopt;
    }
    QJsonParseError parse{};
    const QJsonDocument doc = QJsonDocument::fromJson(file.read(maxBytes + 1), &parse);
    if (!doc.isObject()) {
        *error = QStringLiteral("%1: not a JSON object (%2 at byte %3)")
                     .arg(path, parse.error != QJsonParseError::NoError ? parse.errorString()
                                                                        : QStringLiteral("another value"))
                     .arg(parse.offset);
        return std::nullopt;
    }
    return doc.object();
}

bool writeOwnJsonFile(const QString &path, const QJsonObject &object, QString *error, bool privateFile)
{
    // Another user's file (a shared runs root) is theirs to keep: it is
    // refused when read, and never replaced by ours.
    struct stat st
    {};
    if (::lstat(QFile::encodeName(path).constData(), &st) == 0 && !S_ISLNK(st.st_mode) && st.st_uid != ::geteuid()) {
        if (error) {
            *error = QStringLiteral("%1 belongs to another user (uid %2): not replaced").arg(path).arg(st.st_uid);
        }
        return false;
    }
    return writeJsonFile(path, object, error, privateFile);
}

QStringList jsonStringList(const QJsonValue &value)
{
    QStringList out;
    for (const QJsonValue &item : value.toArray()) {
        out.append(item.toString());
    }
    return out;
}

} // namespace trainyard
