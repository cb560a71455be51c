#include "commands/workercatalogue.h"

#include "commandline.h"

namespace trainyard {

std::optional<ModelCatalogue> workerCatalogue(const QString &workerProgram)
{
    if (workerProgram.isEmpty()) {
        return std::nullopt;
    }
    ModelCatalogueLoader loader;
    QString error;
    auto catalogue = loader.loadBlocking(workerProgram, &error);
    if (!catalogue) {
        printWarning(QStringLiteral("%1; run specs get structural checks only (each worker checks its spec as its run "
                                    "starts)")
                         .arg(error));
    }
    return catalogue;
}

} // namespace trainyard
