#pragma once

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

class QProcess;

namespace trainyard {

/// One hyperparameter as `trainyard-worker --list-models` describes it.
struct ParamInfo
{
    QString name;
    QString type; ///< int, float, bool, string or path
    QJsonValue defaultValue;
    QJsonValue minimum; ///< Undefined when open
    QJsonValue maximum; ///< Undefined when open
    QJsonArray choices; ///< Empty when any value in range is allowed
    QString help;
};

/// A model type the worker can train.
struct ModelInfo
{
    QString type;
    QString task; ///< "kg" or "image": which data kinds fit
    QString description;
    QList<ParamInfo> params;
    QJsonObject defaults; ///< Per-section defaults, e.g. {"train": {...}, "data": {...}}
};

/// A data source kind with its keys.
struct DataKindInfo
{
    QString kind;
    QString task;
    QList<ParamInfo> params;
};

/// A published configuration the worker offers ("TransE · FB15k-237").
struct PublishedPreset
{
    QString name;
    QString source;
    QJsonObject spec; ///< Partial: the data path is the user's
};

/// Everything the worker can train and every key of a run spec it reads,
/// parsed from `trainyard-worker --list-models`.
class ModelCatalog
{
public:
    /// Parses the worker's JSON; on bad input returns an empty catalog and
    /// sets `error` to a message naming the offending key.
    static ModelCatalog fromJson(const QByteArray &json, QString *error);

    bool isEmpty() const { return m_models.isEmpty(); }
    QString workerVersion() const { return m_version; }
    const QList<ModelInfo> &models() const { return m_models; }
    const QList<DataKindInfo> &dataKinds() const { return m_dataKinds; }
    const QList<PublishedPreset> &presets() const { return m_presets; }
    /// Keys of a spec section ("train", "eval", "checkpoint", "report").
    QList<ParamInfo> section(const QString &name) const { return m_sections.value(name); }
    QStringList sectionNames() const { return m_sectionOrder; }

    const ModelInfo *model(const QString &type) const;
    const DataKindInfo *dataKind(const QString &kind) const;
    QList<DataKindInfo> dataKindsForTask(const QString &task) const;
    QStringList tasks() const;

    /// A complete run spec for `type` with every default filled in.
    QJsonObject defaultSpec(const QString &type, const QString &name) const;

private:
    QString m_version;
    QList<ModelInfo> m_models;
    QList<DataKindInfo> m_dataKinds;
    QList<PublishedPreset> m_presets;
    QHash<QString, QList<ParamInfo>> m_sections;
    QStringList m_sectionOrder;
};

/// Runs `trainyard-worker --list-models` and parses its answer.
class ModelCatalogLoader : public QObject
{
    Q_OBJECT
public:
    explicit ModelCatalogLoader(QObject *parent = nullptr);
    ~ModelCatalogLoader() override;

    /// Starts the worker; emits loaded() or failed() once.
    void load(const QString &workerPath);
    /// Blocking variant for tests and start-up; returns false with `error` set.
    static bool loadNow(const QString &workerPath, ModelCatalog *catalog, QString *error, int timeoutMs = 15000);

Q_SIGNALS:
    void loaded(const trainyard::ModelCatalog &catalog);
    void failed(const QString &message);

private:
    void onFinished();
    QProcess *m_process = nullptr;
    QString m_workerPath;
};

} // namespace trainyard

Q_DECLARE_METATYPE(trainyard::ModelCatalog)
