// Run spec validation and the model catalogue (torch-free).

#include "tests/helpers/minitest.h"

#include "worker/base/badinput.h"
#include "worker/base/catalogue.h"
#include "worker/base/kgdataset.h"
#include "worker/base/recipe.h"
#include "worker/base/runspec.h"

#include <cstdlib>
#include <string>
#include <unistd.h>

using namespace trainyard;

namespace {

// The BadInput message of parsing `text`, or "" if it parsed.
std::string errorOf(const std::string &text)
{
    try {
        RunSpec::parse(text, "spec.json");
    } catch (const BadInput &e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string &text, const std::string &part)
{
    if (text.find(part) == std::string::npos) {
        std::cerr << "  \"" << text << "\" lacks \"" << part << "\"\n";
        return false;
    }
    return true;
}

} // namespace

TY_TEST(designExampleParses)
{
    const RunSpec s = RunSpec::parse(R"({
      "name": "transe-umls",
      "model": {"type": "transe", "dim": 100, "margin": 1.0, "norm": 1},
      "data":  {"kind": "kg", "path": "/data/UMLS"},
      "train": {"epochs": 50, "max_steps": null, "batch_size": 512, "optimizer": "adam", "lr": 0.001, "seed": 1},
      "eval":  {"every_epochs": 10, "split": "valid"},
      "checkpoint": {"every_steps": 500},
      "report": {"every_steps": 10}
    })");
    TY_CHECK_EQ(s.name, std::string("transe-umls"));
    TY_CHECK_EQ(s.modelType(), std::string("transe"));
    TY_CHECK_EQ(s.intParam("dim"), 100);
    TY_CHECK_EQ(s.floatParam("margin"), 1.0);
    TY_CHECK_EQ(s.dataKind(), std::string("kg"));
    TY_CHECK_EQ(s.epochs, 50);
    TY_CHECK(!s.maxSteps.has_value());
    TY_CHECK_EQ(s.batchSize, 512);
    TY_CHECK_EQ(s.evalEveryEpochs, 10);
    TY_CHECK_EQ(s.checkpointEverySteps, 500);
    TY_CHECK_EQ(s.reportEverySteps, 10);
}

TY_TEST(everyPresetParsesOnceItsDataFolderIsGiven)
{
    const auto &presets = Catalogue::instance().presets();
    TY_REQUIRE(!presets.empty());
    for (const auto &p : presets) {
        auto spec = p.spec;
        TY_CHECK(spec["data"]["path"] == "");
        spec["data"]["path"] = "/data/graph";
        spec["name"] = "preset";
        const RunSpec run = RunSpec::fromJson(spec, p.name);
        TY_CHECK(!p.source.empty());
        TY_CHECK_EQ(run.resolved["model"]["type"], spec["model"]["type"]);
    }
}

TY_TEST(maxSecondsAndEngineAreChecked)
{
    const RunSpec run = RunSpec::parse(R"({"train": {"max_seconds": 160, "engine": "fused"}})");
    TY_CHECK(run.maxSeconds && *run.maxSeconds == 160.0);
    TY_CHECK_EQ(run.engine, std::string("fused"));
    TY_CHECK(!RunSpec::parse("{}").maxSeconds);
    for (const char *bad : {R"({"train": {"max_seconds": 0}})", R"({"train": {"max_seconds": "x"}})",
                            R"({"train": {"engine": "gpu"}})", R"({"model": {"loss": "hinge"}})"}) {
        bool refused = false;
        try {
            RunSpec::parse(bad);
        } catch (const BadInput &e) {
            refused = true;
            std::cout << "  " << e.what() << "\n";
        }
        TY_CHECK(refused);
    }
}

