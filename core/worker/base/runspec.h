#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace trainyard {

struct ModelInfo;

// A validated run spec (spec.json) with every default filled in. Parsing
// rejects unknown keys, wrong types and out-of-range values with a BadInput
// whose message names the key path, e.g.
// `train.lr: expected a number > 0, got "x"`.
struct RunSpec
{
    std::string name = "run";

    const ModelInfo *model = nullptr;
    nlohmann::json modelParams; // every parameter of the model, "type" excluded
    nlohmann::json data;        // "kind" and every parameter of that kind

    std::int64_t epochs = 1;
    std::optional<std::int64_t> maxSteps;
    std::optional<double> maxSeconds; // wall-clock budget of the run
    std::string engine = "auto";      // transe/transh: "auto", "fused" or "autograd"
    std::int64_t batchSize = 1;
    std::string optimizer = "adam";
    double lr = 0.001;
    double weightDecay = 0.0;
    std::uint64_t seed = 1;
    std::string amp = "off";   // "off" or "bf16": autocast of the forward pass and loss
    bool channelsLast = false; // as asked; see usesChannelsLast()
    std::string initFrom;      // a checkpoint whose model weights training starts from; empty: none

    std::int64_t evalEveryEpochs = 0;
    std::string evalSplit = "valid";
    std::int64_t evalBatchSize = 256;

    std::int64_t checkpointEverySteps = 0;
    std::int64_t checkpointKeep = 3;

    std::int64_t reportEverySteps = 10;

    // model.recipe as given ("auto", "none" or a recipe's name); empty for a
    // model without recipes. "auto" is settled by withRecipe() once the data
    // is known (worker/base/recipe.h).
    std::string recipe;

    // The spec as the worker understood it, defaults included.
    nlohmann::json resolved;
    // The spec as given (relative paths made absolute by load()).
    nlohmann::json given;
    std::string origin = "spec";

    // `origin` prefixes error messages (usually the file name).
    static RunSpec parse(const std::string &text, const std::string &origin = "spec");
    static RunSpec fromJson(const nlohmann::json &spec, const std::string &origin = "spec");
    static RunSpec load(const std::string &path);

    // This spec with model.recipe set to `name`: the recipe's values for
    // every key the given spec leaves out.
    RunSpec withRecipe(const std::string &name) const;

    // The model section a checkpoint is tied to: the resolved values without
    // "recipe", which only says where they came from (a run of "auto" and one
    // naming the recipe auto chose train the same model).
    std::string modelKey() const;

    const std::string &modelType() const;
    const std::string &task() const;
    std::string dataKind() const { return data.at("kind").get<std::string>(); }

    // train.channels_last applies to models with 2-D convolutions only.
    bool usesChannelsLast() const { return channelsLast && modelType() == "mnist-cnn"; }

    std::int64_t intParam(const char *name) const { return modelParams.at(name).get<std::int64_t>(); }
    double floatParam(const char *name) const { return modelParams.at(name).get<double>(); }
    bool boolParam(const char *name) const { return modelParams.at(name).get<bool>(); }
    std::string stringParam(const char *name) const { return modelParams.at(name).get<std::string>(); }
};

} // namespace trainyard
