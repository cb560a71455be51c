#include "orchestration/catalogue/modelcatalogue.h"

#include "orchestration/catalogue/modelcataloguecache.h"
#include "orchestration/logcategories.h"
#include "orchestration/process/processrunner.h"
#include "orchestration/runspec/runspecview.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace trainyard {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("trainyard::ModelCatalogue", text);
}

bool isInteger(const QJsonValue &v)
{
    if (!v.isDouble()) {
        return false;
    }
    const double d = v.toDouble();
    return std::floor(d) == d && std::fabs(d) <= 9.0e15;
}

// A bound or choice as a message shows it: integers without a fraction,
// strings quoted as in JSON.
QString shown(const QJsonValue &v)
{
    if (v.isString()) {
        return QLatin1Char('"') + v.toString() + QLatin1Char('"');
    }
    if (v.isBool()) {
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    }
    if (v.isNull()) {
        return QStringLiteral("null");
    }
    const double d = v.toDouble();
    if (std::floor(d) == d && std::fabs(d) < 1e15) {
        return QString::number(static_cast<qint64>(d));
    }
    return QString::number(d, 'g', 10);
}

// "a", "a or b", "a, b or c".
QString alternatives(const QStringList &items)
{
    if (items.size() <= 1) {
        return items.value(0);
    }
    return items.mid(0, items.size() - 1).join(QStringLiteral(", ")) + QStringLiteral(" or ") + items.constLast();
}

// "PROGRAM --list-models exited with status 3: what it said on stderr".
QString exitMessage(const QString &program, int code, const QByteArray &standardError)
{
    const QString said = QString::fromUtf8(standardError).trimmed();
    const QString text = tr("%1 --list-models exited with status %2").arg(program).arg(code);
    return said.isEmpty() ? text : text + QStringLiteral(": ") + said;
}

// Throws nothing: every parse step returns false with a message naming the path.
bool parseParams(const QJsonValue &value, const QString &path, QList<ParamInfo> *out, QString *error)
{
    if (value.isUndefined()) {
        return true;
    }
    if (!value.isArray()) {
        *error = tr("%1: expected an array of parameters").arg(path);
        return false;
    }
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString where = QStringLiteral("%1[%2]").arg(path).arg(i);
        const QJsonObject o = array.at(i).toObject();
        ParamInfo p;
        p.name = o.value(QLatin1String("name")).toString();
        p.type = o.value(QLatin1String("type")).toString();
        if (p.name.isEmpty()) {
            *error = tr("%1.name: expected a non-empty string").arg(where);
            return false;
        }
        static const QStringList types = {QStringLiteral("int"), QStringLiteral("float"), QStringLiteral("bool"),
                                          QStringLiteral("string"), QStringLiteral("path")};
        if (!types.contains(p.type)) {
            *error = tr("%1.type: expected one of int, float, bool, string, path, got \"%2\"").arg(where, p.type);
            return false;
        }
        p.defaultValue = o.value(QLatin1String("default"));
        p.minimum = o.value(QLatin1String("min"));
        p.maximum = o.value(QLatin1String("max"));
        p.minExclusive = o.value(QLatin1String("min_exclusive")).toBool();
        // A null default is "unset", so null must be acceptable even where
        // an older worker does not say "nullable".
        p.nullable = o.value(QLatin1String("nullable")).toBool() || p.defaultValue.isNull();
        p.choices = o.value(QLatin1String("choices")).toArray();
        p.help = o.value(QLatin1String("help")).toString();
        out->append(p);
    }
    return true;
}

const ParamInfo *findParam(const QList<ParamInfo> &params, const QString &name)
{
    for (const ParamInfo &p : params) {
        if (p.name == name) {
            return &p;
        }
    }
    return nullptr;
}

} // namespace

