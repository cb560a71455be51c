#include "ui/palette/presetstore.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QStandardPaths>

namespace trainyard {

PresetStore::PresetStore(const QString &path, QObject *parent)
    : QObject(parent)
    , m_path(path)
{
    if (m_path.isEmpty()) {
        m_path = QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) + QLatin1String("/presets.json");
    }
    QString ignored;
    reload(&ignored);
}

bool PresetStore::reload(QString *error)
{
    m_presets.clear();
    QFile file(m_path);
    if (!file.exists()) {
        Q_EMIT changed();
        return true;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        *error = tr("%1: cannot read: %2").arg(m_path, file.errorString());
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isArray()) {
        *error = tr("%1: expected a JSON array of presets").arg(m_path);
        return false;
    }
    const QJsonArray array = doc.array();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QJsonObject o = array.at(i).toObject();
        Preset p;
        p.name = o.value(QLatin1String("name")).toString();
        p.spec = o.value(QLatin1String("spec")).toObject();
        p.repeat = o.value(QLatin1String("repeat")).toInt(1);
        if (p.name.isEmpty() || p.spec.isEmpty()) {
            *error = tr("%1: [%2]: a preset needs a \"name\" and a \"spec\"").arg(m_path).arg(i);
            continue;
        }
        m_presets.append(p);
    }
    Q_EMIT changed();
    return true;
}

bool PresetStore::save(const Preset &preset, QString *error)
{
    bool replaced = false;
    for (Preset &p : m_presets) {
        if (p.name == preset.name) {
            p = preset;
            replaced = true;
        }
    }
    if (!replaced) {
        m_presets.append(preset);
    }
    return write(error);
}

bool PresetStore::remove(const QString &name, QString *error)
{
    m_presets.removeIf([&](const Preset &p) { return p.name == name; });
    return write(error);
}

bool PresetStore::write(QString *error)
{
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    QJsonArray array;
    for (const Preset &p : m_presets) {
        array.append(QJsonObject{
            {QLatin1String("name"), p.name}, {QLatin1String("spec"), p.spec}, {QLatin1String("repeat"), p.repeat}});
    }
    QSaveFile file(m_path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = tr("%1: cannot write: %2").arg(m_path, file.errorString());
        return false;
    }
    file.write(QJsonDocument(array).toJson());
    if (!file.commit()) {
        *error = tr("%1: cannot write: %2").arg(m_path, file.errorString());
        return false;
    }
    Q_EMIT changed();
    return true;
}

} // namespace trainyard
