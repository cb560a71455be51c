#include "orchestration/experiment/trustlist.h"

#include "orchestration/experiment/experiment.h"
#include "orchestration/logcategories.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QSaveFile>
#include <QStandardPaths>

namespace trainyard {

namespace {

constexpr qsizetype kMaxEntries = 2000;

// The list's entries; false (with `error`) when the file exists but is not
// a list this code wrote: it is then never overwritten.
bool readEntries(const QString &path, QJsonArray *entries, QString *error = nullptr)
{
    QFile file(path);
    if (!file.exists()) {
        return true;
    }
    if (!file.open(QIODevice::ReadOnly) || file.size() > 16 * 1024 * 1024) {
        if (error) {
            *error = path + QStringLiteral(": cannot read the trust list");
        }
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.object().value(QStringLiteral("trusted")).isArray()) {
        if (error) {
            *error = path + QStringLiteral(": not a trust list (left as it is; remove it to start a new one)");
        }
        return false;
    }
    *entries = doc.object().value(QStringLiteral("trusted")).toArray();
    return true;
}

// Writes `entries` as the list (QSaveFile: all or nothing).
bool writeEntries(const QString &path, const QJsonArray &entries, QString *error)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile file(path);
    const QJsonObject top{{QStringLiteral("version"), 1}, {QStringLiteral("trusted"), entries}};
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(top).toJson()) < 0 || !file.commit()) {
        if (error) {
            *error = path + QStringLiteral(": cannot write: ") + file.errorString();
        }
        return false;
    }
    return true;
}

} // namespace

TrustList::TrustList(QString path)
    : m_path(std::move(path))
{
}

QString TrustList::defaultPath()
{
    QString base = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation);
    if (base.isEmpty()) {
        base = QDir::homePath() + QStringLiteral("/.config");
    }
    return base + QStringLiteral("/trainyard/trusted-experiments.json");
}

bool TrustList::isTrusted(const QByteArray &sha256Hex) const
{
    if (sha256Hex.isEmpty()) {
        return false;
    }
    QJsonArray entries;
    readEntries(m_path, &entries);
    for (const QJsonValue &entry : std::as_const(entries)) {
        if (entry.toObject().value(QStringLiteral("sha256")).toString().toLatin1() == sha256Hex) {
            return true;
        }
    }
    return false;
}