TY_TEST(missingKeysTakeDefaults)
{
    const RunSpec s = RunSpec::parse("{}");
    TY_CHECK_EQ(s.modelType(), std::string("transe"));
    TY_CHECK_EQ(s.dataKind(), std::string("synthetic-kg"));
    const ModelInfo *transe = Catalogue::instance().findModel("transe");
    TY_REQUIRE(transe);
    TY_CHECK_EQ(s.epochs, transe->trainDefaults["epochs"].get<std::int64_t>());
    TY_CHECK_EQ(s.optimizer, std::string("adam"));
    TY_CHECK(s.modelParams.contains("negatives"));
    TY_CHECK(s.resolved["train"].contains("max_steps"));

    const RunSpec cnn = RunSpec::parse(R"({"model": {"type": "mnist-cnn"}, "train": {"max_steps": 7}})");
    TY_CHECK_EQ(cnn.dataKind(), std::string("synthetic-images"));
    TY_CHECK_EQ(*cnn.maxSteps, 7);
    TY_CHECK_EQ(cnn.data["size"].get<int>(), 28);
}

TY_TEST(notJsonIsRejected)
{
    TY_CHECK(contains(errorOf("{\"name\": "), "spec.json: not valid JSON"));
    TY_CHECK(contains(errorOf("[1, 2]"), "must be a JSON object"));
}

TY_TEST(unknownKeysAreNamed)
{
    TY_CHECK(contains(errorOf(R"({"repeat": 2})"), "spec.json: repeat: unknown key"));
    TY_CHECK(contains(errorOf(R"({"train": {"epoch": 2}})"), "train.epoch: unknown key"));
    TY_CHECK(contains(errorOf(R"({"model": {"type": "transe", "kernels": 4}})"), "model.kernels: unknown key"));
    TY_CHECK(contains(errorOf(R"({"data": {"kind": "synthetic-kg", "path": "x"}})"), "data.path: unknown key"));
}

TY_TEST(wrongTypesAreNamed)
{
    TY_CHECK(contains(errorOf(R"({"train": {"lr": "x"}})"), "train.lr: expected a number > 0 and <= 1000, got \"x\""));
    TY_CHECK(contains(errorOf(R"({"train": {"epochs": 2.5}})"), "train.epochs: expected an integer"));
    TY_CHECK(contains(errorOf(R"({"model": {"type": "transe", "normalize_entities": 1}})"),
                      "model.normalize_entities: expected true or false, got 1"));
    TY_CHECK(contains(errorOf(R"({"model": 3})"), "model: expected an object"));
    TY_CHECK(contains(errorOf(R"({"name": 3})"), "name: expected a non-empty string"));
    TY_CHECK(contains(errorOf(R"({"model": {"type": 3}})"), "model.type: expected one of"));
}

TY_TEST(outOfRangeValuesAreNamed)
{
    TY_CHECK(contains(errorOf(R"({"train": {"lr": 0}})"), "train.lr: expected a number > 0"));
    TY_CHECK(contains(errorOf(R"({"train": {"batch_size": 0}})"),
                      "train.batch_size: expected an integer in [1, 1000000], got 0"));
    TY_CHECK(contains(errorOf(R"({"model": {"type": "transe", "dim": 5000}})"),
                      "model.dim: expected an integer in [1, 4096], got 5000"));
    TY_CHECK(
        contains(errorOf(R"({"model": {"type": "transe", "norm": 3}})"), "model.norm: expected one of 1, 2, got 3"));
    TY_CHECK(contains(errorOf(R"({"train": {"optimizer": "rmsprop"}})"),
                      "train.optimizer: expected one of \"adam\", \"sgd\", \"adagrad\", got \"rmsprop\""));
    TY_CHECK(contains(errorOf(R"({"train": {"max_steps": 0}})"), "train.max_steps: expected null or an integer"));
    TY_CHECK(contains(errorOf(R"({"eval": {"split": "train"}})"), "eval.split: expected one of"));
}

