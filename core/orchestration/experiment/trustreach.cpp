#include "orchestration/experiment/trustreach.h"

#include "orchestration/experiment/experiment.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QSet>

#include <cerrno>

#include <fcntl.h>
#include <glob.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainyard {

const QByteArray ReachedFile::kAbsent = QByteArrayLiteral("absent");
const QByteArray ReachedFile::kNotRegular = QByteArrayLiteral("not a regular file");

namespace {

constexpr int kMaxIncludeDepth = 16; // ssh's READCONF_MAX_DEPTH
constexpr qint64 kMaxConfigBytes = 4 * 1024 * 1024;

// ssh's home folder: the password database's, not $HOME.
QString sshHome()
{
    if (const passwd *pw = getpwuid(getuid()); pw && pw->pw_dir) {
        return QString::fromLocal8Bit(pw->pw_dir);
    }
    return QDir::homePath();
}

// The words of an ssh_config line after its keyword, as ssh splits them:
// whitespace apart, "double quotes" kept together, a word starting with '#'
// ends the line.
QStringList configWords(const QString &text)
{
    QStringList words;
    QString word;
    bool quoted = false, inWord = false;
    for (const QChar c : text) {
        if (quoted) {
            if (c == QLatin1Char('"')) {
                quoted = false;
            } else {
                word += c;
            }
        } else if (c == QLatin1Char('"')) {
            quoted = inWord = true;
        } else if (c.isSpace()) {
            if (inWord) {
                words << word;
            }
            word.clear();
            inWord = false;
        } else if (c == QLatin1Char('#') && !inWord) {
            return words;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord) {
        words << word;
    }
    return words;
}

// The Include patterns of a config's text.
QStringList includePatterns(const QByteArray &bytes)
{
    QStringList patterns;
    for (const QByteArray &raw : bytes.split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        qsizetype end = 0;
        while (end < line.size() && !line.at(end).isSpace() && line.at(end) != QLatin1Char('=')) {
            ++end;
        }
        if (line.left(end).compare(QLatin1String("include"), Qt::CaseInsensitive) != 0) {
            continue;
        }
        QString rest = line.mid(end).trimmed();
        if (rest.startsWith(QLatin1Char('='))) {
            rest = rest.mid(1);
        }
        patterns << configWords(rest);
    }
    return patterns;
}

// The files an Include pattern names, as ssh globs it (a literal name
// that does not exist is kept: creating it later changes what ssh reads).
QStringList includedFiles(QString pattern, const QString &home)
{
    if (pattern == QLatin1String("~") || pattern.startsWith(QLatin1String("~/"))) {
        pattern = home + pattern.mid(1);
    } else if (!pattern.startsWith(QLatin1Char('/')) && !pattern.startsWith(QLatin1Char('~'))) {
        pattern = home + QStringLiteral("/.ssh/") + pattern;
    }
    glob_t found{};
    const QByteArray encoded = QFile::encodeName(pattern);
    QStringList files;
    if (glob(encoded.constData(), GLOB_TILDE, nullptr, &found) == 0) {
        for (size_t i = 0; i < found.gl_pathc; ++i) {
            files << QFile::decodeName(found.gl_pathv[i]);
        }
    } else {
        files << pattern; // no match: a name that may appear later
    }
    globfree(&found);
    return files;
}

void addConfig(const QString &path, const QString &what, const QString &home, int depth, QSet<QString> *seen,
               QList<ReachedFile> *out)
{
    if (seen->contains(path)) {
        return;
    }
    seen->insert(path);
    // Hashed and parsed from the same read: what was hashed is what was searched for Includes.
    QByteArray bytes;
    const QByteArray hash = hashReachedFile(path, &bytes);
    out->append({path, what, hash});
    if (depth >= kMaxIncludeDepth) {
        return;
    }
    const QString by = QStringLiteral("included by %1").arg(homeRelative(path));
    for (const QString &pattern : includePatterns(bytes)) {
        for (const QString &included : includedFiles(pattern, home)) {
            addConfig(included, by, home, depth + 1, seen, out);
        }
    }
}

} // namespace

QByteArray hashReachedFile(const QString &path, QByteArray *bytes)
{
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        return errno == ENOENT || errno == ENOTDIR ? ReachedFile::kAbsent : ReachedFile::kNotRegular;
    }
    struct stat st
    {};
    QFile file;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)
        || !file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return ReachedFile::kNotRegular;
    }
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (bytes) {
        *bytes = file.read(kMaxConfigBytes);
        hash.addData(*bytes);
    }
    hash.addData(&file); // the rest
    return hash.result().toHex();
}

QList<ReachedFile> sshConfigFiles(const QString &config, const QString &what)
{
    QList<ReachedFile> out;
    QSet<QString> seen;
    addConfig(config, what, sshHome(), 0, &seen, &out);
    return out;
}

QList<ReachedFile> reachedFiles(const Experiment &experiment)
{
    QList<ReachedFile> out;
    QSet<QString> seen;
    const QString home = sshHome();
    const auto config = [&](const QString &path, const QString &what) {
        if (!path.isEmpty()) {
            addConfig(path, what, home, 0, &seen, &out);
        }
    };
    for (const ExperimentCluster &cluster : experiment.clusters) {
        if (cluster.reach == QLatin1String("ssh")) {
            config(cluster.sshConfig, QStringLiteral("cluster %1's ssh_config").arg(cluster.name));
        } else if (!cluster.worker.isEmpty() && !seen.contains(cluster.worker)) {
            // A local cluster's worker is a file of this filesystem (its
            // runs root is shared): every job execs it.
            seen.insert(cluster.worker);
            out.append({cluster.worker, QStringLiteral("cluster %1's worker").arg(cluster.name),
                        hashReachedFile(cluster.worker)});
        }
    }
    for (const ExperimentHost &host : experiment.hosts) {
        config(host.ssh.sshConfig, QStringLiteral("host %1's ssh_config").arg(host.name));
    }
    return out;
}

QString homeRelative(const QString &path)
{
    const QString home = QDir::homePath();
    if (!home.isEmpty() && home != QLatin1String("/") && path.startsWith(home + QLatin1Char('/'))) {
        return QLatin1Char('~') + path.mid(home.size());
    }
    return path;
}

} // namespace trainyard