bool TrustList::trust(const QByteArray &sha256Hex, const QString &path, const QList<ReachedFile> &reached,
                      QString *error)
{
    QJsonArray entries;
    if (!readEntries(m_path, &entries, error)) {
        return false;
    }
    QJsonArray files;
    for (const ReachedFile &file : reached) {
        files.append(QJsonObject{{QStringLiteral("path"), file.path},
                                 {QStringLiteral("sha256"), QString::fromLatin1(file.sha256)}});
    }
    // One version per file: trusting (or saving) a new one forgets the old,
    // so autosaves do not grow the list without end.
    const QString absolute = QFileInfo(path).absoluteFilePath();
    for (qsizetype i = entries.size() - 1; i >= 0; --i) {
        const QJsonObject entry = entries.at(i).toObject();
        if (entry.value(QStringLiteral("sha256")).toString().toLatin1() == sha256Hex
            && entry.value(QStringLiteral("files")).toArray() == files) {
            return true; // trusted already, as it is
        }
        if (entry.value(QStringLiteral("path")).toString() == absolute) {
            entries.removeAt(i);
        }
    }
    while (entries.size() >= kMaxEntries) {
        entries.removeFirst();
    }
    QJsonObject entry{{QStringLiteral("sha256"), QString::fromLatin1(sha256Hex)},
                      {QStringLiteral("path"), absolute},
                      {QStringLiteral("trusted_at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)}};
    if (!files.isEmpty()) {
        entry.insert(QStringLiteral("files"), files);
    }
    entries.append(entry);
    if (!writeEntries(m_path, entries, error)) {
        return false;
    }
    qCInfo(lcExperiment).noquote() << "trusted" << path << "(sha256" << sha256Hex.left(12) << "…," << files.size()
                                   << "files it points at)";
    return true;
}

bool TrustList::trust(const Experiment &experiment, QString *error)
{
    return trust(experiment.contentHash, experiment.sourcePath, reachedFiles(experiment), error);
}

bool TrustList::isTrusted(const Experiment &experiment, QString *why) const
{
    if (why) {
        why->clear();
    }
    if (experiment.contentHash.isEmpty()) {
        return false;
    }
    QString error;
    const QList<Entry> all = entries(&error);
    const Entry *trusted = nullptr;
    for (const Entry &entry : all) {
        if (entry.sha256 == experiment.contentHash) {
            trusted = &entry;
        }
    }
    if (!trusted) {
        return false;
    }
    QHash<QString, QByteArray> before;
    for (const ReachedFile &file : trusted->files) {
        before.insert(file.path, file.sha256);
    }
    const QString since = QStringLiteral("since you trusted %1 (%2)")
                              .arg(homeRelative(trusted->path),
                                   trusted->trustedAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    const QList<ReachedFile> now = reachedFiles(experiment);
    for (const ReachedFile &file : now) {
        const auto was = before.constFind(file.path);
        if (was != before.constEnd() && *was == file.sha256) {
            continue;
        }
        if (why) {
            const QString change = was == before.constEnd()              ? QStringLiteral("is new")
                                   : file.sha256 == ReachedFile::kAbsent ? QStringLiteral("was removed")
                                                                         : QStringLiteral("changed");
            *why = QStringLiteral("%1 (%2) %3 %4").arg(homeRelative(file.path), file.what, change, since);
        }
        return false;
    }
    for (const ReachedFile &file : now) {
        before.remove(file.path);
    }
    if (!before.isEmpty()) {
        // An Include pattern that matched it no longer does.
        if (why) {
            *why = QStringLiteral("%1 (a file it pointed at) is no longer read %2")
                       .arg(homeRelative(before.constBegin().key()), since);
        }
        return false;
    }
    return true;
}

QString TrustList::coverage(const Experiment &experiment)
{
    QStringList files;
    for (const ReachedFile &file : reachedFiles(experiment)) {
        files << QStringLiteral("%1 (%2)").arg(homeRelative(file.path), file.what);
    }
    QString text = files.isEmpty()
                       ? QStringLiteral("Trust covers this version of the file.")
                       : QStringLiteral("Trust covers this version of the file and of the files it points at:\n  %1")
                             .arg(files.join(QStringLiteral("\n  ")));
    return text
           + QStringLiteral("\nIt does not cover what those commands start: a program's script and what it imports, "
                            "the programs an ssh config names (ProxyCommand, PKCS11Provider), a host's worker and "
                            "Python there, ~/.ssh/config; they run as they are when started.");
}

QList<TrustList::Entry> TrustList::entries(QString *error) const
{
    QJsonArray entries;
    if (!readEntries(m_path, &entries, error)) {
        return {};
    }
    QList<Entry> out;
    for (const QJsonValue &value : std::as_const(entries)) {
        const QJsonObject o = value.toObject();
        QList<ReachedFile> files;
        for (const QJsonValue &file : o.value(QStringLiteral("files")).toArray()) {
            files.append({file.toObject().value(QStringLiteral("path")).toString(), QString(),
                          file.toObject().value(QStringLiteral("sha256")).toString().toLatin1()});
        }
        out.append({o.value(QStringLiteral("sha256")).toString().toLatin1(), o.value(QStringLiteral("path")).toString(),
                    QDateTime::fromString(o.value(QStringLiteral("trusted_at")).toString(), Qt::ISODate), files});
    }
    return out;
}

bool TrustList::revoke(const QString &path, int *removed, QString *error)
{
    *removed = 0;
    QJsonArray entries;
    if (!readEntries(m_path, &entries, error)) {
        return false;
    }
    const QString absolute = QFileInfo(path).absoluteFilePath();
    for (qsizetype i = entries.size() - 1; i >= 0; --i) {
        if (entries.at(i).toObject().value(QStringLiteral("path")).toString() == absolute) {
            entries.removeAt(i);
            ++*removed;
        }
    }
    if (*removed == 0) {
        return true;
    }
    qCInfo(lcExperiment).noquote() << "no longer trusted:" << absolute;
    return writeEntries(m_path, entries, error);
}

QString TrustList::refusal(const Experiment &experiment) const
{
    const QStringList commands = experiment.commandLines();
    QString why;
    if (commands.isEmpty() || isTrusted(experiment, &why)) {
        return {};
    }
    const QString file = experiment.sourcePath.isEmpty() ? experiment.name : experiment.sourcePath;
    const QString head = why.isEmpty()
                             ? QStringLiteral("%1 runs commands and is not trusted (this version of the file was never "
                                              "allowed to run commands)")
                                   .arg(file)
                             : QStringLiteral("%1 runs commands and is not trusted now: %2").arg(file, why);
    return QStringLiteral("%1; it would run:\n  %2\n%3")
        .arg(head, commands.join(QStringLiteral("\n  ")), coverage(experiment));
}

bool saveOwnExperiment(const Experiment &experiment, const QString &path, QString *error)
{
    QByteArray hash;
    if (!experiment.save(path, error, &hash)) {
        return false;
    }
    return experiment.commandLines().isEmpty() || TrustList().trust(hash, path, reachedFiles(experiment), error);
}

} // namespace trainyard
