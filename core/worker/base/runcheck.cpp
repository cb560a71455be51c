#include "worker/base/runcheck.h"

#include "protocol/exitcode.h"
#include "worker/base/badinput.h"
#include "worker/base/imagedataset.h"
#include "worker/base/kgdataset.h"
#include "worker/base/recipe.h"
#include "worker/base/runspec.h"

#include <iostream>

namespace trainyard {

int checkRun(const std::string &specPath)
{
    try {
        RunSpec spec = RunSpec::load(specPath);
        const std::string kind = spec.dataKind();
        if (!spec.recipe.empty()) {
            // The recipe "auto" chooses for this graph (the run gets it when
            // its spec says "auto"): it needs the whole graph, which the
            // loader checks on the way.
            const RecipeChoice choice = chooseRecipe(KgStats::of(loadKgData(spec)));
            if (spec.recipe == "auto") {
                spec = spec.withRecipe(choice.name);
            }
            const nlohmann::json line = {
                {"recipe", choice.name}, {"reason", choice.reason}, {"values", recipeValues(spec)}};
            std::cout << line.dump() << std::endl;
        } else if (kind == "kg") {
            KgDataset::checkFolder(spec.data["path"].get<std::string>());
        } else if (kind == "idx") {
            ImageDataset::checkIdxFolder(spec.data["path"].get<std::string>());
        }
        // The synthetic kinds are generated: their parameters were checked with the spec.
    } catch (const BadInput &e) {
        std::cerr << "trainyard-worker: " << e.what() << std::endl;
        return protocol::toInt(protocol::ExitCode::BadInput);
    }
    return protocol::toInt(protocol::ExitCode::Finished);
}

} // namespace trainyard
