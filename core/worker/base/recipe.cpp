#include "worker/base/recipe.h"

#include "worker/base/catalogue.h"
#include "worker/base/kgdataset.h"
#include "worker/base/runspec.h"

#include <cstdio>

namespace trainyard {

namespace {

constexpr std::int64_t kSmallGraphEntities = 2000;
// Up to this many entities the margin recipe's 32 negatives per positive
// already cover most of them, so scoring every entity adds nothing.
constexpr std::int64_t kTinyGraphEntities = 50;
constexpr double kDenseShare = 0.02;
constexpr double kManyTriplesPerEntity = 5.0;

using nlohmann::json;

// The recipes of the translational models, one per kind of graph
// (chooseRecipe below classifies a graph). Each is the best
// configuration measured on its benchmark (docs/results.md); the same values
// are the palette's presets of that benchmark.
std::vector<RecipeInfo> transERecipes()
{
    return {
        {"small",
         "the paper's margin loss over unit-norm entities (L1, dim 100, 32 filtered Bernoulli negatives), "
         "row-wise Adagrad, 300 epochs: UMLS test MRR 0.845 (8 seeds)",
         {{"dim", 100},
          {"norm", 1},
          {"loss", "margin"},
          {"margin", 4.0},
          {"negatives", 32},
          {"normalize_entities", true},
          {"filter_negatives", true}},
         {{"epochs", 300}, {"batch_size", 256}, {"optimizer", "adagrad"}, {"lr", 0.1}},
         {{"every_epochs", 50}}},
        {"small-dense",
         "cross-entropy over every entity in both directions (1vsall, L1, dim 100) with reciprocal relations, 100 "
         "epochs: Kinship test MRR 0.474 (3 seeds)",
         {{"dim", 100}, {"norm", 1}, {"loss", "1vsall"}, {"reciprocal", true}, {"normalize_entities", false}},
         {{"epochs", 100}, {"batch_size", 128}, {"optimizer", "adam"}, {"lr", 0.01}},
         {{"every_epochs", 50}}},
        {"large",
         "LibKGE's sampled softmax over 256 Bernoulli negatives (L2, dim 200), 30 epochs; FB15k-237 test MRR 0.315 in "
         "600 s",
         {{"dim", 200}, {"norm", 2}, {"loss", "softmax"}, {"negatives", 256}, {"normalize_entities", false}},
         {{"epochs", 30}, {"batch_size", 256}, {"optimizer", "adam"}, {"lr", 0.001}},
         {{"every_epochs", 5}}},
        {"large-sparse",
         "RotatE's self-adversarial negatives (L1, gamma 6, 128 negatives, dim 200), batch 512: WN18RR test MRR "
         "0.219 in 600 s",
         {{"dim", 200},
          {"norm", 1},
          {"loss", "self_adversarial"},
          {"margin", 6.0},
          {"temperature", 1.0},
          {"negatives", 128},
          {"normalize_entities", false}},
         {{"epochs", 100}, {"batch_size", 512}, {"optimizer", "adam"}, {"lr", 0.001}},
         {{"every_epochs", 10}}},
    };
}

std::vector<RecipeInfo> transHRecipes()
{
    const json sparse = {{"dim", 200},         {"norm", 1},        {"loss", "self_adversarial"}, {"margin", 6.0},
                         {"temperature", 1.0}, {"negatives", 128}, {"constraint_weight", 0.0}};
    const json batch512 = {{"epochs", 100}, {"batch_size", 512}, {"optimizer", "adam"}, {"lr", 0.001}};
    return {
        {"small",
         "the margin loss with soft constraints (L1, dim 100, 8 Bernoulli negatives), row-wise Adagrad, 100 "
         "epochs: UMLS test MRR 0.833 (3 seeds)",
         {{"dim", 100}, {"norm", 1}, {"loss", "margin"}, {"margin", 4.0}, {"negatives", 8}},
         {{"epochs", 100}, {"batch_size", 256}, {"optimizer", "adagrad"}, {"lr", 0.1}},
         {{"every_epochs", 25}}},
        {"small-dense",
         "cross-entropy over every entity in both directions (1vsall, L1, dim 100), 200 epochs: Kinship test MRR "
         "0.458",
         {{"dim", 100}, {"norm", 1}, {"loss", "1vsall"}},
         {{"epochs", 200}, {"batch_size", 128}, {"optimizer", "adam"}, {"lr", 0.003}},
         {{"every_epochs", 50}}},
        {"large",
         "LibKGE's sampled softmax over 256 Bernoulli negatives with plain L2 (dim 200, no constraints), as "
         "TransE's: FB15k-237 test MRR 0.311 in 600 s",
         {{"dim", 200},
          {"norm", 2},
          {"squared", false},
          {"loss", "softmax"},
          {"negatives", 256},
          {"constraint_weight", 0.0}},
         {{"epochs", 30}, {"batch_size", 256}, {"optimizer", "adam"}, {"lr", 0.001}},
         {{"every_epochs", 5}}},
        {"large-sparse",
         "RotatE's self-adversarial negatives (L1, gamma 6, 128 negatives, dim 200, no constraints), batch 512: "
         "WN18RR test MRR 0.207 in 600 s",
         sparse,
         batch512,
         {{"every_epochs", 10}}},
    };
}

} // namespace

std::vector<RecipeInfo> kgRecipes(const std::string &modelType)
{
    if (modelType == "transe") {
        return transERecipes();
    }
    if (modelType == "transh") {
        return transHRecipes();
    }
    return {};
}

KgStats KgStats::of(const KgDataset &data)
{
    return {data.entityCount(), data.relationCount(), static_cast<std::int64_t>(data.train.size() / 3)};
}

double KgStats::triplesPerEntity() const
{
    return entities > 0 ? static_cast<double>(trainTriples) / static_cast<double>(entities) : 0.0;
}

double KgStats::density() const
{
    const double cells = static_cast<double>(entities) * static_cast<double>(entities) * static_cast<double>(relations);
    return cells > 0 ? static_cast<double>(trainTriples) / cells : 0.0;
}

RecipeChoice chooseRecipe(const KgStats &stats)
{
    char reason[200];
    std::snprintf(reason, sizeof reason,
                  "%lld entities, %lld relations, %.1f training triples per entity, density %.3g %%",
                  static_cast<long long>(stats.entities), static_cast<long long>(stats.relations),
                  stats.triplesPerEntity(), 100.0 * stats.density());
    std::string name;
    if (stats.entities <= kSmallGraphEntities) {
        name = stats.density() >= kDenseShare && stats.entities > kTinyGraphEntities ? "small-dense" : "small";
    } else {
        name = stats.triplesPerEntity() >= kManyTriplesPerEntity ? "large" : "large-sparse";
    }
    return {name, reason};
}

nlohmann::json recipeValues(const RunSpec &spec)
{
    const RecipeInfo *recipe = spec.model->findRecipe(spec.recipe);
    if (!recipe) {
        return nlohmann::json::object();
    }
    nlohmann::json used = nlohmann::json::object();
    nlohmann::json kept = nlohmann::json::object();
    const std::pair<const char *, const nlohmann::json *> sections[] = {
        {"model", &recipe->model}, {"train", &recipe->train}, {"eval", &recipe->eval}};
    for (const auto &[section, values] : sections) {
        const auto given = spec.given.find(section);
        for (const auto &item : values->items()) {
            const bool own = given != spec.given.end() && given->is_object() && given->contains(item.key());
            (own ? kept : used)[std::string(section) + "." + item.key()] = spec.resolved[section][item.key()];
        }
    }
    if (!kept.empty()) {
        used["kept"] = kept;
    }
    return used;
}

std::string describeRecipe(const RunSpec &spec)
{
    const nlohmann::json values = recipeValues(spec);
    auto join = [](const nlohmann::json &object) {
        std::string text;
        for (const auto &item : object.items()) {
            if (item.key() != "kept") {
                text += (text.empty() ? "" : " ") + item.key() + "=" + item.value().dump();
            }
        }
        return text;
    };
    std::string text = join(values);
    if (const auto kept = values.find("kept"); kept != values.end()) {
        text += "; the spec's own: " + join(*kept);
    }
    return text;
}

KgDataset loadKgData(const RunSpec &spec)
{
    if (spec.dataKind() == "kg") {
        return KgDataset::loadFolder(spec.data["path"].get<std::string>());
    }
    return KgDataset::synthetic(spec.data["entities"].get<std::int64_t>(), spec.data["relations"].get<std::int64_t>(),
                                spec.data["triples"].get<std::int64_t>(), spec.seed);
}

} // namespace trainyard
