#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace trainyard {

// One tunable value of a spec section: its type, default and allowed range.
// The run spec validator and `--list-models` both read these, so what the
// worker accepts and what it advertises can never drift apart.
struct ParamSpec
{
    enum class Type {
        Int,
        Float,
        Bool,
        String,
        Path
    };

    std::string name;
    Type type = Type::Int;
    nlohmann::json defaultValue; // null when `nullable` and unset
    std::optional<double> min;
    std::optional<double> max;
    bool minExclusive = false;
    bool nullable = false;
    std::vector<nlohmann::json> choices;
    std::string help;

    nlohmann::json toJson() const;
};

std::string typeName(ParamSpec::Type type);

// A training recipe of a model: values for the keys a spec leaves out, fit
// for one kind of graph. A spec names one with model.recipe, or "auto" lets
// the worker choose from the graph's statistics when the run starts
// (worker/base/recipe.h); keys the spec sets always win (docs/models.md).
struct RecipeInfo
{
    std::string name; // the kind of graph it fits: "small", "small-dense", "large", "large-sparse"
    std::string fits; // what it trains with and what it was measured at
    nlohmann::json model;
    nlohmann::json train;
    nlohmann::json eval;
};

// A model the worker can train.
struct ModelInfo
{
    std::string type;
    std::string task; // "kg" or "image": which data kinds fit
    std::string description;
    std::vector<ParamSpec> params;
    nlohmann::json trainDefaults; // overrides of the global train defaults
    nlohmann::json evalDefaults;  // overrides of the global eval defaults
    std::string defaultDataKind;
    std::vector<RecipeInfo> recipes; // empty: the model has no recipe key

    const RecipeInfo *findRecipe(const std::string &name) const;
};

// A kind of data source.
struct DataKindInfo
{
    std::string kind;
    std::string task;
    std::string description;
    std::vector<ParamSpec> params;
};

// Every model, data kind and spec section the worker knows, with defaults and
// ranges. Built once; read-only.
// A published configuration offered in the palette ("TransE · FB15k-237"):
// a partial run spec (its data path left to the user) and where it comes from.
struct PresetInfo
{
    std::string name;
    std::string source; // the paper or library, and what Trainyard measured with it
    nlohmann::json spec;
};

class Catalogue
{
public:
    static const Catalogue &instance();

    const std::vector<ModelInfo> &models() const { return m_models; }
    const std::vector<DataKindInfo> &dataKinds() const { return m_dataKinds; }
    const std::vector<PresetInfo> &presets() const { return m_presets; }
    const ModelInfo *findModel(const std::string &type) const;
    const DataKindInfo *findDataKind(const std::string &kind) const;

    // Sections "train", "eval", "checkpoint", "report".
    const std::vector<ParamSpec> &section(const std::string &name) const;
    static const std::vector<std::string> &sectionNames();

    // The `--list-models` document (format fixed in the project's notes).
    nlohmann::json toJson() const;

private:
    Catalogue();

    std::vector<ModelInfo> m_models;
    std::vector<DataKindInfo> m_dataKinds;
    std::vector<PresetInfo> m_presets;

    void addPresets();
    std::vector<ParamSpec> m_train;
    std::vector<ParamSpec> m_eval;
    std::vector<ParamSpec> m_checkpoint;
    std::vector<ParamSpec> m_report;
};

} // namespace trainyard
