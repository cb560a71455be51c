// Fuzz target: the IDX (MNIST format) loader. The first byte chooses the
// path: parseIdx on the bytes, readIdxFile on them as a (possibly gzipped)
// file, or ImageDataset::loadIdxFolder on a folder of four files cut from the
// input (the worker's own entry point, with every cross-file check). Every
// outcome is consistent data or a BadInput.

#include "worker/base/badinput.h"
#include "worker/base/imagedataset.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

std::string scratchDir()
{
    static const std::string dir = [] {
        char pattern[] = "/tmp/fuzz-idx-XXXXXX";
        const char *made = ::mkdtemp(pattern);
        if (!made) {
            std::abort();
        }
        return std::string(made);
    }();
    return dir;
}

void writeFile(const std::string &path, const std::uint8_t *data, std::size_t size)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
}

void checkArray(const trainyard::IdxArray &a)
{
    std::size_t total = 1;
    for (const auto d : a.dims) {
        if (d <= 0) {
            std::abort();
        }
        total *= static_cast<std::size_t>(d);
    }
    if (a.dims.empty() || total != a.data.size()) {
        std::abort();
    }
}

void checkSet(const trainyard::ImageSet &s, std::int64_t classes)
{
    if (s.count < 0 || static_cast<std::size_t>(s.count * s.rows * s.cols) != s.pixels.size()
        || static_cast<std::size_t>(s.count) != s.labels.size()) {
        std::abort();
    }
    for (const auto l : s.labels) {
        if (l < 0 || l >= classes) {
            std::abort();
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size < 1) {
        return 0;
    }
    const int mode = data[0] % 3;
    ++data;
    --size;
    const std::string dir = scratchDir();
    try {
        if (mode == 0) {
            checkArray(trainyard::parseIdx(data, size, "fuzz.idx"));
        } else if (mode == 1) {
            writeFile(dir + "/one.idx", data, size);
            checkArray(trainyard::readIdxFile(dir + "/one.idx"));
        } else {
            // Four files; the next 4 bytes give their lengths' shares, then
            // one byte the valid size.
            if (size < 5) {
                return 0;
            }
            const std::size_t body = size - 5;
            std::size_t lengths[4];
            std::size_t used = 0;
            for (int i = 0; i < 3; ++i) {
                lengths[i] = body == 0 ? 0 : (std::size_t(data[i]) * 257 + data[(i + 1) % 4]) % (body - used + 1);
                used += lengths[i];
            }
            lengths[3] = body - used;
            const std::int64_t validSize = data[4];
            const char *names[4] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                                    "t10k-labels-idx1-ubyte"};
            const std::uint8_t *p = data + 5;
            for (int i = 0; i < 4; ++i) {
                writeFile(dir + "/" + names[i], p, lengths[i]);
                p += lengths[i];
            }
            const trainyard::ImageDataset d = trainyard::ImageDataset::loadIdxFolder(dir, validSize);
            if (d.classes < 2 || d.train.count < 1 || d.valid.count != validSize) {
                std::abort();
            }
            checkSet(d.train, d.classes);
            checkSet(d.valid, d.classes);
            checkSet(d.test, d.classes);
        }
    } catch (const trainyard::BadInput &) {
    }
    return 0;
}
