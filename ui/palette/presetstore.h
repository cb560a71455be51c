#pragma once

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>

namespace trainyard {

/// A named run spec the user saved from the run editor.
struct Preset
{
    QString name;
    QJsonObject spec;
    int repeat = 1;
};

/// Saved presets, kept as one JSON file (presets.json in the app's config
/// folder unless another path is given, so tests never touch the user's).
class PresetStore : public QObject
{
    Q_OBJECT
public:
    explicit PresetStore(const QString &path = QString(), QObject *parent = nullptr);

    QString path() const { return m_path; }
    const QList<Preset> &presets() const { return m_presets; }
    /// Adds or replaces the preset of that name and saves the file.
    bool save(const Preset &preset, QString *error);
    bool remove(const QString &name, QString *error);
    /// Reloads from disk; a broken file is reported, not fatal.
    bool reload(QString *error);

Q_SIGNALS:
    void changed();

private:
    bool write(QString *error);
    QString m_path;
    QList<Preset> m_presets;
};

} // namespace trainyard
