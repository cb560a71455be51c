#include "worker/base/runspec.h"

#include "worker/base/badinput.h"
#include "worker/base/catalogue.h"

#include <cmath>
#include <fstream>
#include <sstream>

namespace trainyard {

namespace {

using nlohmann::json;

std::string shown(const json &value)
{
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > 60) {
        text = text.substr(0, 57) + "...";
    }
    return text;
}

std::string number(double v, bool integer)
{
    if (integer) {
        return std::to_string(static_cast<long long>(v));
    }
    std::ostringstream os;
    os << v;
    return os.str();
}

std::string rangeText(const ParamSpec &p)
{
    const bool integer = p.type == ParamSpec::Type::Int;
    const char *noun = integer ? "an integer" : "a number";
    if (p.min && p.max) {
        if (p.minExclusive) {
            return std::string(noun) + " > " + number(*p.min, integer) + " and <= " + number(*p.max, integer);
        }
        return std::string(noun) + " in [" + number(*p.min, integer) + ", " + number(*p.max, integer) + "]";
    }
    if (p.min) {
        return std::string(noun) + (p.minExclusive ? " > " : " >= ") + number(*p.min, integer);
    }
    if (p.max) {
        return std::string(noun) + " <= " + number(*p.max, integer);
    }
    return noun;
}

std::string expectation(const ParamSpec &p)
{
    std::string text;
    if (!p.choices.empty()) {
        text = "one of ";
        for (std::size_t i = 0; i < p.choices.size(); ++i) {
            text += (i ? ", " : "") + p.choices[i].dump();
        }
    } else {
        switch (p.type) {
        case ParamSpec::Type::Int:
        case ParamSpec::Type::Float:
            text = rangeText(p);
            break;
        case ParamSpec::Type::Bool:
            text = "true or false";
            break;
        case ParamSpec::Type::String:
            text = "a string";
            break;
        case ParamSpec::Type::Path:
            text = "a non-empty path string";
            break;
        }
    }
    return p.nullable ? "null or " + text : text;
}

[[noreturn]] void fail(const std::string &origin, const std::string &path, const std::string &text)
{
    throw BadInput(origin + ": " + path + ": " + text);
}

// Checks one value against its ParamSpec; returns it normalised.
json checkValue(const ParamSpec &p, const json &v, const std::string &origin, const std::string &path)
{
    auto bad = [&]() { fail(origin, path, "expected " + expectation(p) + ", got " + shown(v)); };
    if (v.is_null()) {
        if (!p.nullable) {
            bad();
        }
        return v;
    }
    switch (p.type) {
    case ParamSpec::Type::Int: {
        if (!v.is_number_integer()) {
            bad();
        }
        const double d = v.is_number_unsigned() ? static_cast<double>(v.get<std::uint64_t>())
                                                : static_cast<double>(v.get<std::int64_t>());
        if ((p.min && d < *p.min) || (p.max && d > *p.max)) {
            bad();
        }
        break;
    }
    case ParamSpec::Type::Float: {
        if (!v.is_number()) {
            bad();
        }
        const double d = v.get<double>();
        if (!std::isfinite(d) || (p.min && (p.minExclusive ? d <= *p.min : d < *p.min)) || (p.max && d > *p.max)) {
            bad();
        }
        return d;
    }
    case ParamSpec::Type::Bool:
        if (!v.is_boolean()) {
            bad();
        }
        break;
    case ParamSpec::Type::String:
        if (!v.is_string()) {
            bad();
        }
        break;
    case ParamSpec::Type::Path:
        // An optional path (train.init_from) may be empty: none, as null.
        if (!v.is_string() || (v.get_ref<const std::string &>().empty() && !p.nullable)) {
            bad();
        }
        break;
    }
    if (!p.choices.empty()) {
        bool found = false;
        for (const auto &c : p.choices) {
            found = found || c == v;
        }
        if (!found) {
            bad();
        }
    }
    return v;
}

std::string keyList(const std::vector<ParamSpec> &params, const char *extra = nullptr)
{
    std::string text;
    if (extra) {
        text = std::string("\"") + extra + "\"";
    }
    for (const auto &p : params) {
        text += (text.empty() ? "\"" : ", \"") + p.name + "\"";
    }
    return text;
}

// Validates `section` (an object or absent) against `params`, filling defaults.
// `overrides` replaces the catalogue defaults (per-model defaults).
json checkSection(const json *section, const std::vector<ParamSpec> &params, const json &overrides,
                  const std::string &origin, const std::string &name, const char *skipKey = nullptr)
{
    if (section && !section->is_object()) {
        fail(origin, name, "expected an object, got " + shown(*section));
    }
    json out = json::object();
    if (section) {
        for (const auto &[key, value] : section->items()) {
            if (skipKey && key == skipKey) {
                continue;
            }
            const ParamSpec *spec = nullptr;
            for (const auto &p : params) {
                spec = p.name == key ? &p : spec;
            }
            if (!spec) {
                fail(origin, name + "." + key, "unknown key (expected one of " + keyList(params, skipKey) + ")");
            }
            out[key] = checkValue(*spec, value, origin, name + "." + key);
        }
    }
    for (const auto &p : params) {
        if (out.contains(p.name)) {
            continue;
        }
        const auto it = overrides.find(p.name);
        out[p.name] = it != overrides.end() ? *it : p.defaultValue;
    }
    return out;
}

} // namespace

