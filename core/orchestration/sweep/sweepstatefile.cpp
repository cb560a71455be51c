#include "orchestration/sweep/sweepstatefile.h"

#include "orchestration/experiment/sweepspec.h"
#include "orchestration/runstore/jsonfile.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace trainyard {

namespace {

constexpr qint64 kMaxBytes = 4 * 1024 * 1024; // 1,000 trials take ~150 KiB

// The .sweeps folder as a link would take reads and writes elsewhere.
bool inLinkedFolder(const QString &path, QString *error)
{
    const QFileInfo folder(QFileInfo(path).absolutePath());
    if (!folder.isSymLink()) {
        return false;
    }
    if (error) {
        *error = QStringLiteral("%1 is a symbolic link; Trainyard does not follow links in the runs root")
                     .arg(folder.filePath());
    }
    return true;
}

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
    // It says which folders are the sweep's trials and which were paused:
    // only the user's own file, that nobody else can write, is believed.
    if (inLinkedFolder(path, error)) {
        return std::nullopt;
    }
    const std::optional<QJsonObject> read = readOwnJsonFile(path, kMaxBytes, error);
    if (!read) {
        return std::nullopt;
    }
    const QJsonObject &o = *read;
    auto bad = [&](const QString &jsonPath, const QString &expected) {
        *error = QStringLiteral("%1: %2: expected %3").arg(path, jsonPath, expected);
        return std::nullopt;
    };
    SweepState state;
    if (!o.value(QStringLiteral("spec_hash")).isString()) {
        return bad(QStringLiteral("spec_hash"), QStringLiteral("a string"));
    }
    state.specHash = o.value(QStringLiteral("spec_hash")).toString();
    state.paused = o.value(QStringLiteral("paused")).toBool();
    state.stopped = o.value(QStringLiteral("stopped")).toBool();
    if (!o.value(QStringLiteral("trials")).isArray()) {
        return bad(QStringLiteral("trials"), QStringLiteral("an array"));
    }
    const QJsonArray trials = o.value(QStringLiteral("trials")).toArray();
    for (qsizetype i = 0; i < trials.size(); ++i) {
        const QString at = QStringLiteral("trials[%1]").arg(i);
        const QJsonObject t = trials.at(i).toObject();
        if (!trials.at(i).isObject()) {
            return bad(at, QStringLiteral("an object"));
        }
        const QJsonValue index = t.value(QStringLiteral("index"));
        if (!index.isDouble() || index.toDouble() != double(index.toInt()) || index.toInt() < 0) {
            return bad(at + QStringLiteral(".index"), QStringLiteral("an integer ≥ 0"));
        }
        if (!t.value(QStringLiteral("run")).isString() || t.value(QStringLiteral("run")).toString().isEmpty()) {
            return bad(at + QStringLiteral(".run"), QStringLiteral("a run name"));
        }
        const QJsonValue lane = t.value(QStringLiteral("lane"));
        if (!lane.isDouble() || lane.toInt() < 0) {
            return bad(at + QStringLiteral(".lane"), QStringLiteral("an integer ≥ 0"));
        }
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
    if (inLinkedFolder(path, error)) {
        return false;
    }
    QDir().mkpath(QFileInfo(path).absolutePath());
    QJsonArray trials;
    for (const SweepState::Trial &t : state.trials) {
        QJsonObject o{
            {QStringLiteral("index"), t.index}, {QStringLiteral("run"), t.run}, {QStringLiteral("lane"), t.lane}};
        if (t.paused) {
            o.insert(QStringLiteral("paused"), true);
        }
        if (t.stopped) {
            o.insert(QStringLiteral("stopped"), true);
        }
        if (!t.reason.isEmpty()) {
            o.insert(QStringLiteral("reason"), t.reason);
        }
        trials.append(o);
    }
    QJsonObject o{{QStringLiteral("spec_hash"), state.specHash}, {QStringLiteral("trials"), trials}};
    if (state.paused) {
        o.insert(QStringLiteral("paused"), true);
    }
    if (state.stopped) {
        o.insert(QStringLiteral("stopped"), true);
    }
    // Not through a link, never over another user's file.
    return writeOwnJsonFile(path, o, error);
}

} // namespace trainyard
