#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace trainyard {

class KgDataset;
struct RecipeInfo;
struct RunSpec;

// What "recipe": "auto" looks at: a graph's size and how full its
// (head, relation, tail) tensor is.
struct KgStats
{
    std::int64_t entities = 0; // every entity of the three splits
    std::int64_t relations = 0;
    std::int64_t trainTriples = 0;

    static KgStats of(const KgDataset &data);

    double triplesPerEntity() const;
    // Training triples over entities x entities x relations: the share of
    // the tensor that is true, which is how many true answers a sampled
    // negative hits.
    double density() const;
};

// The recipe "auto" picks for a graph and why, in words a user can check.
struct RecipeChoice
{
    std::string name;   // a RecipeInfo name: small, small-dense, large, large-sparse
    std::string reason; // "135 entities, 46 relations, 38.6 training triples per entity, density 0.62 %"
};

// The rule, from the measurements of docs/results.md: on graphs of at most
// 2,000 entities the sampled losses overfit and hit true answers, so the
// margin loss wins there (UMLS, Nations) unless the tensor is dense (>= 2 %)
// and the entities more than the margin recipe's negatives cover (> 50,
// Kinship), where scoring every entity (1vsall) wins; on larger graphs the sampled
// softmax wins with many triples per entity (>= 5, FB15k-237) and
// self-adversarial sampling with few (WN18RR).
RecipeChoice chooseRecipe(const KgStats &stats);

// The recipes of a model, one for each kind of graph chooseRecipe names
// (the catalogue's ModelInfo::recipes); none for a model without.
std::vector<RecipeInfo> kgRecipes(const std::string &modelType);

// The values a spec's recipe gave it, by dotted key ("model.loss"): an
// object of the keys the recipe sets and the spec left out, and under
// "kept" those the spec set itself (its value wins). Empty when the spec
// names no recipe.
nlohmann::json recipeValues(const RunSpec &spec);
// The same in words for the log: `model.loss="margin" model.dim=100 ...;
// the spec's own: model.dim=32`.
std::string describeRecipe(const RunSpec &spec);

// The data a KG spec trains on, loaded in full (what the worker does at its
// start), or generated for synthetic-kg. Throws BadInput.
KgDataset loadKgData(const RunSpec &spec);

} // namespace trainyard
