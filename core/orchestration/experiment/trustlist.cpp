#include "experiment/trustlist.h"

#include "experiment/experiment.h"
#include "logcategories.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
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
    if (!file.exists())
        return true;
    if (!file.open(QIODevice::ReadOnly) || file.size() > 16 * 1024 * 1024) {
        if (error)
            *error = path + QStringLiteral(": cannot read the trust list");
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.object().value(QStringLiteral("trusted")).isArray()) {
        if (error)
            *error = path + QStringLiteral(": not a trust list (left as it is; remove it to start a new one)");
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
        if (error)
            *error = path + QStringLiteral(": cannot write: ") + file.errorString();
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
    if (base.isEmpty())
        base = QDir::homePath() + QStringLiteral("/.config");
    return base + QStringLiteral("/trainyard/trusted-experiments.json");
}

bool TrustList::isTrusted(const QByteArray &sha256Hex) const
{
    if (sha256Hex.isEmpty())
        return false;
    QJsonArray entries;
    readEntries(m_path, &entries);
    for (const QJsonValue &entry : std::as_const(entries)) {
        if (entry.toObject().value(QStringLiteral("sha256")).toString().toLatin1() == sha256Hex)
            return true;
    }
    return false;
}

bool TrustList::trust(const QByteArray &sha256Hex, const QString &path, QString *error)
{
    if (isTrusted(sha256Hex))
        return true;
    QJsonArray entries;
    if (!readEntries(m_path, &entries, error))
        return false;
    // One version per file: trusting (or saving) a new one forgets the old,
    // so autosaves do not grow the list without end.
    const QString absolute = QFileInfo(path).absoluteFilePath();
    for (qsizetype i = entries.size() - 1; i >= 0; --i) {
        if (entries.at(i).toObject().value(QStringLiteral("path")).toString() == absolute)
            entries.removeAt(i);
    }
    while (entries.size() >= kMaxEntries)
        entries.removeFirst();
    entries.append(QJsonObject{{QStringLiteral("sha256"), QString::fromLatin1(sha256Hex)},
                               {QStringLiteral("path"), absolute},
                               {QStringLiteral("trusted_at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)}});
    if (!writeEntries(m_path, entries, error))
        return false;
    qCInfo(lcExperiment).noquote() << "trusted" << path << "(sha256" << sha256Hex.left(12) << "…)";
    return true;
}

QList<TrustList::Entry> TrustList::entries(QString *error) const
{
    QJsonArray entries;
    if (!readEntries(m_path, &entries, error))
        return {};
    QList<Entry> out;
    for (const QJsonValue &value : std::as_const(entries)) {
        const QJsonObject o = value.toObject();
        out.append({o.value(QStringLiteral("sha256")).toString().toLatin1(), o.value(QStringLiteral("path")).toString(),
                    QDateTime::fromString(o.value(QStringLiteral("trusted_at")).toString(), Qt::ISODate)});
    }
    return out;
}

bool TrustList::revoke(const QString &path, int *removed, QString *error)
{
    *removed = 0;
    QJsonArray entries;
    if (!readEntries(m_path, &entries, error))
        return false;
    const QString absolute = QFileInfo(path).absoluteFilePath();
    for (qsizetype i = entries.size() - 1; i >= 0; --i) {
        if (entries.at(i).toObject().value(QStringLiteral("path")).toString() == absolute) {
            entries.removeAt(i);
            ++*removed;
        }
    }
    if (*removed == 0)
        return true;
    qCInfo(lcExperiment).noquote() << "no longer trusted:" << absolute;
    return writeEntries(m_path, entries, error);
}

QString TrustList::refusal(const Experiment &experiment) const
{
    const QStringList commands = experiment.commandLines();
    if (commands.isEmpty() || isTrusted(experiment.contentHash))
        return {};
    const QString file = experiment.sourcePath.isEmpty() ? experiment.name : experiment.sourcePath;
    return QStringLiteral("%1 runs commands and is not trusted (this version of the file was never allowed to "
                          "run commands); it would run:\n  %2")
        .arg(file, commands.join(QStringLiteral("\n  ")));
}

bool saveOwnExperiment(const Experiment &experiment, const QString &path, QString *error)
{
    QByteArray hash;
    if (!experiment.save(path, error, &hash))
        return false;
    return experiment.commandLines().isEmpty() || TrustList().trust(hash, path, error);
}

} // namespace trainyard