bool ParamInfo::accepts(const QJsonValue &value) const
{
    if (value.isNull()) {
        return nullable;
    }
    if (type == QLatin1String("int") || type == QLatin1String("float")) {
        if (type == QLatin1String("int") ? !isInteger(value) : !value.isDouble()) {
            return false;
        }
        const double d = value.toDouble();
        if (!std::isfinite(d)) {
            return false;
        }
        if (minimum.isDouble() && (minExclusive ? d <= minimum.toDouble() : d < minimum.toDouble())) {
            return false;
        }
        if (maximum.isDouble() && d > maximum.toDouble()) {
            return false;
        }
    } else if (type == QLatin1String("bool")) {
        if (!value.isBool()) {
            return false;
        }
    } else if (!value.isString()) { // string, path
        return false;
    }
    if (choices.isEmpty()) {
        return true;
    }
    for (const QJsonValue &c : choices) {
        // 1 and 1.0 are one JSON number for Qt.
        if (c == value || (c.isDouble() && value.isDouble() && c.toDouble() == value.toDouble())) {
            return true;
        }
    }
    return false;
}

QString ParamInfo::expectation() const
{
    if (!choices.isEmpty()) {
        QStringList items;
        for (const QJsonValue &c : choices) {
            items << shown(c);
        }
        if (nullable) {
            items << QStringLiteral("null");
        }
        return alternatives(items);
    }
    QString text;
    const bool hasMin = minimum.isDouble();
    const bool hasMax = maximum.isDouble();
    if (type == QLatin1String("int")) {
        if (hasMin && hasMax) {
            text = QStringLiteral("an integer from %1 to %2").arg(shown(minimum), shown(maximum));
        } else if (hasMin) {
            text = QStringLiteral("an integer ≥ %1").arg(shown(minimum));
        } else if (hasMax) {
            text = QStringLiteral("an integer ≤ %1").arg(shown(maximum));
        } else {
            text = QStringLiteral("an integer");
        }
    } else if (type == QLatin1String("float")) {
        if (hasMin && hasMax) {
            text = QStringLiteral("a number in %1%2, %3]")
                       .arg(minExclusive ? QLatin1Char('(') : QLatin1Char('['))
                       .arg(shown(minimum), shown(maximum));
        } else if (hasMin) {
            text = QStringLiteral("a number %1 %2")
                       .arg(minExclusive ? QStringLiteral(">") : QStringLiteral("≥"), shown(minimum));
        } else if (hasMax) {
            text = QStringLiteral("a number ≤ %1").arg(shown(maximum));
        } else {
            text = QStringLiteral("a number");
        }
    } else if (type == QLatin1String("bool")) {
        text = QStringLiteral("true or false");
    } else if (type == QLatin1String("path")) {
        text = QStringLiteral("a path");
    } else {
        text = QStringLiteral("a string");
    }
    return nullable ? text + QStringLiteral(" or null") : text;
}

const ParamInfo *CatalogueModel::param(const QString &name) const
{
    return findParam(params, name);
}

const ParamInfo *DataKindInfo::param(const QString &name) const
{
    return findParam(params, name);
}

const QStringList &ModelCatalogue::specSectionNames()
{
    static const QStringList names = {QStringLiteral("train"), QStringLiteral("eval"), QStringLiteral("checkpoint"),
                                      QStringLiteral("report")};
    return names;
}

const QStringList &ModelCatalogue::specKeys()
{
    static const QStringList keys =
        QStringList{QStringLiteral("name"), QStringLiteral("model"), QStringLiteral("data")} + specSectionNames();
    return keys;
}

QString WorkerLibTorch::text() const
{
    return QStringLiteral("LibTorch %1, %2")
        .arg(version, cuda.isEmpty() ? QStringLiteral("CPU only") : QStringLiteral("CUDA %1").arg(cuda));
}

ModelCatalogue ModelCatalogue::fromJson(const QByteArray &json, QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error =
            tr("--list-models output is not JSON (offset %1: %2)").arg(parseError.offset).arg(parseError.errorString());
        return {};
    }
    if (!doc.isObject()) {
        *error = tr("--list-models output: expected a JSON object");
        return {};
    }
    return fromJson(doc.object(), error);
}