TY_TEST(ampAndChannelsLastParse)
{
    const RunSpec plain = RunSpec::parse(R"({"model": {"type": "mnist-cnn"}})");
    TY_CHECK_EQ(plain.amp, std::string("off"));
    TY_CHECK(!plain.channelsLast && !plain.usesChannelsLast());
    TY_CHECK_EQ(plain.resolved["train"]["amp"].get<std::string>(), std::string("off"));
    TY_CHECK_EQ(plain.resolved["train"]["channels_last"].get<bool>(), false);

    const RunSpec cnn =
        RunSpec::parse(R"({"model": {"type": "mnist-cnn"}, "train": {"amp": "bf16", "channels_last": true}})");
    TY_CHECK_EQ(cnn.amp, std::string("bf16"));
    TY_CHECK(cnn.channelsLast && cnn.usesChannelsLast());
    // Accepted everywhere (one train section fits every model), used by mnist-cnn only.
    const RunSpec sacn =
        RunSpec::parse(R"({"model": {"type": "sacn"}, "train": {"amp": "bf16", "channels_last": true}})");
    TY_CHECK(sacn.channelsLast && !sacn.usesChannelsLast());

    TY_CHECK(contains(errorOf(R"({"train": {"amp": "fp8"}})"),
                      "spec.json: train.amp: expected one of \"off\", \"bf16\", got \"fp8\""));
    TY_CHECK(contains(errorOf(R"({"train": {"amp": 3}})"), "train.amp: expected one of \"off\", \"bf16\", got 3"));
    TY_CHECK(contains(errorOf(R"({"train": {"amp": true}})"), "train.amp: expected one of"));
    TY_CHECK(contains(errorOf(R"({"train": {"channels_last": "yes"}})"),
                      "train.channels_last: expected true or false, got \"yes\""));
    TY_CHECK(contains(errorOf(R"({"train": {"channels_last": 1}})"), "train.channels_last: expected true or false"));

    bool listed = false;
    const auto document = Catalogue::instance().toJson();
    for (const auto &p : document["train"]) {
        listed =
            listed || (p["name"] == "amp" && p["default"] == "off" && p["choices"].size() == 2 && !p["help"].empty());
    }
    TY_CHECK(listed);
}

TY_TEST(modelAndDataMustFit)
{
    TY_CHECK(contains(errorOf(R"({"model": {"type": "resnet"}})"), "model.type: expected one of \"transe\""));
    TY_CHECK(
        contains(errorOf(R"({"model": {"type": "torchscript"}})"), "model.path: required for model \"torchscript\""));
    TY_CHECK(
        contains(errorOf(R"({"model": {"type": "torchscript", "path": "m.pt"}, "data": {"kind": "synthetic-kg"}})"),
                 "data.kind: \"synthetic-kg\" holds kg data but model \"torchscript\" needs image data"));
    TY_CHECK(contains(errorOf(R"({"model": {"type": "transe"}, "data": {"kind": "idx"}})"),
                      "data.kind: \"idx\" holds image data but model \"transe\" needs kg data"));
    TY_CHECK(contains(errorOf(R"({"data": {"kind": "kg"}})"), "data.path: required for data kind \"kg\""));
    TY_CHECK(contains(errorOf(R"({"data": {"kind": "csv"}})"), "data.kind: expected one of"));
    TY_CHECK(contains(errorOf(R"({"model": {"type": "mlp"}, "data": {"kind": "idx", "valid_size": 0}})"),
                      "data.valid_size"));
}

