#include "worker/base/imagedataset.h"

#include "worker/base/badinput.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sys/stat.h>

namespace trainyard {

namespace {

// No real IDX data set comes close; refuses decompression bombs.
constexpr std::size_t kMaxIdxBytes = std::size_t(4) << 30;

std::uint32_t bigEndian32(const std::uint8_t *p)
{
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | std::uint32_t(p[3]);
}

bool exists(const std::string &path)
{
    struct stat st
    {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The file for `base` in `dir`: raw first, then .gz.
std::string findIdx(const std::string &dir, const std::string &base)
{
    for (const std::string &candidate : {dir + "/" + base, dir + "/" + base + ".gz"}) {
        if (exists(candidate)) {
            return candidate;
        }
    }
    throw BadInput(dir + "/" + base + "[.gz]: no such file (data kind idx)");
}

ImageSet toImageSet(const IdxArray &images, const IdxArray &labels, const std::string &imagePath,
                    const std::string &labelPath)
{
    if (images.dims.size() != 3) {
        throw BadInput(imagePath + ": expected 3 dimensions (count, rows, cols), got "
                       + std::to_string(images.dims.size()));
    }
    if (labels.dims.size() != 1) {
        throw BadInput(labelPath + ": expected 1 dimension (count), got " + std::to_string(labels.dims.size()));
    }
    if (images.dims[0] != labels.dims[0]) {
        throw BadInput(labelPath + ": " + std::to_string(labels.dims[0]) + " labels for "
                       + std::to_string(images.dims[0]) + " images in " + imagePath);
    }
    if (images.dims[1] < 6 || images.dims[2] < 6) {
        throw BadInput(imagePath + ": images of " + std::to_string(images.dims[1]) + "x"
                       + std::to_string(images.dims[2]) + " pixels are too small (at least 6x6)");
    }
    ImageSet set;
    set.count = images.dims[0];
    set.rows = images.dims[1];
    set.cols = images.dims[2];
    set.pixels = images.data;
    set.labels.assign(labels.data.begin(), labels.data.end());
    return set;
}

ImageSet slice(const ImageSet &from, std::int64_t begin, std::int64_t end)
{
    ImageSet s;
    s.count = end - begin;
    s.rows = from.rows;
    s.cols = from.cols;
    const std::int64_t px = from.rows * from.cols;
    s.pixels.assign(from.pixels.begin() + begin * px, from.pixels.begin() + end * px);
    s.labels.assign(from.labels.begin() + begin, from.labels.begin() + end);
    return s;
}

} // namespace

IdxArray parseIdx(const std::uint8_t *data, std::size_t size, const std::string &name)
{
    if (size < 4) {
        throw BadInput(name + ": too short for an IDX header (" + std::to_string(size) + " bytes)");
    }
    if (data[0] != 0 || data[1] != 0) {
        throw BadInput(name + ": not an IDX file (magic must start with two zero bytes)");
    }
    if (data[2] != 0x08) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", data[2]);
        throw BadInput(name + ": IDX element type " + hex + " is not supported (only unsigned bytes, 0x08)");
    }
    const int ndims = data[3];
    if (ndims < 1 || ndims > 4) {
        throw BadInput(name + ": IDX with " + std::to_string(ndims) + " dimensions is not supported (1 to 4)");
    }
    const std::size_t header = 4 + 4 * std::size_t(ndims);
    if (size < header) {
        throw BadInput(name + ": truncated IDX header");
    }
    IdxArray out;
    std::size_t total = 1;
    for (int i = 0; i < ndims; ++i) {
        const std::uint32_t d = bigEndian32(data + 4 + 4 * i);
        if (d == 0) {
            throw BadInput(name + ": dimension " + std::to_string(i) + " is 0");
        }
        if (total > kMaxIdxBytes / d) {
            throw BadInput(name + ": IDX dimensions describe more than 4 GiB");
        }
        total *= d;
        out.dims.push_back(d);
    }
    if (size - header != total) {
        throw BadInput(name + ": the header promises " + std::to_string(total) + " bytes of data but the file has "
                       + std::to_string(size - header));
    }
    out.data.assign(data + header, data + size);
    return out;
}

IdxArray readIdxFile(const std::string &path)
{
    // gzread reads uncompressed files transparently too.
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file) {
        throw BadInput(path + ": cannot open (" + std::strerror(errno) + ")");
    }
    std::vector<std::uint8_t> bytes;
    std::uint8_t chunk[1 << 16];
    while (true) {
        const int n = gzread(file, chunk, sizeof chunk);
        if (n < 0) {
            int code = 0;
            const std::string message = gzerror(file, &code);
            gzclose(file);
            throw BadInput(path + ": cannot decompress (" + message + ")");
        }
        if (n == 0) {
            break;
        }
        bytes.insert(bytes.end(), chunk, chunk + n);
        if (bytes.size() > kMaxIdxBytes + 64) {
            gzclose(file);
            throw BadInput(path + ": larger than 4 GiB");
        }
    }
    gzclose(file);
    return parseIdx(bytes.data(), bytes.size(), path);
}

const ImageSet &ImageDataset::split(const std::string &name) const
{
    if (name == "train") {
        return train;
    }
    if (name == "valid") {
        return valid;
    }
    return test;
}

ImageDataset ImageDataset::loadIdxFolder(const std::string &dir, std::int64_t validSize)
{
    struct stat st
    {};
    if (::stat(dir.c_str(), &st) != 0) {
        throw BadInput("data.path: " + dir + ": " + std::strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) {
        throw BadInput("data.path: " + dir + ": not a folder");
    }
    ImageDataset d;
    const std::string trainImages = findIdx(dir, "train-images-idx3-ubyte");
    const std::string trainLabels = findIdx(dir, "train-labels-idx1-ubyte");
    const std::string testImages = findIdx(dir, "t10k-images-idx3-ubyte");
    const std::string testLabels = findIdx(dir, "t10k-labels-idx1-ubyte");
    ImageSet all = toImageSet(readIdxFile(trainImages), readIdxFile(trainLabels), trainImages, trainLabels);
    d.test = toImageSet(readIdxFile(testImages), readIdxFile(testLabels), testImages, testLabels);
    if (d.test.rows != all.rows || d.test.cols != all.cols) {
        throw BadInput(testImages + ": images are " + std::to_string(d.test.rows) + "x" + std::to_string(d.test.cols)
                       + " but the training images are " + std::to_string(all.rows) + "x" + std::to_string(all.cols));
    }
    if (validSize >= all.count) {
        throw BadInput("data.valid_size: " + std::to_string(validSize)
                       + " leaves no training images (the training file has " + std::to_string(all.count) + ")");
    }
    std::int64_t maxLabel = 0;
    for (const auto l : all.labels) {
        maxLabel = std::max(maxLabel, l);
    }
    for (const auto l : d.test.labels) {
        maxLabel = std::max(maxLabel, l);
    }
    d.classes = maxLabel + 1;
    if (d.classes < 2) {
        throw BadInput(trainLabels + ": every label is 0; at least 2 classes are needed");
    }
    d.train = slice(all, 0, all.count - validSize);
    d.valid = slice(all, all.count - validSize, all.count);
    return d;
}

void ImageDataset::checkIdxFolder(const std::string &dir)
{
    for (const char *base :
         {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
        const std::string path = findIdx(dir, base);
        std::ifstream in(path, std::ios::binary);
        unsigned char magic[4] = {};
        if (!in || !in.read(reinterpret_cast<char *>(magic), 4)) {
            throw BadInput(path + ": cannot read its header");
        }
        const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
        const bool ok = gz ? magic[0] == 0x1f && magic[1] == 0x8b : magic[0] == 0 && magic[1] == 0 && magic[2] == 0x08;
        if (!ok) {
            throw BadInput(path + (gz ? ": not a gzip file" : ": not an IDX file of bytes (magic 00 00 08 0N)"));
        }
    }
}

ImageDataset ImageDataset::synthetic(std::int64_t samples, std::int64_t classes, std::int64_t size, std::uint64_t seed)
{
    std::mt19937_64 rng(seed * 0x2545F4914F6CDD1Dull + 29);
    const std::int64_t px = size * size;
    // Prototypes: a few bright blobs per class on a dark background.
    std::vector<float> prototypes(static_cast<std::size_t>(classes * px), 0.0f);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    for (std::int64_t c = 0; c < classes; ++c) {
        for (int blob = 0; blob < 3; ++blob) {
            const float cy = unit(rng) * float(size), cx = unit(rng) * float(size);
            const float radius = 1.5f + unit(rng) * float(size) / 6.0f;
            for (std::int64_t y = 0; y < size; ++y) {
                for (std::int64_t x = 0; x < size; ++x) {
                    const float dy = float(y) - cy, dx = float(x) - cx;
                    if (dy * dy + dx * dx <= radius * radius) {
                        prototypes[c * px + y * size + x] = 200.0f;
                    }
                }
            }
        }
    }
    ImageSet all;
    all.count = samples;
    all.rows = all.cols = size;
    all.pixels.resize(static_cast<std::size_t>(samples * px));
    all.labels.resize(static_cast<std::size_t>(samples));
    std::normal_distribution<float> noise(0.0f, 40.0f);
    for (std::int64_t i = 0; i < samples; ++i) {
        const auto c = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(classes));
        all.labels[i] = c;
        for (std::int64_t p = 0; p < px; ++p) {
            const float v = prototypes[c * px + p] + noise(rng);
            all.pixels[i * px + p] = static_cast<std::uint8_t>(std::clamp(v, 0.0f, 255.0f));
        }
    }
    ImageDataset d;
    d.classes = classes;
    const std::int64_t nTest = samples / 10;
    const std::int64_t nValid = samples / 10;
    const std::int64_t nTrain = samples - nTest - nValid;
    d.train = slice(all, 0, nTrain);
    d.valid = slice(all, nTrain, nTrain + nValid);
    d.test = slice(all, nTrain + nValid, samples);
    return d;
}

} // namespace trainyard
