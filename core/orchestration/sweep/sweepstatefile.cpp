#include "sweep/sweepstatefile.h"

#include "metrics/runfile.h"
#include "sweep/sweepspec.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <unistd.h>

namespace trainyard {

namespace {

constexpr qint64 kMaxBytes = 4 * 1024 * 1024; // 1,000 trials take ~150 KiB

} // namespace

QString SweepStateFile::path(const QString &runsRoot, const QString &sweep)
{
    return QDir(runsRoot).filePath(QStringLiteral(".sweeps/%1.json").arg(sweep));
}

QString SweepStateFile::specHash(const SweepSpec &spec)
{
    const QByteArray bytes = QJsonDocument(spec.toJson()).toJson(QJsonDocument::Compact);
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

std::optional<SweepState> SweepStateFile::read(const QString &path, QString *error)
{
    error->clear();
    QFile file;
    struct stat st
    {};
    if (!openRegularFile(path, &file, error, &st))
        return std::nullopt;
    if (st.st_uid != ::geteuid()) {
        *error = QStringLiteral("%1 is owned by another user (uid %2)").arg(path).arg(st.st_uid);
        return std::nullopt;
    }
    if (st.st_size > kMaxBytes) {
        *error = QStringLiteral("%1 is %2 bytes, more than a sweep's state can be (%3)")
                     .arg(path)
                     .arg(qint64(st.st_size))
                     .arg(kMaxBytes);
        return std::nullopt;
    }
    QJsonParseError parse{};
    const QJsonDocument doc = QJsonDocument::fromJson(file.read(kMaxBytes + 1), &parse);
    if (parse.error != QJsonParseError::NoError || !doc.isObject()) {
        *error = QStringLiteral("%1: not a JSON object (%2 at byte %3)")
                     .arg(path, parse.error != QJsonParseError::NoError ? parse.errorString()
                                                                        : QStringLiteral("another value"))
                     .arg(parse.offset);
        return std::nullopt;
    }
    const QJsonObject o = doc.object();
    auto bad = [&](const QString &jsonPath, const QString &expected) {
        *error = QStringLiteral("%1: %2: expected %3").arg(path, jsonPath, expected);
        return std::nullopt;
    };
    SweepState state;
    if (!o.value(QStringLiteral("spec_hash")).isString())
        return bad(QStringLiteral("spec_hash"), QStringLiteral("a string"));
    state.specHash = o.value(QStringLiteral("spec_hash")).toString();
    state.paused = o.value(QStringLiteral("paused")).toBool();
    state.stopped = o.value(QStringLiteral("stopped")).toBool();
    if (!o.value(QStringLiteral("trials")).isArray())
        return bad(QStringLiteral("trials"), QStringLiteral("an array"));
    const QJsonArray trials = o.value(QStringLiteral("trials")).toArray();
    for (qsizetype i = 0; i < trials.size(); ++i) {
        const QString at = QStringLiteral("trials[%1]").arg(i);
        const QJsonObject t = trials.at(i).toObject();
        if (!trials.at(i).isObject())
            return bad(at, QStringLiteral("an object"));
        const QJsonValue index = t.value(QStringLiteral("index"));
        if (!index.isDouble() || index.toDouble() != double(index.toInt()) || index.toInt() < 0)
            return bad(at + QStringLiteral(".index"), QStringLiteral("an integer ≥ 0"));
        if (!t.value(QStringLiteral("run")).isString() || t.value(QStringLiteral("run")).toString().isEmpty())
            return bad(at + QStringLiteral(".run"), QStringLiteral("a run name"));
        const QJsonValue lane = t.value(QStringLiteral("lane"));
        if (!lane.isDouble() || lane.toInt() < 0)
            return bad(at + QStringLiteral(".lane"), QStringLiteral("an integer ≥ 0"));
        SweepState::Trial trial;
        trial.index = index.toInt();
        trial.run = t.value(QStringLiteral("run")).toString();
        trial.lane = lane.toInt();
        trial.paused = t.value(QStringLiteral("paused")).toBool();
        trial.stopped = t.value(QStringLiteral("stopped")).toBool();
        trial.reason = t.value(QStringLiteral("reason")).toString();
        state.trials << trial;
    }
    return state;
}

bool SweepStateFile::write(const QString &path, const SweepState &state, QString *error)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QJsonArray trials;
    for (const SweepState::Trial &t : state.trials) {
        QJsonObject o{
            {QStringLiteral("index"), t.index}, {QStringLiteral("run"), t.run}, {QStringLiteral("lane"), t.lane}};
        if (t.paused)
            o.insert(QStringLiteral("paused"), true);
        if (t.stopped)
            o.insert(QStringLiteral("stopped"), true);
        if (!t.reason.isEmpty())
            o.insert(QStringLiteral("reason"), t.reason);
        trials.append(o);
    }
    QJsonObject o{{QStringLiteral("spec_hash"), state.specHash}, {QStringLiteral("trials"), trials}};
    if (state.paused)
        o.insert(QStringLiteral("paused"), true);
    if (state.stopped)
        o.insert(QStringLiteral("stopped"), true);
    // QSaveFile writes beside it and renames: a link put there is replaced, never followed.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(o).toJson()) < 0 || !file.commit()) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace trainyard