ModelCatalogue ModelCatalogue::fromJson(const QJsonObject &root, QString *error)
{
    ModelCatalogue c;
    c.m_version = root.value(QLatin1String("version")).toString();
    if (const QJsonObject torch = root.value(QLatin1String("libtorch")).toObject(); !torch.isEmpty()) {
        c.m_libTorch.known = true;
        c.m_libTorch.version = torch.value(QLatin1String("version")).toString();
        c.m_libTorch.cuda = torch.value(QLatin1String("cuda")).toString(); // null: CPU only
    }
    const QJsonValue models = root.value(QLatin1String("models"));
    if (!models.isArray() || models.toArray().isEmpty()) {
        *error = tr("models: expected a non-empty array");
        return {};
    }
    const QJsonArray modelArray = models.toArray();
    for (qsizetype i = 0; i < modelArray.size(); ++i) {
        const QString where = QStringLiteral("models[%1]").arg(i);
        const QJsonObject o = modelArray.at(i).toObject();
        CatalogueModel m;
        m.type = o.value(QLatin1String("type")).toString();
        m.task = o.value(QLatin1String("task")).toString();
        m.description = o.value(QLatin1String("description")).toString();
        m.defaults = o.value(QLatin1String("defaults")).toObject();
        if (m.type.isEmpty()) {
            *error = tr("%1.type: expected a non-empty string").arg(where);
            return {};
        }
        if (!parseParams(o.value(QLatin1String("params")), where + QLatin1String(".params"), &m.params, error)) {
            return {};
        }
        // Optional (workers before 0.3 have none).
        const QJsonArray recipes = o.value(QLatin1String("recipes")).toArray();
        for (qsizetype r = 0; r < recipes.size(); ++r) {
            const QJsonObject ro = recipes.at(r).toObject();
            CatalogueRecipe recipe{
                ro.value(QLatin1String("name")).toString(), ro.value(QLatin1String("fits")).toString(), {}};
            if (recipe.name.isEmpty()) {
                *error = tr("%1.recipes[%2].name: expected a non-empty string").arg(where).arg(r);
                return {};
            }
            for (const char *section : {"model", "train", "eval"}) {
                const QString key = QLatin1String(section);
                recipe.values.insert(key, ro.value(key).toObject());
            }
            m.recipes.append(recipe);
        }
        c.m_models.append(m);
    }
    const QJsonArray kinds = root.value(QLatin1String("data_kinds")).toArray();
    for (qsizetype i = 0; i < kinds.size(); ++i) {
        const QString where = QStringLiteral("data_kinds[%1]").arg(i);
        const QJsonObject o = kinds.at(i).toObject();
        DataKindInfo d;
        d.kind = o.value(QLatin1String("kind")).toString();
        d.task = o.value(QLatin1String("task")).toString();
        d.description = o.value(QLatin1String("description")).toString();
        if (d.kind.isEmpty()) {
            *error = tr("%1.kind: expected a non-empty string").arg(where);
            return {};
        }
        if (!parseParams(o.value(QLatin1String("params")), where + QLatin1String(".params"), &d.params, error)) {
            return {};
        }
        c.m_dataKinds.append(d);
    }
    for (const QString &section : specSectionNames()) {
        QList<ParamInfo> params;
        if (!parseParams(root.value(section), section, &params, error)) {
            return {};
        }
        c.m_sections.insert(section, params);
        c.m_sectionOrder.append(section);
    }
    // Optional (workers before 0.2 have none).
    const QJsonArray presets = root.value(QLatin1String("presets")).toArray();
    for (int i = 0; i < presets.size(); ++i) {
        const QJsonObject o = presets.at(i).toObject();
        PublishedPreset p{o.value(QLatin1String("name")).toString(), o.value(QLatin1String("source")).toString(),
                          o.value(QLatin1String("spec")).toObject()};
        if (p.name.isEmpty() || !c.model(RunSpecView(p.spec).modelType())) {
            *error = tr("presets[%1]: expected a name and a spec with a known model.type").arg(i);
            return {};
        }
        c.m_presets.append(p);
    }
    error->clear();
    return c;
}

