#include "workercatalogue.h"

#include "commandline.h"

namespace trainyard {

std::optional<ModelCatalog> workerCatalogue(const QString &workerProgram)
{
    if (workerProgram.isEmpty())
        return std::nullopt;
    ModelCatalogLoader loader;
    QString error;
    auto catalog = loader.loadBlocking(workerProgram, &error);
    if (!catalog)
        printWarning(QStringLiteral("%1; run specs get structural checks only (each worker checks its spec as its run "
                                    "starts)")
                         .arg(error));
    return catalog;
}

} // namespace trainyard