TY_TEST(listModelsDocumentHasTheAgreedShape)
{
    const auto doc = Catalogue::instance().toJson();
    TY_CHECK_EQ(doc["version"].get<std::string>(), std::string("0.1.0"));
    TY_CHECK_EQ(doc["protocol"].get<int>(), 1);
    std::vector<std::string> types;
    for (const auto &m : doc["models"]) {
        types.push_back(m["type"]);
        TY_CHECK(m["task"] == "kg" || m["task"] == "image");
        TY_CHECK(m["defaults"]["train"].contains("epochs"));
        TY_CHECK(m["defaults"]["data"].contains("kind"));
        for (const auto &p : m["params"]) {
            const std::string type = p["type"];
            TY_CHECK(type == "int" || type == "float" || type == "bool" || type == "string" || type == "path");
            TY_CHECK(p.contains("default") && p.contains("help") && p.contains("name"));
        }
    }
    TY_CHECK(
        (types
         == std::vector<std::string>{"transe", "transh", "conv-transe", "sacn", "mnist-cnn", "mlp", "torchscript"}));
    TY_CHECK_EQ(doc["data_kinds"].size(), 4u);
    for (const char *section : {"train", "eval", "checkpoint", "report"}) {
        TY_CHECK(doc[section].is_array() && !doc[section].empty());
    }
    bool optimizerChoices = false;
    for (const auto &p : doc["train"]) {
        if (p["name"] == "optimizer") {
            optimizerChoices = p["choices"] == nlohmann::json({"adam", "sgd", "adagrad"});
        }
    }
    TY_CHECK(optimizerChoices);
}

TY_TEST(everyModelsDefaultsValidate)
{
    for (const auto &m : Catalogue::instance().models()) {
        nlohmann::json spec = {{"model", {{"type", m.type}}}, {"train", m.trainDefaults}};
        for (const auto &p : m.params) { // a required path (torchscript's file) has no usable default
            spec["model"][p.name] = p.defaultValue == "" ? nlohmann::json("model.pt") : p.defaultValue;
        }
        TY_CHECK_EQ(errorOf(spec.dump()), std::string());
    }
}

TY_TEST(hugeNumbersAreRangeErrors)
{
    TY_CHECK(contains(errorOf(R"({"train": {"epochs": 18446744073709551615}})"),
                      "spec.json: train.epochs: expected an integer"));
    TY_CHECK(contains(errorOf(R"({"train": {"seed": 18446744029e3372036854775807}})"), "spec.json: "));
    TY_CHECK(contains(errorOf(R"({"train": {"lr": 1e400}})"), "spec.json: "));
}

TY_TEST(resolvedSpecParsesToItself)
{
    for (const auto &m : Catalogue::instance().models()) {
        nlohmann::json model = {{"type", m.type}};
        for (const auto &p : m.params) {
            if (p.defaultValue == "") {
                model[p.name] = "model.pt";
            }
        }
        const RunSpec s = RunSpec::fromJson({{"model", model}});
        const RunSpec again = RunSpec::fromJson(s.resolved, "resolved");
        TY_CHECK(again.resolved == s.resolved);
    }
}

TY_TEST(aNamedRecipeFillsWhatTheSpecLeavesOut)
{
    const RunSpec s =
        RunSpec::parse(R"({"model": {"type": "transe", "recipe": "small", "dim": 32}, "train": {"epochs": 7}})");
    TY_CHECK_EQ(s.recipe, std::string("small"));
    TY_CHECK_EQ(s.stringParam("loss"), std::string("margin")); // the recipe's
    TY_CHECK_EQ(s.intParam("negatives"), 32);
    TY_CHECK(s.boolParam("normalize_entities"));
    TY_CHECK_EQ(s.intParam("dim"), 32); // the spec's own wins
    TY_CHECK_EQ(s.epochs, 7);
    TY_CHECK_EQ(s.lr, 0.1);
    TY_CHECK_EQ(s.optimizer, std::string("adagrad"));
    TY_CHECK_EQ(s.evalEveryEpochs, 50);
    const nlohmann::json values = recipeValues(s);
    TY_CHECK_EQ(values.at("model.loss"), nlohmann::json("margin"));
    TY_CHECK_EQ(values.at("kept").at("model.dim"), nlohmann::json(32));
    TY_CHECK_EQ(values.at("kept").at("train.epochs"), nlohmann::json(7));
    TY_CHECK(!values.contains("model.dim"));
    TY_CHECK(contains(describeRecipe(s), "model.loss=\"margin\""));
    TY_CHECK(contains(describeRecipe(s), "the spec's own: model.dim=32 train.epochs=7"));

    // "none": the model's own defaults; "auto" until the worker settles it.
    const RunSpec none = RunSpec::parse(R"({"model": {"type": "transe", "recipe": "none"}})");
    TY_CHECK_EQ(none.stringParam("loss"), std::string("softmax"));
    TY_CHECK_EQ(none.epochs, 30);
    TY_CHECK(recipeValues(none).empty());
    const RunSpec automatic = RunSpec::parse(R"({"model": {"type": "transe"}})");
    TY_CHECK_EQ(automatic.recipe, std::string("auto"));
    const RunSpec chosen = automatic.withRecipe("large-sparse");
    TY_CHECK_EQ(chosen.stringParam("loss"), std::string("self_adversarial"));
    TY_CHECK_EQ(chosen.batchSize, 512);
    TY_CHECK_EQ(chosen.resolved["model"]["recipe"], nlohmann::json("large-sparse"));
    // A checkpoint of the run fits the same run naming the recipe auto chose.
    TY_CHECK_EQ(chosen.modelKey(),
                RunSpec::parse(R"({"model": {"type": "transe", "recipe": "large-sparse"}})").modelKey());

    TY_CHECK(contains(errorOf(R"({"model": {"type": "transe", "recipe": "huge"}})"),
                      "spec.json: model.recipe: expected one of \"auto\", \"none\", \"small\""));
    TY_CHECK(contains(errorOf(R"({"model": {"type": "sacn", "recipe": "small"}})"), "model.recipe: unknown key"));
}