const CatalogueRecipe *CatalogueModel::recipe(const QString &name) const
{
    for (const CatalogueRecipe &r : recipes) {
        if (r.name == name) {
            return &r;
        }
    }
    return nullptr;
}

const CatalogueModel *ModelCatalogue::model(const QString &type) const
{
    for (const CatalogueModel &m : m_models) {
        if (m.type == type) {
            return &m;
        }
    }
    return nullptr;
}

const DataKindInfo *ModelCatalogue::dataKind(const QString &kind) const
{
    for (const DataKindInfo &d : m_dataKinds) {
        if (d.kind == kind) {
            return &d;
        }
    }
    return nullptr;
}

QList<DataKindInfo> ModelCatalogue::dataKindsForTask(const QString &task) const
{
    QList<DataKindInfo> out;
    for (const DataKindInfo &d : m_dataKinds) {
        if (d.task == task || task.isEmpty() || d.task.isEmpty()) {
            out.append(d);
        }
    }
    return out;
}

QStringList ModelCatalogue::tasks() const
{
    QStringList out;
    for (const CatalogueModel &m : m_models) {
        if (!out.contains(m.task)) {
            out.append(m.task);
        }
    }
    return out;
}

QStringList ModelCatalogue::modelTypes() const
{
    QStringList out;
    for (const CatalogueModel &m : m_models) {
        out.append(m.type);
    }
    return out;
}

QStringList ModelCatalogue::dataKindNames() const
{
    QStringList out;
    for (const DataKindInfo &d : m_dataKinds) {
        out.append(d.kind);
    }
    return out;
}

QJsonObject ModelCatalogue::defaultSpec(const QString &type, const QString &name) const
{
    const CatalogueModel *m = model(type);
    if (!m) {
        return {};
    }
    QJsonObject spec;
    spec.insert(QLatin1String("name"), name);
    QJsonObject model{{QLatin1String("type"), type}};
    for (const ParamInfo &p : m->params) {
        model.insert(p.name, p.defaultValue);
    }
    spec.insert(QLatin1String("model"), model);

    // Data: the model's preferred kind, else the first kind of its task.
    QJsonObject data = m->defaults.value(QLatin1String("data")).toObject();
    QString kind = RunSpecView(m->defaults).dataKind();
    if (kind.isEmpty()) {
        const QList<DataKindInfo> fitting = dataKindsForTask(m->task);
        if (!fitting.isEmpty()) {
            kind = fitting.constFirst().kind;
        }
    }
    if (const DataKindInfo *d = dataKind(kind)) {
        QJsonObject filled{{QLatin1String("kind"), kind}};
        for (const ParamInfo &p : d->params) {
            filled.insert(p.name, p.defaultValue);
        }
        for (auto it = data.constBegin(); it != data.constEnd(); ++it) {
            filled.insert(it.key(), it.value());
        }
        data = filled;
    }
    if (!data.isEmpty()) {
        spec.insert(QLatin1String("data"), data);
    }

    for (const QString &section : m_sectionOrder) {
        QJsonObject values;
        for (const ParamInfo &p : m_sections.value(section)) {
            if (!p.defaultValue.isUndefined()) {
                values.insert(p.name, p.defaultValue);
            }
        }
        const QJsonObject overrides = m->defaults.value(section).toObject();
        for (auto it = overrides.constBegin(); it != overrides.constEnd(); ++it) {
            values.insert(it.key(), it.value());
        }
        if (!values.isEmpty()) {
            spec.insert(section, values);
        }
    }
    return spec;
}