RunSpec RunSpec::withRecipe(const std::string &name) const
{
    json spec = given;
    spec["model"]["recipe"] = name;
    return fromJson(spec, origin);
}

std::string RunSpec::modelKey() const
{
    json model = resolved["model"];
    model.erase("recipe");
    return model.dump();
}

const std::string &RunSpec::modelType() const
{
    return model->type;
}

const std::string &RunSpec::task() const
{
    return model->task;
}

RunSpec RunSpec::parse(const std::string &text, const std::string &origin)
{
    json spec;
    try {
        spec = json::parse(text);
    } catch (const json::exception &e) { // parse_error, and out_of_range for numbers like 1e99999
        std::string what = e.what();
        const auto pos = what.find("parse error");
        throw BadInput(origin + ": not valid JSON: " + (pos == std::string::npos ? what : what.substr(pos)));
    }
    return fromJson(spec, origin);
}

RunSpec RunSpec::load(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw BadInput(path + ": cannot open the run spec");
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) {
        throw BadInput(path + ": cannot read the run spec");
    }
    RunSpec run = parse(text.str(), path);
    // A relative model file (torchscript's "path") is relative to the spec file.
    for (const auto &p : run.model->params) {
        std::string file = run.modelParams[p.name].is_string() ? run.modelParams[p.name].get<std::string>() : "";
        const auto slash = path.rfind('/');
        if (p.type != ParamSpec::Type::Path || file.empty() || file[0] == '/' || slash == std::string::npos) {
            continue;
        }
        file = path.substr(0, slash + 1) + file;
        run.modelParams[p.name] = file;
        run.resolved["model"][p.name] = file;
        run.given["model"][p.name] = file;
    }
    // So is train.init_from.
    if (const auto slash = path.rfind('/');
        !run.initFrom.empty() && run.initFrom[0] != '/' && slash != std::string::npos) {
        run.initFrom = path.substr(0, slash + 1) + run.initFrom;
        run.resolved["train"]["init_from"] = run.initFrom;
        run.given["train"]["init_from"] = run.initFrom;
    }
    return run;
}

