#include "orchestration/experiment/experimentschema.h"

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/experiment/keytables.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace trainyard {

using namespace keytables;

namespace {

QJsonObject ref(const QString &kind)
{
    return {{QStringLiteral("$ref"), QStringLiteral("#/$defs/") + kind}};
}

QJsonObject parse(const char *json)
{
    return QJsonDocument::fromJson(QByteArray(json)).object();
}

// "string|null" -> ["string", "null"]; "string" -> "string".
QJsonValue types(const QString &type)
{
    const QStringList list = type.split(QLatin1Char('|'));
    return list.size() == 1 ? QJsonValue(list.first()) : QJsonValue(QJsonArray::fromStringList(list));
}

QJsonObject keySchema(const Key &k)
{
    QJsonObject s;
    const QString kind = QLatin1String(k.kind);
    const QString type = QLatin1String(k.type);
    if (!kind.isEmpty() && type == QLatin1String("array")) {
        s = {{QStringLiteral("type"), type}, {QStringLiteral("items"), ref(kind)}};
    } else if (!kind.isEmpty()) {
        s = ref(kind);
    } else if (!type.isEmpty()) {
        s.insert(QStringLiteral("type"), types(type));
    }
    const QJsonObject rule = parse(k.rule);
    for (auto it = rule.begin(); it != rule.end(); ++it) {
        s.insert(it.key(), it.value());
    }
    s.insert(QStringLiteral("description"), QLatin1String(k.description));
    return s;
}

// The object a table describes; `entry` false: without its kEntryOnly keys.
QJsonObject tableSchema(const Table &t, bool entry = true)
{
    QJsonObject properties;
    QJsonArray required;
    for (const Key &k : t.keys) {
        if (!entry && (k.flags & kEntryOnly)) {
            continue;
        }
        properties.insert(QLatin1String(k.name), keySchema(k));
        if (k.flags & kRequired) {
            required.append(QLatin1String(k.name));
        }
    }
    QJsonObject s{{QStringLiteral("type"), QStringLiteral("object")},
                  {QStringLiteral("description"), QLatin1String(t.description)},
                  {QStringLiteral("properties"), properties},
                  {QStringLiteral("additionalProperties"), false}};
    if (!required.isEmpty()) {
        s.insert(QStringLiteral("required"), required);
    }
    return s;
}

// What a table cannot say: keys that depend on another key's value.
const char *conditions(const QString &kind)
{
    if (kind == QLatin1String("cluster")) {
        return R"({"if": {"properties": {"reach": {"const": "ssh"}}, "required": ["reach"]},
                   "then": {"required": ["host", "runs_root", "worker"]},
                   "else": {"properties": {"host": false, "user": false, "port": false, "ssh_config": false}}})";
    }
    if (kind == QLatin1String("sweep")) {
        return R"({"if": {"properties": {"method": {"const": "random"}}, "required": ["method"]},
                   "then": {"required": ["trials"], "properties": {"trials": {"minimum": 1}}}})";
    }
    if (kind == QLatin1String("early_stopping")) {
        return R"({"if": {"properties": {"rule": {"const": "median"}}, "required": ["rule"]},
                   "then": {"properties": {"eta": false}}})";
    }
    return "";
}

// One hyperparameter of the catalogue as a JSON Schema.
QJsonObject paramSchema(const ParamInfo &p)
{
    QJsonObject s;
    QJsonArray type;
    if (p.type == QLatin1String("int")) {
        type.append(QStringLiteral("integer"));
    } else if (p.type == QLatin1String("float")) {
        type.append(QStringLiteral("number"));
    } else if (p.type == QLatin1String("bool")) {
        type.append(QStringLiteral("boolean"));
    } else {
        type.append(QStringLiteral("string"));
    }
    if (p.nullable) {
        type.append(QStringLiteral("null"));
    }
    s.insert(QStringLiteral("type"), type.size() == 1 ? type.first() : QJsonValue(type));
    if (p.minimum.isDouble()) {
        s.insert(p.minExclusive ? QStringLiteral("exclusiveMinimum") : QStringLiteral("minimum"), p.minimum);
    }
    if (p.maximum.isDouble()) {
        s.insert(QStringLiteral("maximum"), p.maximum);
    }
    if (!p.choices.isEmpty()) {
        QJsonArray choices = p.choices;
        if (p.nullable) {
            choices.append(QJsonValue::Null);
        }
        s.insert(QStringLiteral("enum"), choices);
    }
    if (!p.defaultValue.isUndefined()) {
        s.insert(QStringLiteral("default"), p.defaultValue);
    }
    if (!p.help.isEmpty()) {
        s.insert(QStringLiteral("description"), p.help);
    }
    return s;
}

QJsonObject paramsSchema(const QList<ParamInfo> &params)
{
    QJsonObject properties;
    for (const ParamInfo &p : params) {
        properties.insert(p.name, paramSchema(p));
    }
    return properties;
}

// model (by "type") or data (by "kind"): one branch per choice, each with
// that choice's keys only, as the checks take them.
struct Choice
{
    QString name;
    QString description;
    QList<ParamInfo> params;
};

