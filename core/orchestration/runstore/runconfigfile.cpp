#include "orchestration/runstore/runconfigfile.h"

#include "metrics/runfile.h"
#include "orchestration/experiment/programconfig.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSaveFile>

namespace trainyard::runconfigfile {

namespace {

constexpr qint64 kMaxConfigBytes = 1024 * 1024;
constexpr qint64 kMaxParamsBytes = 256 * 1024;

// The object in the run-folder file `path`; false with `error` when it is
// there but refused (not a regular file, too large, no JSON object).
bool readObject(const QString &path, qint64 limit, QJsonObject *object, bool *exists, QString *error)
{
    QFile file;
    QString why;
    *exists = false;
    if (!openRegularFile(path, &file, &why)) {
        *exists = !why.isEmpty();
        if (error) {
            *error = why;
        }
        return why.isEmpty();
    }
    *exists = true;
    if (file.size() > limit) {
        if (error) {
            *error = QStringLiteral("%1 is larger than %2 KiB").arg(path).arg(limit / 1024);
        }
        return false;
    }
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(file.read(limit + 1), &parseError);
    if (!document.isObject()) {
        if (error) {
            *error = QStringLiteral("%1 is no JSON object (%2)").arg(path, parseError.errorString());
        }
        return false;
    }
    *object = document.object();
    return true;
}

} // namespace

QString configPath(const QString &runDir)
{
    return runDir + QStringLiteral("/config.json");
}

QString paramsPath(const QString &runDir)
{
    return runDir + QStringLiteral("/params.json");
}

bool write(const QString &runDir, const QJsonObject &config, QString *error)
{
    const QString path = configPath(runDir);
    QJsonObject old;
    bool exists = false;
    QString why;
    if (!readObject(path, kMaxConfigBytes, &old, &exists, &why)) {
        if (error) {
            *error = QStringLiteral("%1; the run's config is not written over it").arg(why);
        }
        return false;
    }
    if (exists) {
        if (old == config) {
            return true; // a resume: the values its checkpoint was made with
        }
        if (error) {
            *error = QStringLiteral("%1 holds other values than the run's config (%2, not %3): the results "
                                    "and checkpoints in the folder belong to them; not written over (start the "
                                    "run afresh to keep the folder as an attempt, or put the values back)")
                         .arg(path, QString::fromUtf8(QJsonDocument(old).toJson(QJsonDocument::Compact)),
                              QString::fromUtf8(QJsonDocument(config).toJson(QJsonDocument::Compact)));
        }
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(config).toJson(QJsonDocument::Indented)) < 0
        || !file.commit()) {
        if (error) {
            *error = path + QStringLiteral(": cannot write: ") + file.errorString();
        }
        return false;
    }
    return true;
}

QJsonObject readParams(const QString &runDir, QString *error)
{
    QJsonObject object;
    bool exists = false;
    if (!readObject(paramsPath(runDir), kMaxParamsBytes, &object, &exists, error)) {
        return {};
    }
    QJsonObject out;
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        const QJsonValue v = it.value();
        if (programconfig::isConfigName(it.key())
            && (v.isDouble() || v.isBool() || v.isNull() || (v.isString() && v.toString().size() <= 10000))) {
            out.insert(it.key(), v);
        }
    }
    return out;
}

} // namespace trainyard::runconfigfile
