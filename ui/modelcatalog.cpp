#include "modelcatalog.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>

namespace trainyard {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("trainyard::ModelCatalog", text);
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
        p.choices = o.value(QLatin1String("choices")).toArray();
        p.help = o.value(QLatin1String("help")).toString();
        out->append(p);
    }
    return true;
}

} // namespace

ModelCatalog ModelCatalog::fromJson(const QByteArray &json, QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error = tr("--list-models output is not JSON (offset %1: %2)")
                     .arg(parseError.offset)
                     .arg(parseError.errorString());
        return {};
    }
    if (!doc.isObject()) {
        *error = tr("--list-models output: expected a JSON object");
        return {};
    }
    const QJsonObject root = doc.object();
    ModelCatalog c;
    c.m_version = root.value(QLatin1String("version")).toString();
    const QJsonValue models = root.value(QLatin1String("models"));
    if (!models.isArray() || models.toArray().isEmpty()) {
        *error = tr("models: expected a non-empty array");
        return {};
    }
    const QJsonArray modelArray = models.toArray();
    for (qsizetype i = 0; i < modelArray.size(); ++i) {
        const QString where = QStringLiteral("models[%1]").arg(i);
        const QJsonObject o = modelArray.at(i).toObject();
        ModelInfo m;
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
        c.m_models.append(m);
    }
    const QJsonArray kinds = root.value(QLatin1String("data_kinds")).toArray();
    for (qsizetype i = 0; i < kinds.size(); ++i) {
        const QString where = QStringLiteral("data_kinds[%1]").arg(i);
        const QJsonObject o = kinds.at(i).toObject();
        DataKindInfo d;
        d.kind = o.value(QLatin1String("kind")).toString();
        d.task = o.value(QLatin1String("task")).toString();
        if (d.kind.isEmpty()) {
            *error = tr("%1.kind: expected a non-empty string").arg(where);
            return {};
        }
        if (!parseParams(o.value(QLatin1String("params")), where + QLatin1String(".params"), &d.params, error)) {
            return {};
        }
        c.m_dataKinds.append(d);
    }
    for (const QString &section : {QStringLiteral("train"), QStringLiteral("eval"), QStringLiteral("checkpoint"),
                                   QStringLiteral("report")}) {
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
        if (p.name.isEmpty() || !c.model(p.spec.value(QLatin1String("model")).toObject().value(QLatin1String("type")).toString())) {
            *error = tr("presets[%1]: expected a name and a spec with a known model.type").arg(i);
            return {};
        }
        c.m_presets.append(p);
    }
    error->clear();
    return c;
}

const ModelInfo *ModelCatalog::model(const QString &type) const
{
    for (const ModelInfo &m : m_models) {
        if (m.type == type) {
            return &m;
        }
    }
    return nullptr;
}

const DataKindInfo *ModelCatalog::dataKind(const QString &kind) const
{
    for (const DataKindInfo &d : m_dataKinds) {
        if (d.kind == kind) {
            return &d;
        }
    }
    return nullptr;
}

QList<DataKindInfo> ModelCatalog::dataKindsForTask(const QString &task) const
{
    QList<DataKindInfo> out;
    for (const DataKindInfo &d : m_dataKinds) {
        if (d.task == task || task.isEmpty() || d.task.isEmpty()) {
            out.append(d);
        }
    }
    return out;
}

QStringList ModelCatalog::tasks() const
{
    QStringList out;
    for (const ModelInfo &m : m_models) {
        if (!out.contains(m.task)) {
            out.append(m.task);
        }
    }
    return out;
}

QJsonObject ModelCatalog::defaultSpec(const QString &type, const QString &name) const
{
    const ModelInfo *m = model(type);
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
    QString kind = data.value(QLatin1String("kind")).toString();
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

ModelCatalogLoader::ModelCatalogLoader(QObject *parent)
    : QObject(parent)
{
}

ModelCatalogLoader::~ModelCatalogLoader()
{
    if (m_process) {
        m_process->kill();
        m_process->waitForFinished(1000);
    }
}

void ModelCatalogLoader::load(const QString &workerPath)
{
    if (m_process) {
        return;
    }
    m_workerPath = workerPath;
    m_process = new QProcess(this);
    connect(m_process, &QProcess::finished, this, &ModelCatalogLoader::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            const QString message = tr("Cannot start the worker %1: %2").arg(m_workerPath, m_process->errorString());
            m_process->deleteLater();
            m_process = nullptr;
            Q_EMIT failed(message);
        }
    });
    m_process->start(workerPath, {QStringLiteral("--list-models")});
}

void ModelCatalogLoader::onFinished()
{
    QProcess *p = m_process;
    m_process = nullptr;
    p->deleteLater();
    if (p->exitStatus() != QProcess::NormalExit || p->exitCode() != 0) {
        Q_EMIT failed(tr("%1 --list-models exited with status %2: %3")
                          .arg(m_workerPath)
                          .arg(p->exitCode())
                          .arg(QString::fromUtf8(p->readAllStandardError()).trimmed()));
        return;
    }
    QString error;
    const ModelCatalog catalog = ModelCatalog::fromJson(p->readAllStandardOutput(), &error);
    if (catalog.isEmpty()) {
        Q_EMIT failed(error);
        return;
    }
    Q_EMIT loaded(catalog);
}

bool ModelCatalogLoader::loadNow(const QString &workerPath, ModelCatalog *catalog, QString *error, int timeoutMs)
{
    QProcess p;
    p.start(workerPath, {QStringLiteral("--list-models")});
    if (!p.waitForStarted(timeoutMs)) {
        *error = tr("Cannot start the worker %1: %2").arg(workerPath, p.errorString());
        return false;
    }
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(1000);
        *error = tr("%1 --list-models did not answer within %2 s").arg(workerPath).arg(timeoutMs / 1000);
        return false;
    }
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        *error = tr("%1 --list-models exited with status %2: %3")
                     .arg(workerPath)
                     .arg(p.exitCode())
                     .arg(QString::fromUtf8(p.readAllStandardError()).trimmed());
        return false;
    }
    *catalog = ModelCatalog::fromJson(p.readAllStandardOutput(), error);
    return !catalog->isEmpty();
}

} // namespace trainyard
