#pragma once

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace trainyard {

class Process;
struct ProcessResult;

class ModelCatalogueCache;

/// One hyperparameter as `trainyard-worker --list-models` describes it: what
/// a run spec may hold under its name.
struct ParamInfo
{
    QString name;
    QString type; ///< int, float, bool, string or path
    QJsonValue defaultValue;
    QJsonValue minimum;        ///< Undefined when open
    QJsonValue maximum;        ///< Undefined when open
    bool minExclusive = false; ///< `minimum` itself is not allowed (lr > 0)
    bool nullable = false;     ///< null is allowed ("no limit"); also when the default is null
    QJsonArray choices;        ///< Empty when any value in range is allowed
    QString help;

    /// True if `value` is of the type, in the range and among the choices.
    bool accepts(const QJsonValue &value) const;
    /// What `accepts` wants, for messages: "an integer ≥ 1 or null",
    /// "a number in (0, 1000]", "\"valid\" or \"test\"".
    QString expectation() const;
};

/// A training recipe of a model (`model.recipe`): values for the keys a spec
/// leaves out, fit for one kind of graph; "auto" lets the worker choose one
/// from the data when the run starts (docs/models.md#recipes).
struct CatalogueRecipe
{
    QString name;       ///< the kind of graph: "small", "small-dense", "large", "large-sparse"
    QString fits;       ///< what it trains with and what it was measured at
    QJsonObject values; ///< {"model": {...}, "train": {...}, "eval": {...}}
};

/// A model type the worker can train.
struct CatalogueModel
{
    QString type;
    QString task; ///< "kg" or "image": which data kinds fit
    QString description;
    QList<ParamInfo> params;
    QJsonObject defaults;           ///< Per-section defaults, e.g. {"train": {...}, "data": {...}}
    QList<CatalogueRecipe> recipes; ///< Empty: the model has no recipe key

    const ParamInfo *param(const QString &name) const;
    const CatalogueRecipe *recipe(const QString &name) const;
};

/// A data source kind with its keys.
struct DataKindInfo
{
    QString kind;
    QString task;
    QString description;
    QList<ParamInfo> params;

    const ParamInfo *param(const QString &name) const;
};

/// A published configuration the worker offers ("TransE · FB15k-237").
struct PublishedPreset
{
    QString name;
    QString source;
    QJsonObject spec; ///< Partial: the data path is the user's
};

/// The LibTorch a worker was built with (`--list-models`' "libtorch"): a
/// local cuda: lane needs one with CUDA. A worker from before the field
/// does not say (`known` false), and nothing is claimed about it.
struct WorkerLibTorch
{
    bool known = false;
    QString version; ///< "2.11.0"
    QString cuda;    ///< "12.8"; empty: built without CUDA

    /// "LibTorch 2.11.0, CUDA 12.8" or "LibTorch 1.13.1, CPU only", as `--version` says.
    QString text() const;
};

/// Everything the worker can train and every key of a run spec it reads,
/// parsed from `trainyard-worker --list-models`. The worker is the authority
/// on run-spec keys, types, ranges and data kinds; the orchestrator checks
/// experiments (validateRunSpec) and builds the run editor from this copy.
class ModelCatalogue
{
public:
    /// Parses the worker's JSON; on bad input returns an empty catalogue and
    /// sets `error` to a message naming the offending key.
    static ModelCatalogue fromJson(const QByteArray &json, QString *error);
    static ModelCatalogue fromJson(const QJsonObject &root, QString *error);

    /// The top-level keys of a run spec: "name", "model", "data" and the
    /// sections. They are the fields of the `--list-models` document (the
    /// worker's fixed interface), so they are known before any catalogue is loaded.
    static const QStringList &specKeys();
    /// The sections of a run spec described by a list of parameters:
    /// "train", "eval", "checkpoint", "report".
    static const QStringList &specSectionNames();

    bool isEmpty() const { return m_models.isEmpty(); }
    QString workerVersion() const { return m_version; }
    WorkerLibTorch libTorch() const { return m_libTorch; }
    const QList<CatalogueModel> &models() const { return m_models; }
    const QList<DataKindInfo> &dataKinds() const { return m_dataKinds; }
    const QList<PublishedPreset> &presets() const { return m_presets; }
    /// Keys of a spec section ("train", "eval", "checkpoint", "report").
    QList<ParamInfo> section(const QString &name) const { return m_sections.value(name); }
    QStringList sectionNames() const { return m_sectionOrder; }

    const CatalogueModel *model(const QString &type) const;
    const DataKindInfo *dataKind(const QString &kind) const;
    QList<DataKindInfo> dataKindsForTask(const QString &task) const;
    QStringList tasks() const;
    QStringList modelTypes() const;
    QStringList dataKindNames() const;

    /// A complete run spec for `type` with every default filled in.
    QJsonObject defaultSpec(const QString &type, const QString &name) const;
    /// The spec a new run of `type` starts from (the palette's): defaultSpec
    /// without the keys the model's recipes set, which model.recipe "auto"
    /// leaves to the worker to choose for the data.
    QJsonObject newRunSpec(const QString &type, const QString &name) const;
    /// `spec` (as spec.json holds it) with every key it leaves out filled in
    /// from this catalogue, as the worker resolves it: the model's parameters,
    /// its data kind's keys (the spec's kind, else the model's), the sections
    /// with the model's own defaults. What the spec says wins. A spec whose
    /// model this catalogue does not know comes back as it is.
    ///
    /// A model with recipes takes the recipe the spec names, or, when it
    /// leaves model.recipe "auto", `chosenRecipe` (what the worker chose for
    /// the run, RunInfo::recipe); model.recipe then says which. With "auto"
    /// and no choice known, the model's own defaults stand for the values the
    /// worker will choose (recipeOf() tells the caller).
    QJsonObject resolve(const QJsonObject &spec, const QString &chosenRecipe = QString()) const;
    /// The recipe `resolve(spec, chosenRecipe)` applies; nullptr for none.
    const CatalogueRecipe *recipeOf(const QJsonObject &spec, const QString &chosenRecipe = QString()) const;

private:
    QString m_version;
    WorkerLibTorch m_libTorch;
    QList<CatalogueModel> m_models;
    QList<DataKindInfo> m_dataKinds;
    QList<PublishedPreset> m_presets;
    QHash<QString, QList<ParamInfo>> m_sections;
    QStringList m_sectionOrder;
};

/// Gets the catalogue of a worker program: from a ModelCatalogueCache when it
/// holds a fresh copy, else by running `PROGRAM --list-models` (an argument
/// list, never a shell; within a timeout) and parsing its answer, which then
/// goes into the cache. Every failure message names the program.
class ModelCatalogueLoader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kDefaultTimeoutMs = 15000;

    /// Uses ModelCatalogueCache::shared() (the user's cache folder).
    explicit ModelCatalogueLoader(QObject *parent = nullptr);
    /// Uses `cache`, which must outlive the loader; nullptr: no cache, the
    /// worker runs every time.
    explicit ModelCatalogueLoader(ModelCatalogueCache *cache, QObject *parent = nullptr);
    ~ModelCatalogueLoader() override;

    void setTimeout(int ms) { m_timeoutMs = ms; }
    int timeout() const { return m_timeoutMs; }

    /// Emits loaded() or failed() once, always after load() has returned
    /// (also on a cache hit), so connecting afterwards is too late but
    /// connecting before is always in time.
    void load(const QString &workerPath);
    /// Blocking: the catalogue, or nullopt with `error` set.
    std::optional<ModelCatalogue> loadBlocking(const QString &workerPath, QString *error);

    /// Blocking with the shared cache, for tests and start-up; returns false
    /// with `error` set.
    static bool loadNow(const QString &workerPath, ModelCatalogue *catalogue, QString *error,
                        int timeoutMs = kDefaultTimeoutMs);

Q_SIGNALS:
    void loaded(const trainyard::ModelCatalogue &catalogue);
    void failed(const QString &message);

private:
    void onFinished(const ProcessResult &result);
    // The catalogue in the worker's answer, or nullopt with `error` set.
    std::optional<ModelCatalogue> answer(const QString &workerPath, const ProcessResult &result, QString *error);
    void finish(const std::optional<ModelCatalogue> &catalogue, const QString &error);
    // Parses the worker's answer and stores it in the cache.
    std::optional<ModelCatalogue> accept(const QString &workerPath, const QByteArray &output, QString *error);

    ModelCatalogueCache *m_cache;
    int m_timeoutMs = kDefaultTimeoutMs;
    Process *m_process = nullptr;
    QString m_workerPath;
};

} // namespace trainyard

Q_DECLARE_METATYPE(trainyard::ModelCatalogue)
