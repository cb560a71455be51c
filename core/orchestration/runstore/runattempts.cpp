#include "orchestration/runstore/runattempts.h"

#include "orchestration/experiment/experiment.h"
#include "orchestration/logcategories.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/runstore/specidentity.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainyard {

namespace {

// Whether `path` exists, a dangling link included (lstat: links not followed).
bool existsNoFollow(const QString &path)
{
    struct stat st;
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0;
}

// Whether the folder holds anything a run wrote: any file that is not
// empty, any link, anything that is not a file or a folder; at the top, not
// counting spec.json, config.json, inputs.json and notes.json (Trainyard's and the user's).
bool holdsResults(const QString &dir, bool top)
{
    const QFileInfoList entries =
        QDir(dir).entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System);
    for (const QFileInfo &entry : entries) {
        if (entry.isSymLink()) {
            return true;
        }
        if (top
            && (entry.fileName() == QLatin1String("spec.json") || entry.fileName() == QLatin1String("config.json")
                || entry.fileName() == QLatin1String("inputs.json")
                || entry.fileName() == QLatin1String("notes.json"))) {
            continue;
        }
        if (entry.isDir()) {
            if (holdsResults(entry.filePath(), false)) {
                return true;
            }
        } else if (!entry.isFile() || entry.size() > 0) {
            return true;
        }
    }
    return false;
}

} // namespace

RunAttempts::RunAttempts(const RunStore &store)
    : m_store(store)
{
}

QString RunAttempts::otherSpec(const QString &name, const QJsonObject &spec) const
{
    if (!hasResults(name)) {
        return {};
    }
    const QJsonObject held = m_store.readSpec(name);
    if (held.isEmpty()) {
        return QStringLiteral("it has no readable spec.json");
    }
    return specidentity::difference(held, spec);
}

bool RunAttempts::hasResults(const QString &name) const
{
    const QString dir = m_store.runDir(name);
    const QFileInfo info(dir);
    return !dir.isEmpty() && !info.isSymLink() && info.isDir() && holdsResults(dir, true);
}

int RunAttempts::number(const QString &folderName, QString *base)
{
    static const QRegularExpression re(
        QRegularExpression::anchoredPattern(QStringLiteral("(.+)\\.attempt-([1-9][0-9]{0,5})")));
    const QRegularExpressionMatch m = re.match(folderName);
    if (!m.hasMatch() || !isSafeRunName(m.captured(1))) {
        return 0;
    }
    if (base) {
        *base = m.captured(1);
    }
    return m.captured(2).toInt();
}

QString RunAttempts::nextName(const QString &name) const
{
    if (m_store.runDir(name).isEmpty()) {
        return {};
    }
    for (int n = 1; n <= 999999; ++n) {
        const QString candidate = name + QStringLiteral(".attempt-") + QString::number(n);
        if (!existsNoFollow(m_store.root() + QLatin1Char('/') + candidate)) {
            return candidate;
        }
    }
    return {};
}

bool RunAttempts::archive(const QString &name, QString *archivedName, QString *error) const
{
    const QString dir = m_store.runDir(name);
    if (dir.isEmpty()) {
        return refuse(error, QStringLiteral("\"%1\" is not a safe run name").arg(name));
    }
    const QFileInfo info(dir);
    if (info.isSymLink()) {
        return refuse(error,
                      dir + QStringLiteral(" is a symbolic link; Trainyard does not follow links in run folders"));
    }
    if (!info.isDir()) {
        return refuse(error, dir + QStringLiteral(": no run folder to keep"));
    }
    const RunNotes notes = m_store.readNotes(name);
    // The first free name; renameat2 without replacing, so a folder made
    // there meanwhile is never written over (then the next number).
    for (int tries = 0; tries < 100; ++tries) {
        const QString archived = nextName(name);
        if (archived.isEmpty()) {
            return refuse(error, dir + QStringLiteral(": no free attempt name left"));
        }
        const QByteArray from = QFile::encodeName(dir);
        const QByteArray to = QFile::encodeName(m_store.root() + QLatin1Char('/') + archived);
        int rc = ::renameat2(AT_FDCWD, from.constData(), AT_FDCWD, to.constData(), RENAME_NOREPLACE);
        int err = rc == 0 ? 0 : errno;
        if (rc != 0 && (err == EINVAL || err == ENOSYS)) {
            // A file system without RENAME_NOREPLACE (NFS): the name is
            // claimed by mkdir, which fails when taken, and the folder then
            // renamed over that empty one.
            rc = ::mkdir(to.constData(), 0700);
            if (rc == 0) {
                rc = ::rename(from.constData(), to.constData());
                err = rc == 0 ? 0 : errno;
                if (rc != 0) {
                    ::rmdir(to.constData());
                }
            } else {
                err = errno;
            }
        }
        if (rc != 0 && (err == EEXIST || err == ENOTEMPTY)) {
            continue;
        }
        if (rc != 0) {
            return refuse(error, QStringLiteral("%1: cannot rename to %2: %3")
                                     .arg(dir, archived, QString::fromLocal8Bit(std::strerror(err))));
        }
        qCInfo(lcRunStore).noquote() << dir << "kept as" << archived;
        if (archivedName) {
            *archivedName = archived;
        }
        QString notesError;
        if (!notes.isEmpty() && !m_store.writeNotes(name, notes, &notesError)) {
            qCWarning(lcRunStore).noquote() << notesError;
        }
        return true;
    }
    return refuse(error, dir + QStringLiteral(": no free attempt name found"));
}

} // namespace trainyard