QJsonObject ModelCatalogue::newRunSpec(const QString &type, const QString &name) const
{
    QJsonObject spec = defaultSpec(type, name);
    const CatalogueModel *m = model(type);
    if (!m) {
        return spec;
    }
    for (const CatalogueRecipe &recipe : m->recipes) {
        for (auto it = recipe.values.constBegin(); it != recipe.values.constEnd(); ++it) {
            QJsonObject section = spec.value(it.key()).toObject();
            const QJsonObject values = it.value().toObject();
            for (auto v = values.constBegin(); v != values.constEnd(); ++v) {
                section.remove(v.key());
            }
            spec.insert(it.key(), section);
        }
    }
    return spec;
}

const CatalogueRecipe *ModelCatalogue::recipeOf(const QJsonObject &spec, const QString &chosenRecipe) const
{
    const CatalogueModel *m = model(RunSpecView(spec).modelType());
    if (!m || m->recipes.isEmpty()) {
        return nullptr;
    }
    const QJsonValue named = spec.value(QLatin1String("model")).toObject().value(QLatin1String("recipe"));
    if (named.isUndefined() || named.toString() == QLatin1String("auto")) {
        return m->recipe(chosenRecipe);
    }
    return m->recipe(named.toString());
}

QJsonObject ModelCatalogue::resolve(const QJsonObject &spec, const QString &chosenRecipe) const
{
    const RunSpecView view(spec);
    if (!model(view.modelType())) {
        return spec;
    }
    QJsonObject out = defaultSpec(view.modelType(), view.name());
    if (const CatalogueRecipe *recipe = recipeOf(spec, chosenRecipe)) {
        // As the worker does: the recipe's values in place of the defaults.
        for (auto it = recipe->values.constBegin(); it != recipe->values.constEnd(); ++it) {
            QJsonObject section = out.value(it.key()).toObject();
            const QJsonObject values = it.value().toObject();
            for (auto v = values.constBegin(); v != values.constEnd(); ++v) {
                section.insert(v.key(), v.value());
            }
            out.insert(it.key(), section);
        }
    }
    if (!spec.contains(QLatin1String("name"))) {
        out.remove(QLatin1String("name"));
    }
    const QString kind = view.dataKind();
    if (!kind.isEmpty() && kind != RunSpecView(out).dataKind()) {
        // Another kind than the model's: that kind's keys, not the model's data defaults.
        QJsonObject data{{QLatin1String("kind"), kind}};
        if (const DataKindInfo *d = dataKind(kind)) {
            for (const ParamInfo &p : d->params) {
                data.insert(p.name, p.defaultValue);
            }
        }
        out.insert(QLatin1String("data"), data);
    }
    for (auto it = spec.constBegin(); it != spec.constEnd(); ++it) {
        if (!it.value().isObject() || !out.value(it.key()).isObject()) {
            out.insert(it.key(), it.value());
            continue;
        }
        QJsonObject merged = out.value(it.key()).toObject();
        const QJsonObject given = it.value().toObject();
        for (auto g = given.constBegin(); g != given.constEnd(); ++g) {
            merged.insert(g.key(), g.value());
        }
        out.insert(it.key(), merged);
    }
    if (const CatalogueRecipe *recipe = recipeOf(spec, chosenRecipe)) {
        // "auto" resolved, as the worker's own resolved spec says.
        QJsonObject model = out.value(QLatin1String("model")).toObject();
        model.insert(QLatin1String("recipe"), recipe->name);
        out.insert(QLatin1String("model"), model);
    }
    return out;
}

ModelCatalogueLoader::ModelCatalogueLoader(QObject *parent)
    : ModelCatalogueLoader(&ModelCatalogueCache::shared(), parent)
{
}

ModelCatalogueLoader::ModelCatalogueLoader(ModelCatalogueCache *cache, QObject *parent)
    : QObject(parent)
    , m_cache(cache)
{
}

ModelCatalogueLoader::~ModelCatalogueLoader()
{
    if (m_process) {
        m_process->cancel();
    }
}

