#include "orchestration/remote/remotemirror.h"

#include "orchestration/runstore/runstore.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainyard {

namespace {

// The size of a regular file at `path` (a link is not followed); 0 when absent.
qint64 sizeOf(const QString &path)
{
    struct stat st
    {};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0 || !S_ISREG(st.st_mode)) {
        return 0;
    }
    return st.st_size;
}

} // namespace

RemoteMirror::RemoteMirror(const QString &localDir)
    : m_dir(localDir)
    , m_metrics(sizeOf(localDir + QLatin1Char('/') + fileName(File::Metrics)))
    , m_log(sizeOf(localDir + QLatin1Char('/') + fileName(File::Log)))
{
}

QString RemoteMirror::fileName(File file)
{
    return file == File::Metrics ? QStringLiteral("metrics.jsonl") : QStringLiteral("worker.log");
}

bool RemoteMirror::apply(File file, qint64 remoteSize, const QByteArray &bytes, QString *error)
{
    if (m_dir.isEmpty() || remoteSize < 0) {
        return true; // nothing there yet
    }
    const QString path = m_dir + QLatin1Char('/') + fileName(file);
    const bool cut = remoteSize < offset(file);
    if (cut) {
        // Made again on the host (another run took its folder there): the
        // copy held here is history, kept aside as NAME.before-cut-N (link()
        // never replaces one), and the mirror follows the new file from its start.
        const QByteArray from = QFile::encodeName(path);
        for (int n = 1; n < 1000; ++n) {
            const QByteArray aside = QFile::encodeName(QStringLiteral("%1.before-cut-%2").arg(path).arg(n));
            if (::link(from.constData(), aside.constData()) == 0) {
                ::unlink(from.constData());
                break;
            }
            if (errno == ENOENT) {
                break; // no copy here yet
            }
            if (errno != EEXIST) {
                if (error) {
                    *error = QStringLiteral("%1: shorter on the host, and the copy here cannot be kept aside: %2")
                                 .arg(path, QString::fromLocal8Bit(std::strerror(errno)));
                }
                return false;
            }
        }
        offsetRef(file) = 0;
        return true; // what came was read past the new file's end: asked again from 0
    }
    if (bytes.isEmpty()) {
        return true;
    }
    const int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_APPEND;
    const int fd = ::open(QFile::encodeName(path).constData(), flags, 0644);
    const auto fail = [&](const QString &what) {
        if (error) {
            *error = QStringLiteral("%1: %2").arg(path, what);
        }
        if (fd >= 0) {
            ::close(fd);
        }
        return false;
    };
    if (fd < 0) {
        return fail(errno == ELOOP ? QStringLiteral("is a link; Trainyard does not follow links in run folders")
                                   : QString::fromLocal8Bit(std::strerror(errno)));
    }
    struct stat st
    {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        return fail(QStringLiteral("is not a regular file"));
    }
    const char *data = bytes.constData();
    qint64 left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, data, size_t(left));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return fail(QString::fromLocal8Bit(std::strerror(errno)));
        }
        data += n;
        left -= n;
        offsetRef(file) += n;
    }
    ::close(fd);
    return true;
}

bool RemoteMirror::writeCheckpoints(const QString &host, const QString &remoteDir, const QStringList &lines,
                                    QString *error) const
{
    QJsonArray files;
    for (const QString &line : lines) {
        const QStringList w = line.split(QLatin1Char(' '));
        if (w.size() < 3) {
            continue;
        }
        // The name may hold spaces: size and time are the last two words.
        files.append(QJsonObject{{QStringLiteral("name"), w.mid(0, w.size() - 2).join(QLatin1Char(' '))},
                                 {QStringLiteral("size"), w.at(w.size() - 2).toLongLong()},
                                 {QStringLiteral("mtime"), w.last().toLongLong()}});
    }
    const QString path = m_dir + QLatin1Char('/') + RunStore::remoteCheckpointsFileName();
    if (files.isEmpty()) {
        QFile::remove(path);
        return true;
    }
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly)) {
        if (error) {
            *error = QStringLiteral("%1: %2").arg(path, out.errorString());
        }
        return false;
    }
    const QJsonObject o{{QStringLiteral("host"), host},
                        {QStringLiteral("dir"), remoteDir + QStringLiteral("/checkpoints")},
                        {QStringLiteral("files"), files}};
    out.write(QJsonDocument(o).toJson());
    if (out.commit()) {
        return true;
    }
    if (error) {
        *error = QStringLiteral("%1: %2").arg(path, out.errorString());
    }
    return false;
}

} // namespace trainyard