TY_TEST(autoChoosesTheRecipeFromTheGraph)
{
    // The statistics of the benchmark graphs (their train.txt), and what
    // the measurements of docs/results.md say suits each.
    TY_CHECK_EQ(chooseRecipe({135, 46, 5216}).name, std::string("small"));           // UMLS
    TY_CHECK_EQ(chooseRecipe({104, 25, 8544}).name, std::string("small-dense"));     // Kinship
    TY_CHECK_EQ(chooseRecipe({14, 55, 1592}).name, std::string("small"));            // Nations
    TY_CHECK_EQ(chooseRecipe({14541, 237, 272115}).name, std::string("large"));      // FB15k-237
    TY_CHECK_EQ(chooseRecipe({40943, 11, 86835}).name, std::string("large-sparse")); // WN18RR
    TY_CHECK(contains(chooseRecipe({135, 46, 5216}).reason,
                      "135 entities, 46 relations, 38.6 training triples per entity, density 0.622 %"));
    TY_CHECK_EQ(chooseRecipe({0, 0, 0}).name, std::string("small")); // no division by zero

    // Every model with recipes has each kind the rule can name, and each
    // recipe's values validate.
    for (const auto &m : Catalogue::instance().models()) {
        for (const auto &r : m.recipes) {
            const RunSpec s = RunSpec::fromJson({{"model", {{"type", m.type}, {"recipe", r.name}}}});
            TY_CHECK_EQ(s.recipe, r.name);
        }
        if (!m.recipes.empty()) {
            for (const char *kind : {"small", "small-dense", "large", "large-sparse"}) {
                TY_CHECK(m.findRecipe(kind) != nullptr);
            }
        }
    }
}

TY_TEST(umlsFilesGetTheSmallRecipe)
{
    const char *shared = std::getenv("TRAINYARD_SHARED_DATA");
    const std::string dir = std::string(shared ? shared : "") + "/kg/UMLS";
    if (!shared || ::access((dir + "/train.txt").c_str(), R_OK) != 0) {
        TY_SKIP(dir + " is absent (set TRAINYARD_SHARED_DATA)");
    }
    const KgStats stats = KgStats::of(KgDataset::loadFolder(dir));
    TY_CHECK_EQ(stats.entities, 135);
    TY_CHECK_EQ(stats.trainTriples, 5216);
    TY_CHECK_EQ(chooseRecipe(stats).name, std::string("small"));
}

TY_TEST_MAIN()