void ModelCatalogueLoader::load(const QString &workerPath)
{
    if (m_process) {
        return;
    }
    m_workerPath = workerPath;
    if (m_cache) {
        if (const auto cached = m_cache->find(workerPath)) {
            // Queued, as a worker's answer would be: callers connect after load().
            QMetaObject::invokeMethod(
                this, [this, catalogue = *cached] { Q_EMIT loaded(catalogue); }, Qt::QueuedConnection);
            return;
        }
    }
    qCInfo(lcCatalogue) << "asking" << workerPath << "for its catalogue";
    m_process = new Process(this);
    connect(m_process, &Process::done, this, &ModelCatalogueLoader::onFinished);
    m_process->start({workerPath, {QStringLiteral("--list-models")}, {}, {}, {}}, m_timeoutMs);
}

void ModelCatalogueLoader::onFinished(const ProcessResult &result)
{
    QString error;
    const auto catalogue = answer(m_workerPath, result, &error);
    finish(catalogue, error);
}

std::optional<ModelCatalogue> ModelCatalogueLoader::answer(const QString &workerPath, const ProcessResult &result,
                                                           QString *error)
{
    if (!result.started) {
        *error = tr("Cannot start the worker %1: %2").arg(workerPath, result.errorString);
    } else if (result.timedOut) {
        *error = tr("%1 --list-models did not answer within %2 s").arg(workerPath).arg(m_timeoutMs / 1000.0);
    } else if (result.crashed) {
        *error = tr("%1 --list-models crashed: %2").arg(workerPath, result.errorString);
    } else if (result.exitCode != 0) {
        *error = exitMessage(workerPath, result.exitCode, result.err);
    } else {
        return accept(workerPath, result.out, error);
    }
    return std::nullopt;
}

void ModelCatalogueLoader::finish(const std::optional<ModelCatalogue> &catalogue, const QString &error)
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->deleteLater();
        m_process = nullptr;
    }
    if (catalogue) {
        Q_EMIT loaded(*catalogue);
    } else {
        qCInfo(lcCatalogue).noquote() << error;
        Q_EMIT failed(error);
    }
}

std::optional<ModelCatalogue> ModelCatalogueLoader::accept(const QString &workerPath, const QByteArray &output,
                                                           QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(output, &parseError);
    ModelCatalogue catalogue;
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        catalogue = ModelCatalogue::fromJson(output, error); // for its message
    } else {
        catalogue = ModelCatalogue::fromJson(doc.object(), error);
    }
    if (catalogue.isEmpty()) {
        // "PROGRAM --list-models output is not JSON ...", "PROGRAM --list-models: models: expected ...".
        *error = error->startsWith(QLatin1String("--list-models")) ? workerPath + QLatin1Char(' ') + *error
                                                                   : tr("%1 --list-models: %2").arg(workerPath, *error);
        return std::nullopt;
    }
    qCInfo(lcCatalogue) << workerPath << "lists" << catalogue.models().size() << "models";
    if (m_cache) {
        m_cache->store(workerPath, doc.object(), catalogue);
    }
    return catalogue;
}

std::optional<ModelCatalogue> ModelCatalogueLoader::loadBlocking(const QString &workerPath, QString *error)
{
    if (m_cache) {
        if (auto cached = m_cache->find(workerPath)) {
            return cached;
        }
    }
    qCInfo(lcCatalogue) << "asking" << workerPath << "for its catalogue";
    const ProcessResult result =
        Process::runNow({workerPath, {QStringLiteral("--list-models")}, {}, {}, {}}, m_timeoutMs);
    const auto catalogue = answer(workerPath, result, error);
    if (!catalogue) {
        qCInfo(lcCatalogue).noquote() << *error;
    }
    return catalogue;
}

bool ModelCatalogueLoader::loadNow(const QString &workerPath, ModelCatalogue *catalogue, QString *error, int timeoutMs)
{
    ModelCatalogueLoader loader;
    loader.setTimeout(timeoutMs);
    const auto loaded = loader.loadBlocking(workerPath, error);
    if (!loaded) {
        return false;
    }
    *catalogue = *loaded;
    return true;
}

} // namespace trainyard
