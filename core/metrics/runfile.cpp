#include "metrics/runfile.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainyard {

namespace {

QString kindOf(mode_t mode)
{
    if (S_ISFIFO(mode)) {
        return QStringLiteral("a FIFO");
    }
    if (S_ISDIR(mode)) {
        return QStringLiteral("a folder");
    }
    if (S_ISCHR(mode) || S_ISBLK(mode)) {
        return QStringLiteral("a device");
    }
    if (S_ISSOCK(mode)) {
        return QStringLiteral("a socket");
    }
    return QStringLiteral("not a plain file");
}

QString notRegular(const QString &path, const QString &kind)
{
    return QStringLiteral("%1 is not a regular file (%2); Trainyard does not follow links in run folders")
        .arg(path, kind);
}

} // namespace

bool openRegularFile(const QString &path, QFile *file, QString *error, struct stat *st)
{
    QString why;
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        if (err == ELOOP) {
            why = notRegular(path, QStringLiteral("a symbolic link"));
        } else if (err != ENOENT) {
            why = path + QStringLiteral(": ") + QString::fromLocal8Bit(std::strerror(err));
        }
        if (error) {
            *error = why;
        }
        return false;
    }
    struct stat info
    {};
    if (::fstat(fd, &info) != 0) {
        why = path + QStringLiteral(": ") + QString::fromLocal8Bit(std::strerror(errno));
    } else if (!S_ISREG(info.st_mode)) {
        why = notRegular(path, kindOf(info.st_mode));
    }
    if (!why.isEmpty()) {
        ::close(fd);
        if (error) {
            *error = why;
        }
        return false;
    }
    // O_NONBLOCK means nothing for a regular file's reads; cleared anyway so
    // the descriptor behaves as QFile expects.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (!file->open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        if (error) {
            *error = path + QStringLiteral(": ") + file->errorString();
        }
        return false;
    }
    if (st) {
        *st = info;
    }
    if (error) {
        error->clear();
    }
    return true;
}

bool readRegularFile(const QString &path, QByteArray *bytes, QString *error, qint64 max)
{
    QFile file;
    QString why;
    if (!openRegularFile(path, &file, &why)) {
        if (error) {
            *error = why.isEmpty() ? path + QStringLiteral(" does not exist") : why;
        }
        return false;
    }
    *bytes = file.read(max);
    return true;
}

} // namespace trainyard