RunSpec RunSpec::fromJson(const json &spec, const std::string &origin)
{
    if (!spec.is_object()) {
        throw BadInput(origin + ": the run spec must be a JSON object, got " + shown(spec));
    }
    // "resources" is the orchestrator's (where the run is placed), kept in
    // spec.json as part of what the run asked for.
    static const std::vector<std::string> topKeys = {"name", "model",      "data",   "train",
                                                     "eval", "checkpoint", "report", "resources"};
    for (const auto &[key, value] : spec.items()) {
        (void)value;
        bool known = false;
        for (const auto &k : topKeys) {
            known = known || k == key;
        }
        if (!known) {
            fail(origin, key,
                 "unknown key (expected one of \"name\", \"model\", \"data\", \"train\", \"eval\", "
                 "\"checkpoint\", \"report\", \"resources\")");
        }
    }
    if (const auto it = spec.find("resources"); it != spec.end()) {
        if (!it->is_object()) {
            fail(origin, "resources", "expected an object, got " + shown(*it));
        }
        if (const auto g = it->find("gpus"); g != it->end() && !(g->is_number_integer() && g->get<long long>() == 1)) {
            fail(origin, "resources.gpus",
                 "the built-in models train on one GPU, got " + shown(*g)
                     + " (a program run, such as torchrun, can use several)");
        }
    }

    const Catalogue &catalogue = Catalogue::instance();
    RunSpec run;
    run.given = spec;
    run.origin = origin;
    json resolved = json::object();

    if (const auto it = spec.find("name"); it != spec.end()) {
        if (!it->is_string() || it->get_ref<const std::string &>().empty()) {
            fail(origin, "name", "expected a non-empty string, got " + shown(*it));
        }
        run.name = it->get<std::string>();
    }
    resolved["name"] = run.name;

    // model
    std::string supported;
    for (const auto &m : catalogue.models()) {
        supported += (supported.empty() ? "\"" : ", \"") + m.type + "\"";
    }
    const json *modelSection = nullptr;
    std::string modelType = "transe";
    if (const auto it = spec.find("model"); it != spec.end()) {
        if (!it->is_object()) {
            fail(origin, "model", "expected an object, got " + shown(*it));
        }
        modelSection = &*it;
        if (const auto t = it->find("type"); t != it->end()) {
            if (!t->is_string()) {
                fail(origin, "model.type", "expected one of " + supported + ", got " + shown(*t));
            }
            modelType = t->get<std::string>();
        }
    }
    run.model = catalogue.findModel(modelType);
    if (!run.model) {
        fail(origin, "model.type", "expected one of " + supported + ", got \"" + modelType + "\"");
    }
    // A named recipe's values stand in for the model's defaults (checkSection
    // below rejects a name that is not one).
    const RecipeInfo *recipe = nullptr;
    if (modelSection) {
        if (const auto r = modelSection->find("recipe"); r != modelSection->end() && r->is_string()) {
            recipe = run.model->findRecipe(r->get<std::string>());
        }
    }
    run.modelParams =
        checkSection(modelSection, run.model->params, recipe ? recipe->model : json::object(), origin, "model", "type");
    if (run.modelParams.contains("recipe")) {
        run.recipe = run.modelParams["recipe"].get<std::string>();
    }
    for (const auto &p : run.model->params) {
        if (p.type == ParamSpec::Type::Path && run.modelParams[p.name].get<std::string>().empty()) {
            fail(origin, "model." + p.name, "required for model \"" + modelType + "\"");
        }
    }
    resolved["model"] = run.modelParams;
    resolved["model"]["type"] = run.model->type;

    // data
    const json *dataSection = nullptr;
    std::string kind = run.model->defaultDataKind;
    std::string kinds;
    for (const auto &d : catalogue.dataKinds()) {
        kinds += (kinds.empty() ? "\"" : ", \"") + d.kind + "\"";
    }
    if (const auto it = spec.find("data"); it != spec.end()) {
        if (!it->is_object()) {
            fail(origin, "data", "expected an object, got " + shown(*it));
        }
        dataSection = &*it;
        if (const auto k = it->find("kind"); k != it->end()) {
            if (!k->is_string()) {
                fail(origin, "data.kind", "expected one of " + kinds + ", got " + shown(*k));
            }
            kind = k->get<std::string>();
        }
    }
    const DataKindInfo *dataKind = catalogue.findDataKind(kind);
    if (!dataKind) {
        fail(origin, "data.kind", "expected one of " + kinds + ", got \"" + kind + "\"");
    }
    if (dataKind->task != run.model->task) {
        fail(origin, "data.kind",
             "\"" + kind + "\" holds " + dataKind->task + " data but model \"" + run.model->type + "\" needs "
                 + run.model->task + " data");
    }
    run.data = checkSection(dataSection, dataKind->params, json::object(), origin, "data", "kind");
    for (const auto &p : dataKind->params) {
        if (p.type == ParamSpec::Type::Path && run.data[p.name].get<std::string>().empty()) {
            fail(origin, "data." + p.name, "required for data kind \"" + kind + "\"");
        }
    }
    run.data["kind"] = kind;
    resolved["data"] = run.data;

    // the fixed sections
    const json empty = json::object();
    auto section = [&](const char *name, const json &overrides) {
        const auto it = spec.find(name);
        json out = checkSection(it == spec.end() ? nullptr : &*it, catalogue.section(name), overrides, origin, name);
        resolved[name] = out;
        return out;
    };
    json trainDefaults = run.model->trainDefaults;
    json evalDefaults = run.model->evalDefaults;
    if (recipe) {
        trainDefaults.update(recipe->train);
        evalDefaults.update(recipe->eval);
    }
    const json train = section("train", trainDefaults);
    const json eval = section("eval", evalDefaults);
    const json checkpoint = section("checkpoint", empty);
    const json report = section("report", empty);

    run.epochs = train["epochs"].get<std::int64_t>();
    if (!train["max_steps"].is_null()) {
        run.maxSteps = train["max_steps"].get<std::int64_t>();
    }
    if (!train["max_seconds"].is_null()) {
        run.maxSeconds = train["max_seconds"].get<double>();
    }
    run.engine = train["engine"].get<std::string>();
    run.batchSize = train["batch_size"].get<std::int64_t>();
    run.optimizer = train["optimizer"].get<std::string>();
    run.lr = train["lr"].get<double>();
    run.weightDecay = train["weight_decay"].get<double>();
    run.seed = train["seed"].get<std::uint64_t>();
    run.amp = train["amp"].get<std::string>();
    run.channelsLast = train["channels_last"].get<bool>();
    if (!train["init_from"].is_null()) {
        run.initFrom = train["init_from"].get<std::string>();
    }
    run.evalEveryEpochs = eval["every_epochs"].get<std::int64_t>();
    run.evalSplit = eval["split"].get<std::string>();
    run.evalBatchSize = eval["batch_size"].get<std::int64_t>();
    run.checkpointEverySteps = checkpoint["every_steps"].get<std::int64_t>();
    run.checkpointKeep = checkpoint["keep"].get<std::int64_t>();
    run.reportEverySteps = report["every_steps"].get<std::int64_t>();

    if (kind == "idx" && run.evalSplit == "valid" && run.evalEveryEpochs > 0
        && run.data["valid_size"].get<std::int64_t>() == 0) {
        fail(origin, "data.valid_size", "is 0, so there is no valid split for eval.split \"valid\"");
    }

    run.resolved = std::move(resolved);
    return run;
}

} // namespace trainyard
