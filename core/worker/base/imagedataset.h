#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace trainyard {

// One MNIST-format IDX array of unsigned bytes.
struct IdxArray
{
    std::vector<std::int64_t> dims;
    std::vector<std::uint8_t> data;
};

// Greyscale images with integer labels, pixels row-major as bytes.
struct ImageSet
{
    std::int64_t count = 0;
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    std::vector<std::uint8_t> pixels; // count * rows * cols
    std::vector<std::int64_t> labels; // count
};

// The train / valid / test images of a classification run.
struct ImageDataset
{
    ImageSet train;
    ImageSet valid;
    ImageSet test;
    std::int64_t classes = 0;

    const ImageSet &split(const std::string &name) const;

    // DIR/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]; the last
    // `validSize` training images become the valid split.
    static ImageDataset loadIdxFolder(const std::string &dir, std::int64_t validSize);
    // What loadIdxFolder would reject, found quickly: the four files exist
    // (raw or .gz) and start as IDX (or gzip) files. Throws BadInput.
    static void checkIdxFolder(const std::string &dir);

    // One random prototype per class plus noise; deterministic from `seed`;
    // split 80/10/10.
    static ImageDataset synthetic(std::int64_t samples, std::int64_t classes, std::int64_t size, std::uint64_t seed);
};

// Parses an IDX file held in memory. Only the unsigned-byte type (0x08) is
// accepted. Throws BadInput naming `name` when the magic, the dimensions or
// the size do not match.
IdxArray parseIdx(const std::uint8_t *data, std::size_t size, const std::string &name);

// Reads a raw or gzip-compressed IDX file.
IdxArray readIdxFile(const std::string &path);

} // namespace trainyard
