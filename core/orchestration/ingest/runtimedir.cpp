#include "orchestration/ingest/runtimedir.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace trainyard {

bool isPrivateFolder(const QString &dir, QString *why)
{
    const auto no = [&](const QString &text) {
        if (why) {
            *why = QStringLiteral("%1: %2").arg(dir, text);
        }
        return false;
    };
    struct stat st
    {};
    if (::lstat(QFile::encodeName(dir).constData(), &st) != 0) {
        return no(QString::fromLocal8Bit(std::strerror(errno)));
    }
    if (S_ISLNK(st.st_mode)) {
        return no(QStringLiteral("a symbolic link, not a folder (Trainyard does not follow it)"));
    }
    if (!S_ISDIR(st.st_mode)) {
        return no(QStringLiteral("not a folder"));
    }
    if (st.st_uid != ::getuid()) {
        return no(QStringLiteral("owned by user id %1, not by this user (%2)").arg(st.st_uid).arg(::getuid()));
    }
    if ((st.st_mode & 077) != 0) {
        return no(QStringLiteral("others can enter it (mode %1, expected 0700)")
                      .arg(st.st_mode & 0777, 4, 8, QLatin1Char('0')));
    }
    return true;
}

QString userRuntimeDir(QString *error)
{
    // Set: the session's own folder (QStandardPaths checks it, and says so
    // if it is not private).
    if (!qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
        return QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
    }
    const QString dir = QDir::tempPath() + QStringLiteral("/trainyard-") + QString::number(::getuid());
    const QByteArray path = QFile::encodeName(dir);
    if (::mkdir(path.constData(), 0700) != 0 && errno != EEXIST) {
        if (error) {
            *error = QStringLiteral("%1: cannot create it: %2").arg(dir, QString::fromLocal8Bit(std::strerror(errno)));
        }
        return {};
    }
    // Made now or long ago, perhaps by someone else: checked either way.
    // One of ours left open is closed, never another's.
    struct stat st
    {};
    if (::lstat(path.constData(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::getuid()
        && (st.st_mode & 077) != 0) {
        ::chmod(path.constData(), 0700);
    }
    QString why;
    if (!isPrivateFolder(dir, &why)) {
        if (error) {
            *error = why + QStringLiteral(" (set XDG_RUNTIME_DIR to a private folder, or remove this one)");
        }
        return {};
    }
    return dir;
}

} // namespace trainyard
