// Fuzz target: the knowledge-graph loader (train/valid/test.txt, tab-separated
// head, relation, tail) and the index the trainer builds from it. Bytes are
// split at the first two form feeds into the three files, which are written
// to a scratch folder and read with KgDataset::loadFolder, the worker's own
// entry point. Every outcome is a dataset with consistent ids or a BadInput.

#include "worker/base/badinput.h"
#include "worker/base/kgdataset.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

std::string scratchDir()
{
    static const std::string dir = [] {
        char pattern[] = "/tmp/fuzz-kg-XXXXXX";
        const char *made = ::mkdtemp(pattern);
        if (!made) {
            std::abort();
        }
        return std::string(made);
    }();
    return dir;
}

void writeFile(const std::string &path, const std::string &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void checkIds(const std::vector<std::int64_t> &triples, const trainyard::KgDataset &kg)
{
    if (triples.size() % 3 != 0) {
        std::abort();
    }
    for (std::size_t i = 0; i < triples.size(); i += 3) {
        if (triples[i] < 0 || triples[i] >= kg.entityCount() || triples[i + 2] < 0 || triples[i + 2] >= kg.entityCount()
            || triples[i + 1] < 0 || triples[i + 1] >= kg.relationCount()) {
            std::abort();
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string all(reinterpret_cast<const char *>(data), size);
    std::string parts[3];
    std::size_t start = 0;
    for (int i = 0; i < 3; ++i) {
        const std::size_t ff = i < 2 ? all.find('\f', start) : std::string::npos;
        parts[i] = all.substr(start, ff == std::string::npos ? std::string::npos : ff - start);
        if (ff == std::string::npos) {
            start = all.size();
        } else {
            start = ff + 1;
        }
    }
    const std::string dir = scratchDir();
    writeFile(dir + "/train.txt", parts[0]);
    writeFile(dir + "/valid.txt", parts[1]);
    writeFile(dir + "/test.txt", parts[2]);
    try {
        const trainyard::KgDataset kg = trainyard::KgDataset::loadFolder(dir);
        if (kg.train.empty() || kg.entities.empty() || kg.relations.empty()) {
            std::abort();
        }
        checkIds(kg.train, kg);
        checkIds(kg.valid, kg);
        checkIds(kg.test, kg);
        trainyard::KgIndex index;
        index.add(kg.train, kg.relationCount());
        index.add(kg.valid, kg.relationCount());
        index.finish();
        for (const auto &[entity, relation] : index.keys()) {
            const auto &targets = index.targets(entity, relation);
            if (targets.empty()) {
                std::abort();
            }
        }
    } catch (const trainyard::BadInput &) {
    }
    return 0;
}
