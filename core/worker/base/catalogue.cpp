#include "worker/base/catalogue.h"

#include "protocol/protocol.h"
#include "worker/base/recipe.h"

#include <stdexcept>

namespace trainyard {

namespace {

using Type = ParamSpec::Type;
using nlohmann::json;

ParamSpec intParam(std::string name, json def, double min, double max, std::string help)
{
    ParamSpec p;
    p.name = std::move(name);
    p.type = Type::Int;
    p.defaultValue = std::move(def);
    p.min = min;
    p.max = max;
    p.help = std::move(help);
    return p;
}

ParamSpec floatParam(std::string name, double def, double min, double max, std::string help, bool minExclusive = false)
{
    ParamSpec p;
    p.name = std::move(name);
    p.type = Type::Float;
    p.defaultValue = def;
    p.min = min;
    p.max = max;
    p.minExclusive = minExclusive;
    p.help = std::move(help);
    return p;
}

ParamSpec choiceParam(std::string name, Type type, json def, std::vector<json> choices, std::string help)
{
    ParamSpec p;
    p.name = std::move(name);
    p.type = type;
    p.defaultValue = std::move(def);
    p.choices = std::move(choices);
    p.help = std::move(help);
    return p;
}

ParamSpec boolParam(std::string name, bool def, std::string help)
{
    ParamSpec p;
    p.name = std::move(name);
    p.type = Type::Bool;
    p.defaultValue = def;
    p.help = std::move(help);
    return p;
}

ParamSpec pathParam(std::string name, std::string def, std::string help)
{
    ParamSpec p;
    p.name = std::move(name);
    p.type = Type::Path;
    p.defaultValue = std::move(def);
    p.help = std::move(help);
    return p;
}

constexpr double kMaxCount = 1e12;

// Parameters shared by the translational models.
std::vector<ParamSpec> translationalParams(int dim, double margin, int negatives, const char *sampling,
                                           const char *loss)
{
    return {
        intParam("dim", dim, 1, 4096, "embedding size of entities and relations"),
        floatParam("margin", margin, 0.0, 100.0, "margin of the ranking loss max(0, margin + d(pos) - d(neg))"),
        intParam("negatives", negatives, 1, 1024, "corrupted triples per positive (head or tail replaced)"),
        choiceParam("sampling", Type::String, sampling, {"unif", "bern"},
                    "which side to corrupt: unif = head or tail with p=0.5; bern = by the relation's "
                    "tails-per-head / heads-per-tail (Wang et al. 2014)"),
        boolParam("filter_negatives", false,
                  "leave out corrupted triples that are training triples (false negatives, frequent in dense graphs)"),
        choiceParam("loss", Type::String, loss, {"margin", "self_adversarial", "softmax", "1vsall"},
                    "margin: mean max(0, margin + d(pos) - d(neg)); self_adversarial: Sun et al. 2019 with "
                    "gamma = margin, negatives weighted by softmax(-temperature * d); softmax: cross-entropy of "
                    "the positive among its negatives (LibKGE's negative sampling + KL); 1vsall: cross-entropy "
                    "over every entity in both directions (small graphs; autograd engine)"),
        floatParam("temperature", 1.0, 0.0, 100.0, "self_adversarial: the sampling temperature alpha"),
        boolParam("reciprocal", false,
                  "1vsall only (ignored with the other losses): reciprocal relations, a row per inverse relation r "
                  "+ R; a head is predicted as the tail of (t, r + R) (Lacroix et al. 2018) instead of by "
                  "inverting the translation"),
    };
}

std::vector<ParamSpec> convTransEParams()
{
    return {
        intParam("dim", 200, 1, 4096, "embedding size of entities and relations"),
        intParam("kernels", 100, 1, 1024, "convolution channels of the Conv-TransE decoder"),
        choiceParam("kernel_size", Type::Int, 5, {1, 3, 5, 7, 9},
                    "width of the 2xk convolution over the stacked (entity, relation) embeddings"),
        floatParam("input_dropout", 0.2, 0.0, 0.99, "dropout on the stacked input embeddings"),
        floatParam("feature_dropout", 0.2, 0.0, 0.99, "dropout on the convolution feature maps"),
        floatParam("hidden_dropout", 0.3, 0.0, 0.99, "dropout after the projection layer"),
        floatParam("label_smoothing", 0.1, 0.0, 0.99, "label smoothing of the one-to-all BCE targets"),
    };
}

ParamSpec recipeParam(const std::vector<RecipeInfo> &recipes)
{
    std::vector<json> names = {"auto", "none"};
    for (const auto &r : recipes) {
        names.push_back(r.name);
    }
    return choiceParam("recipe", Type::String, "auto", std::move(names),
                       "values for the keys this spec leaves out: a recipe named for the graphs it fits (its "
                       "recipes are listed with the model); auto = the one that fits the run's graph, chosen from "
                       "its entities, relations and training triples when the run starts; none = the defaults "
                       "below");
}

} // namespace

std::string typeName(ParamSpec::Type type)
{
    switch (type) {
    case Type::Int:
        return "int";
    case Type::Float:
        return "float";
    case Type::Bool:
        return "bool";
    case Type::String:
        return "string";
    case Type::Path:
        return "path";
    }
    return "string";
}

json ParamSpec::toJson() const
{
    json j{{"name", name}, {"type", typeName(type)}, {"default", defaultValue}, {"help", help}};
    if (min) {
        if (type == Type::Int) {
            j["min"] = static_cast<long long>(*min);
        } else {
            j["min"] = *min;
        }
    }
    if (max) {
        if (type == Type::Int) {
            j["max"] = static_cast<long long>(*max);
        } else {
            j["max"] = *max;
        }
    }
    if (minExclusive) {
        j["min_exclusive"] = true;
    }
    if (nullable) {
        j["nullable"] = true;
    }
    if (!choices.empty()) {
        j["choices"] = choices;
    }
    return j;
}

Catalogue::Catalogue()
{
    ParamSpec maxSteps = intParam("max_steps", nullptr, 1, kMaxCount,
                                  "stop at this optimizer step even inside an epoch; null: no limit");
    maxSteps.nullable = true;
    ParamSpec maxSeconds = floatParam("max_seconds", 0.0, 0.0, 1e9,
                                      "wall-clock budget of the run in seconds (evaluations included, resumed "
                                      "time counted): when spent, training ends with the final evaluation and "
                                      "checkpoint, status finished; null: no limit",
                                      /*minExclusive=*/true);
    maxSeconds.defaultValue = nullptr;
    maxSeconds.nullable = true;
    ParamSpec initFrom = pathParam("init_from", "",
                                   "a worker checkpoint of the same model section whose weights the model starts from "
                                   "(the optimizer and the step start afresh; a resumed run uses its own checkpoint); "
                                   "\"{after.NAME.checkpoint}\": the last checkpoint of NAME, a run it runs after; "
                                   "null: none");
    initFrom.defaultValue = nullptr;
    initFrom.nullable = true;
    m_train = {
        intParam("epochs", 10, 1, 1e6, "passes over the training data"),
        maxSteps,
        maxSeconds,
        intParam("batch_size", 128, 1, 1e6, "training examples per optimizer step"),
        choiceParam("optimizer", Type::String, "adam", {"adam", "sgd", "adagrad"}, "optimizer"),
        floatParam("lr", 0.001, 0.0, 1e3, "learning rate", /*minExclusive=*/true),
        floatParam("weight_decay", 0.0, 0.0, 1.0, "L2 penalty added by the optimizer"),
        intParam("seed", 1, 0, 9007199254740991.0,
                 "seed of every random choice (init, shuffling, negatives, dropout, synthetic data)"),
        choiceParam("amp", Type::String, "off", {"off", "bf16"},
                    "mixed precision: bf16 autocasts the forward pass and the loss to bfloat16 on the run's device "
                    "(CPU or CUDA); gradients, the optimizer step, the reported loss and evaluation stay fp32"),
        choiceParam("engine", Type::String, "auto", {"auto", "fused", "autograd"},
                    "transe/transh: fused = the CPU kernel that computes loss, gradient and a sparse optimizer "
                    "update of the touched rows directly (no autograd); autograd = LibTorch; auto = fused where it "
                    "applies (CPU, no amp, not 1vsall); other models always use autograd"),
        boolParam("channels_last", false,
                  "mnist-cnn only: keep the convolution weights and every input batch channels-last (NHWC), the "
                  "layout fast GPU convolutions prefer; the other models have no 2-D convolution and ignore it"),
        initFrom,
    };
    m_eval = {
        intParam("every_epochs", 10, 0, 1e6, "evaluate every N epochs and once at the end; 0 turns evaluation off"),
        choiceParam("split", Type::String, "valid", {"valid", "test"}, "which split to evaluate"),
        intParam("batch_size", 256, 1, 1e6, "queries scored at once during evaluation"),
    };
    m_checkpoint = {
        intParam("every_steps", 1000, 0, kMaxCount, "checkpoint every N steps; 0: only on stop and at the end"),
        intParam("keep", 3, 1, 1000, "newest checkpoints kept; older ones are deleted"),
    };
    m_report = {
        intParam("every_steps", 10, 0, kMaxCount,
                 "write a metric line every N steps (the only time the loss is read from the device); 0: never"),
    };

    // Defaults chosen so that the quality runs of docs/results.md reach the
    // published neighbourhood on CPU in minutes; see docs/models.md.
    {
        ModelInfo m;
        m.type = "transe";
        m.task = "kg";
        m.description =
            "TransE (Bordes et al. 2013): h + r ~ t under the L1 or L2 distance; trained by the recipe that fits "
            "the graph (the paper's margin loss on small graphs, a sampled softmax on FB15k-237-like ones, "
            "self-adversarial negatives on sparse ones) unless the spec says otherwise";
        // The defaults (recipe "none") are the FB15k-237 recipe of
        // docs/results.md; "auto" picks the recipe that fits the graph.
        m.params = translationalParams(/*dim=*/200, /*margin=*/4.0, /*negatives=*/256, "bern", "softmax");
        m.params.insert(m.params.begin() + 1, choiceParam("norm", Type::Int, 2, {1, 2}, "distance: 1 = L1, 2 = L2"));
        m.params.push_back(boolParam("normalize_entities", false,
                                     "rescale entity embeddings to unit L2 norm before each step, as in the paper "
                                     "(with the margin loss)"));
        m.trainDefaults = {{"epochs", 30}, {"batch_size", 256}, {"optimizer", "adam"}, {"lr", 0.001}};
        m.evalDefaults = {{"every_epochs", 5}};
        m.defaultDataKind = "synthetic-kg";
        m.recipes = kgRecipes("transe");
        m.params.insert(m.params.begin(), recipeParam(m.recipes));
        m_models.push_back(std::move(m));
    }
    {
        ModelInfo m;
        m.type = "transh";
        m.task = "kg";
        m.description = "TransH (Wang et al. 2014): translation on relation-specific hyperplanes, squared L2, "
                        "soft norm and orthogonality constraints";
        m.params = translationalParams(/*dim=*/100, /*margin=*/4.0, /*negatives=*/8, "bern", "margin");
        m.params.insert(m.params.begin() + 1,
                        choiceParam("norm", Type::Int, 1, {1, 2}, "distance: 1 = L1, 2 = squared L2 (the paper's)"));
        m.params.insert(m.params.begin() + 2,
                        boolParam("squared", true,
                                  "with norm 2: the squared L2 distance (the paper's); false: plain L2, as TransE's"));
        m.params.push_back(floatParam("constraint_weight", 0.0625, 0.0, 100.0,
                                      "weight C of the soft constraints ||e|| <= 1 and w_r . d_r ~ 0"));
        m.params.push_back(floatParam("epsilon", 0.001, 0.0, 1.0,
                                      "tolerance of the orthogonality constraint (w_r . d_r)^2 / ||d_r||^2 <= eps^2"));
        m.trainDefaults = {{"epochs", 100}, {"batch_size", 256}, {"optimizer", "adam"}, {"lr", 0.005}};
        m.evalDefaults = {{"every_epochs", 25}};
        m.defaultDataKind = "synthetic-kg";
        m.recipes = kgRecipes("transh");
        m.params.insert(m.params.begin(), recipeParam(m.recipes));
        m_models.push_back(std::move(m));
    }
    {
        ModelInfo m;
        m.type = "conv-transe";
        m.task = "kg";
        m.description = "Conv-TransE (Shang et al. 2019): convolution over stacked entity and relation embeddings, "
                        "scored against every entity (one-to-all), BCE with label smoothing";
        m.params = convTransEParams();
        m.trainDefaults = {{"epochs", 100}, {"batch_size", 128}, {"optimizer", "adam"}, {"lr", 0.003}};
        m.evalDefaults = {{"every_epochs", 20}};
        m.defaultDataKind = "synthetic-kg";
        m_models.push_back(std::move(m));
    }
    {
        ModelInfo m;
        m.type = "sacn";
        m.task = "kg";
        m.description = "SACN (Shang et al. 2019): weighted GCN encoder over the training graph (one learnt weight "
                        "per relation) and the Conv-TransE decoder";
        m.params = convTransEParams();
        m.params.push_back(
            intParam("init_dim", 100, 1, 4096, "size of the entity features fed to the first GCN layer"));
        m.params.push_back(intParam("gcn_layers", 2, 1, 4, "weighted GCN layers (the last outputs `dim`)"));
        m.params.push_back(floatParam("gcn_dropout", 0.2, 0.0, 0.99, "dropout after each GCN layer"));
        m.trainDefaults = {{"epochs", 100}, {"batch_size", 128}, {"optimizer", "adam"}, {"lr", 0.003}};
        m.evalDefaults = {{"every_epochs", 20}};
        m.defaultDataKind = "synthetic-kg";
        m_models.push_back(std::move(m));
    }
    {
        ModelInfo m;
        m.type = "mnist-cnn";
        m.task = "image";
        m.description = "The pytorch/examples MNIST net: conv 3x3x32, conv 3x3x64, max-pool 2, dropout, "
                        "linear to `hidden`, dropout, linear to the classes";
        m.params = {
            intParam("hidden", 128, 1, 65536, "units of the first linear layer"),
            floatParam("dropout1", 0.25, 0.0, 0.99, "dropout after the pooling"),
            floatParam("dropout2", 0.5, 0.0, 0.99, "dropout after the first linear layer"),
        };
        m.trainDefaults = {{"epochs", 2}, {"batch_size", 64}, {"optimizer", "adam"}, {"lr", 0.001}};
        m.evalDefaults = {{"every_epochs", 1}};
        m.defaultDataKind = "synthetic-images";
        m_models.push_back(std::move(m));
    }
    {
        ModelInfo m;
        m.type = "mlp";
        m.task = "image";
        m.description = "Multi-layer perceptron on the flattened image: `layers` hidden ReLU layers with dropout";
        m.params = {
            intParam("hidden", 256, 1, 65536, "units of each hidden layer"),
            intParam("layers", 2, 0, 16, "hidden layers (0: a linear classifier)"),
            floatParam("dropout", 0.2, 0.0, 0.99, "dropout after each hidden layer"),
        };
        m.trainDefaults = {{"epochs", 5}, {"batch_size", 128}, {"optimizer", "adam"}, {"lr", 0.001}};
        m.evalDefaults = {{"every_epochs", 1}};
        m.defaultDataKind = "synthetic-images";
        m_models.push_back(std::move(m));
    }
    {
        // Bring your own model: the contract is in docs/models.md.
        ModelInfo m;
        m.type = "torchscript";
        m.task = "image";
        m.description = "Your own TorchScript module (torch.jit.script(...).save(path)): forward(x [N,1,H,W] float) "
                        "-> logits [N, classes]; trained with cross-entropy, or with its own loss(logits, target)";
        m.params = {
            pathParam("path", "", "the .pt file saved by torch.jit.save (required; relative to the spec file)"),
        };
        m.trainDefaults = {{"epochs", 5}, {"batch_size", 64}, {"optimizer", "adam"}, {"lr", 0.001}};
        m.evalDefaults = {{"every_epochs", 1}};
        m.defaultDataKind = "synthetic-images";
        m_models.push_back(std::move(m));
    }

    addPresets();
    m_dataKinds = {
        {"kg",
         "kg",
         "a folder with train.txt, valid.txt, test.txt: one head<TAB>relation<TAB>tail per line",
         {pathParam("path", "", "the folder (required)")}},
        {"synthetic-kg",
         "kg",
         "a generated graph whose relations are translations along a hidden order of the entities "
         "(learnable), deterministic from train.seed; split 80/10/10",
         {intParam("entities", 200, 2, 1e7, "entities"), intParam("relations", 10, 1, 1e5, "relations"),
          intParam("triples", 4000, 10, 1e8, "triples before the split")}},
        {"idx",
         "image",
         "a folder with MNIST-format IDX files train-images-idx3-ubyte, train-labels-idx1-ubyte, "
         "t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte (each raw or .gz)",
         {pathParam("path", "/usr/share/datasets/fashion-mnist", "the folder"),
          intParam("valid_size", 5000, 0, 1e7, "last training images held out as the valid split")}},
        {"synthetic-images",
         "image",
         "generated images: one random prototype per class plus noise, deterministic from train.seed; split 80/10/10",
         {intParam("samples", 2000, 10, 1e7, "images before the split"), intParam("classes", 10, 2, 1000, "classes"),
          intParam("size", 28, 6, 256, "width and height in pixels")}},
    };
}

void Catalogue::addPresets()
{
    // Each is documented, with its measurement, in docs/models.md#presets
    // and docs/results.md; tst_runspec checks that every preset parses.
    // The KG presets are their models' recipes for that benchmark, named.
    const json kg = {{"kind", "kg"}, {"path", ""}};
    const auto add = [this, &kg](std::string name, std::string source, json model, json train, json eval) {
        m_presets.push_back(
            {std::move(name),
             std::move(source),
             {{"model", std::move(model)}, {"data", kg}, {"train", std::move(train)}, {"eval", std::move(eval)}}});
    };
    const auto addRecipe = [this, &add](std::string name, std::string source, const std::string &type,
                                        const std::string &recipeName, const json &trainOverrides = json::object()) {
        const RecipeInfo *recipe = findModel(type)->findRecipe(recipeName);
        json model = recipe->model;
        model["type"] = type;
        json train = recipe->train;
        train.update(trainOverrides);
        add(std::move(name), std::move(source), std::move(model), std::move(train), recipe->eval);
    };
    addRecipe("TransE · FB15k-237",
              "LibKGE's TransE recipe (negative sampling with the KL loss, L2; Broscheit et al. 2020, uma-pi1/kge) "
              "at dim 200 with 256 negatives; Trainyard's measurement in docs/results.md",
              "transe", "large", {{"epochs", 100}});
    addRecipe("TransE · WN18RR",
              "RotatE's self-adversarial negative sampling (Sun et al. 2019) with TransE's L1 distance, gamma 6; "
              "docs/results.md",
              "transe", "large-sparse");
    addRecipe("TransH · FB15k-237",
              "TransH (Wang et al. 2014) with plain L2 on the relation's hyperplane, trained with LibKGE's sampled "
              "softmax as TransE · FB15k-237; docs/results.md",
              "transh", "large");
    addRecipe("TransH · WN18RR",
              "TransH (Wang et al. 2014) with its L1 distance on the relation's hyperplane, trained with RotatE's "
              "self-adversarial negatives (gamma 6); docs/results.md",
              "transh", "large-sparse");
    addRecipe("TransE · UMLS",
              "Bordes et al. 2013 (L1, margin, unit-norm entities) with Bernoulli negatives (Wang et al. 2014), "
              "tuned here; docs/results.md",
              "transe", "small");
    addRecipe("TransE · Kinship",
              "TransE (L1) trained 1-vs-all (cross-entropy over every entity, both directions) with reciprocal "
              "relations; docs/results.md",
              "transe", "small-dense");
    addRecipe("TransH · Kinship",
              "TransH (Wang et al. 2014, L1) trained 1-vs-all (cross-entropy over every entity, both directions), "
              "which suits a dense graph of 104 entities; docs/results.md",
              "transh", "small-dense");
    // Full quality needs a GPU: an epoch of FB15k-237 takes ~5 min (SACN) and
    // ~2 min (Conv-TransE) on two CPU threads (bench/worker/bench-onetoall.sh).
    add("SACN · FB15k-237",
        "SACN (Shang et al. 2019) at the paper's settings and its code's 1,000 epochs (batch 128, Adam 0.003); "
        "published test MRR 0.35; for a GPU; docs/results.md",
        {{"type", "sacn"}}, {{"epochs", 1000}, {"batch_size", 128}, {"optimizer", "adam"}, {"lr", 0.003}},
        {{"every_epochs", 50}});
    add("Conv-TransE · FB15k-237",
        "Conv-TransE (Shang et al. 2019), SACN's decoder alone, at the same settings; published test MRR 0.33; "
        "for a GPU; docs/results.md",
        {{"type", "conv-transe"}}, {{"epochs", 1000}, {"batch_size", 128}, {"optimizer", "adam"}, {"lr", 0.003}},
        {{"every_epochs", 50}});
    add("SACN · UMLS",
        "SACN (Shang et al. 2019) at the paper's settings except batch 32, which learns faster on a small graph; "
        "docs/results.md",
        {{"type", "sacn"}}, {{"epochs", 250}, {"batch_size", 32}}, {{"every_epochs", 50}});
}

const Catalogue &Catalogue::instance()
{
    static const Catalogue catalogue;
    return catalogue;
}

const RecipeInfo *ModelInfo::findRecipe(const std::string &name) const
{
    for (const auto &r : recipes) {
        if (r.name == name) {
            return &r;
        }
    }
    return nullptr;
}

const ModelInfo *Catalogue::findModel(const std::string &type) const
{
    for (const auto &m : m_models) {
        if (m.type == type) {
            return &m;
        }
    }
    return nullptr;
}

const DataKindInfo *Catalogue::findDataKind(const std::string &kind) const
{
    for (const auto &d : m_dataKinds) {
        if (d.kind == kind) {
            return &d;
        }
    }
    return nullptr;
}

const std::vector<std::string> &Catalogue::sectionNames()
{
    static const std::vector<std::string> names = {"train", "eval", "checkpoint", "report"};
    return names;
}

const std::vector<ParamSpec> &Catalogue::section(const std::string &name) const
{
    if (name == "train") {
        return m_train;
    }
    if (name == "eval") {
        return m_eval;
    }
    if (name == "checkpoint") {
        return m_checkpoint;
    }
    if (name == "report") {
        return m_report;
    }
    throw std::logic_error("no spec section " + name);
}

json Catalogue::toJson() const
{
    auto list = [](const std::vector<ParamSpec> &params) {
        json a = json::array();
        for (const auto &p : params) {
            a.push_back(p.toJson());
        }
        return a;
    };
    json models = json::array();
    for (const auto &m : m_models) {
        json defaults{{"train", m.trainDefaults}, {"data", {{"kind", m.defaultDataKind}}}};
        if (!m.evalDefaults.empty()) {
            defaults["eval"] = m.evalDefaults;
        }
        json model{{"type", m.type},
                   {"task", m.task},
                   {"description", m.description},
                   {"params", list(m.params)},
                   {"defaults", defaults}};
        if (!m.recipes.empty()) {
            json recipes = json::array();
            for (const auto &r : m.recipes) {
                recipes.push_back(
                    {{"name", r.name}, {"fits", r.fits}, {"model", r.model}, {"train", r.train}, {"eval", r.eval}});
            }
            model["recipes"] = recipes;
        }
        models.push_back(std::move(model));
    }
    json kinds = json::array();
    for (const auto &d : m_dataKinds) {
        kinds.push_back(
            {{"kind", d.kind}, {"task", d.task}, {"description", d.description}, {"params", list(d.params)}});
    }
    json presets = json::array();
    for (const auto &p : m_presets) {
        presets.push_back({{"name", p.name}, {"source", p.source}, {"spec", p.spec}});
    }
    return {{"version", TRAINYARD_VERSION},
            {"presets", presets},
            {"protocol", protocol::kVersion},
            {"models", models},
            {"data_kinds", kinds},
            {"train", list(m_train)},
            {"eval", list(m_eval)},
            {"checkpoint", list(m_checkpoint)},
            {"report", list(m_report)}};
}

} // namespace trainyard
