#include "orchestration/slots/slotadvice.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QStandardPaths>

namespace trainyard {

SlotAdvice::SlotAdvice(const QString &path)
    : m_path(path)
{
}

QString SlotAdvice::defaultPath()
{
    // Generic rather than AppDataLocation: the desktop app and `trainyard
    // probe-slots` must share it whatever organisation name each one sets.
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
           + QStringLiteral("/trainyard/slot-probes.json");
}

bool SlotAdvice::load(QString *warning)
{
    m_entries.clear();
    QFile file(m_path);
    if (!file.exists()) {
        return true;
    }
    auto bad = [&](const QString &text) {
        m_entries.clear();
        if (warning) {
            *warning = m_path + QStringLiteral(": ") + text + QStringLiteral(" (ignored: no remembered slot probes)");
        }
        return false;
    };
    if (!file.open(QIODevice::ReadOnly)) {
        return bad(file.errorString());
    }
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &error);
    if (error.error != QJsonParseError::NoError) {
        return bad(QStringLiteral("not JSON at offset %1: %2").arg(error.offset).arg(error.errorString()));
    }
    if (!doc.isObject() || !doc.object().value(QStringLiteral("probes")).isArray()) {
        return bad(QStringLiteral("expected an object with a \"probes\" array"));
    }
    const QJsonArray probes = doc.object().value(QStringLiteral("probes")).toArray();
    QStringList skipped;
    for (qsizetype i = 0; i < probes.size(); ++i) {
        SlotProbeResult r;
        QString problem;
        if (SlotProbeResult::fromJson(probes.at(i).toObject(), &r, &problem)) {
            m_entries.append(r);
        } else {
            skipped << QStringLiteral("probes[%1].%2").arg(i).arg(problem);
        }
    }
    if (!skipped.isEmpty()) {
        if (warning) {
            *warning = m_path + QStringLiteral(": skipped ") + skipped.join(QStringLiteral("; "));
        }
        return false;
    }
    return true;
}

bool SlotAdvice::record(const SlotProbeResult &result, QString *error)
{
    load(); // keep what others wrote meanwhile; a broken file is replaced
    for (qsizetype i = 0; i < m_entries.size(); ++i) {
        if (m_entries.at(i).deviceName == result.deviceName && m_entries.at(i).model == result.model) {
            m_entries.removeAt(i);
            break;
        }
    }
    m_entries.append(result);
    QJsonArray probes;
    for (const SlotProbeResult &r : std::as_const(m_entries)) {
        probes.append(r.toJson());
    }
    const QJsonObject root{{QStringLiteral("version"), 1}, {QStringLiteral("probes"), probes}};

    if (!QDir().mkpath(QFileInfo(m_path).absolutePath())) {
        if (error) {
            *error = QFileInfo(m_path).absolutePath() + QStringLiteral(": cannot create the folder");
        }
        return false;
    }
    QSaveFile file(m_path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(root).toJson()) < 0 || !file.commit()) {
        if (error) {
            *error = m_path + QStringLiteral(": ") + file.errorString();
        }
        return false;
    }
    return true;
}

std::optional<SlotProbeResult> SlotAdvice::find(const QString &deviceName, const QString &model) const
{
    for (const SlotProbeResult &r : m_entries) {
        if (r.deviceName == deviceName && r.model == model) {
            return r;
        }
    }
    return std::nullopt;
}

QString SlotAdvice::summary(const SlotProbeResult &result)
{
    return QStringLiteral("recommended: %1 slot%2 for %3 (measured %4: %5×)")
        .arg(result.recommended)
        .arg(result.recommended == 1 ? QString() : QStringLiteral("s"))
        .arg(result.model, result.measured.toUTC().date().toString(Qt::ISODate))
        .arg(result.recommendedRatio(), 0, 'f', 1);
}

} // namespace trainyard
