#include "worker/base/runcheck.h"

#include "protocol/exitcode.h"
#include "worker/base/badinput.h"
#include "worker/base/imagedataset.h"
#include "worker/base/kgdataset.h"
#include "worker/base/runspec.h"

#include <iostream>

namespace trainyard {

int checkRun(const std::string &specPath)
{
    try {
        const RunSpec spec = RunSpec::load(specPath);
        const std::string kind = spec.dataKind();
        if (kind == "kg")
            KgDataset::checkFolder(spec.data["path"].get<std::string>());
        else if (kind == "idx")
            ImageDataset::checkIdxFolder(spec.data["path"].get<std::string>());
        // The synthetic kinds are generated: their parameters were checked with the spec.
    } catch (const BadInput &e) {
        std::cerr << "trainyard-worker: " << e.what() << std::endl;
        return protocol::toInt(protocol::ExitCode::BadInput);
    }
    return protocol::toInt(protocol::ExitCode::Finished);
}

} // namespace trainyard