QJsonObject chosenSchema(const QString &selector, const QString &description, const QList<Choice> &choices)
{
    QJsonArray names;
    QJsonArray descriptions;
    QJsonArray branches;
    for (const Choice &c : choices) {
        names.append(c.name);
        descriptions.append(c.description);
        QJsonObject properties = paramsSchema(c.params);
        properties.insert(selector, QJsonObject{{QStringLiteral("const"), c.name}});
        branches.append(
            QJsonObject{{QStringLiteral("if"),
                         QJsonObject{{QStringLiteral("properties"),
                                      QJsonObject{{selector, QJsonObject{{QStringLiteral("const"), c.name}}}}},
                                     {QStringLiteral("required"), QJsonArray{selector}}}},
                        {QStringLiteral("then"), QJsonObject{{QStringLiteral("properties"), properties},
                                                             {QStringLiteral("additionalProperties"), false}}}});
    }
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                       {QStringLiteral("description"), description},
                       {QStringLiteral("required"), QJsonArray{selector}},
                       {QStringLiteral("properties"),
                        QJsonObject{{selector, QJsonObject{{QStringLiteral("enum"), names},
                                                           {QStringLiteral("enumDescriptions"), descriptions}}}}},
                       {QStringLiteral("allOf"), branches}};
}

// Without a catalogue: a name where the checks want one, any other key.
QJsonObject namedSchema(const QString &selector, const QString &description)
{
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                       {QStringLiteral("description"), description},
                       {QStringLiteral("required"), QJsonArray{selector}},
                       {QStringLiteral("properties"),
                        QJsonObject{{selector, QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                                                           {QStringLiteral("pattern"),
                                                            QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")}}}}}};
}

void addCatalogueDefs(const ModelCatalogue *catalogue, QJsonObject &defs)
{
    const QString modelWhat = QStringLiteral("The model: \"type\" and that model's hyperparameters.");
    const QString dataWhat = QStringLiteral("The data: \"kind\" and that kind's keys.");
    if (!catalogue) {
        defs.insert(QStringLiteral("model"), namedSchema(QStringLiteral("type"), modelWhat));
        defs.insert(QStringLiteral("data"), namedSchema(QStringLiteral("kind"), dataWhat));
        for (const QString &section : ModelCatalogue::specSectionNames()) {
            QJsonObject s{{QStringLiteral("type"), QStringLiteral("object")},
                          {QStringLiteral("description"), QStringLiteral("The worker's %1 keys.").arg(section)}};
            if (section == QLatin1String("train")) { // repeats count seeds up without a catalogue too
                s.insert(QStringLiteral("properties"),
                         QJsonObject{
                             {QStringLiteral("seed"), QJsonObject{{QStringLiteral("type"), QStringLiteral("integer")},
                                                                  {QStringLiteral("minimum"), 0}}}});
            }
            defs.insert(section, s);
        }
        return;
    }
    QList<Choice> models;
    for (const CatalogueModel &m : catalogue->models()) {
        models << Choice{m.type, m.description, m.params};
    }
    QList<Choice> kinds;
    for (const DataKindInfo &k : catalogue->dataKinds()) {
        kinds << Choice{k.kind, k.description, k.params};
    }
    defs.insert(QStringLiteral("model"), chosenSchema(QStringLiteral("type"), modelWhat, models));
    defs.insert(QStringLiteral("data"), chosenSchema(QStringLiteral("kind"), dataWhat, kinds));
    for (const QString &section : ModelCatalogue::specSectionNames()) {
        defs.insert(section,
                    QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                                {QStringLiteral("description"), QStringLiteral("The worker's %1 keys.").arg(section)},
                                {QStringLiteral("properties"), paramsSchema(catalogue->section(section))},
                                {QStringLiteral("additionalProperties"), false}});
    }
}

} // namespace

QJsonObject experimentSchema(const ModelCatalogue *catalogue)
{
    QJsonObject defs;
    for (const Table *t : keytables::all()) {
        QJsonObject s = tableSchema(*t);
        const QJsonObject more = parse(conditions(QLatin1String(t->kind)));
        for (auto it = more.begin(); it != more.end(); ++it) {
            s.insert(it.key(), it.value());
        }
        defs.insert(QLatin1String(t->kind), s);
    }
    // A run spec as a member of rounds or a sweep's base: no repeat, no after.
    defs.insert(QStringLiteral("model_member"), tableSchema(keytables::modelRun(), false));
    defs.insert(QStringLiteral("program_member"), tableSchema(keytables::programRun(), false));
    const QJsonArray members{ref(QStringLiteral("model_member")), ref(QStringLiteral("program_member"))};
    defs.insert(QStringLiteral("member"), QJsonObject{{QStringLiteral("anyOf"), members}});
    // The sweep names its trials: its base has no name.
    defs.insert(QStringLiteral("sweep_base"),
                QJsonObject{{QStringLiteral("anyOf"), members},
                            {QStringLiteral("not"),
                             QJsonObject{{QStringLiteral("required"), QJsonArray{QStringLiteral("name")}}}}});
    // A queue's entry: rounds, a program run (it has "program") or a run of a model.
    defs.insert(QStringLiteral("run_entry"),
                QJsonObject{{QStringLiteral("anyOf"),
                             QJsonArray{ref(QStringLiteral("model_run")), ref(QStringLiteral("program_run")),
                                        ref(QStringLiteral("rounds_entry"))}}});
    addCatalogueDefs(catalogue, defs);

    QJsonObject schema = defs.value(QStringLiteral("experiment")).toObject();
    schema.insert(QStringLiteral("$schema"), QStringLiteral("https://json-schema.org/draft/2020-12/schema"));
    schema.insert(QStringLiteral("title"), QStringLiteral("Trainyard experiment file"));
    defs.remove(QStringLiteral("experiment"));
    schema.insert(QStringLiteral("$defs"), defs);
    return schema;
}

} // namespace trainyard
