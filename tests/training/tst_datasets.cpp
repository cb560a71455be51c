// Knowledge-graph and IDX loaders, synthetic generators (torch-free).

#include "tests/helpers/minitest.h"
#include "tests/training/workerrun.h"

#include "worker/base/badinput.h"
#include "worker/base/imagedataset.h"
#include "worker/base/kgdataset.h"

#include <zlib.h>

#include <functional>
#include <map>
#include <set>
#include <sstream>

using namespace trainyard;

namespace {

std::string errorOf(const std::function<void()> &f)
{
    try {
        f();
    } catch (const BadInput &e) {
        return e.what();
    }
    return "";
}

std::vector<std::uint8_t> idxBytes(std::uint8_t type, const std::vector<std::uint32_t> &dims, std::size_t dataBytes)
{
    std::vector<std::uint8_t> b = {0, 0, type, static_cast<std::uint8_t>(dims.size())};
    for (const auto d : dims) {
        for (int shift = 24; shift >= 0; shift -= 8) {
            b.push_back(static_cast<std::uint8_t>(d >> shift));
        }
    }
    for (std::size_t i = 0; i < dataBytes; ++i) {
        b.push_back(static_cast<std::uint8_t>(i % 7));
    }
    return b;
}

void writeGz(const std::string &path, const std::vector<std::uint8_t> &bytes)
{
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(f);
}

void writeRaw(const std::string &path, const std::vector<std::uint8_t> &bytes)
{
    testing::writeFile(path, std::string(bytes.begin(), bytes.end()));
}

} // namespace

TY_TEST(kgLinesBuildIdMaps)
{
    KgDataset d;
    std::istringstream in("a\tlikes\tb\nb\tlikes\tc\r\n\nc\thates\ta\n");
    d.parse(in, "train.txt", d.train);
    TY_CHECK_EQ(d.entityCount(), 3);
    TY_CHECK_EQ(d.relationCount(), 2);
    TY_CHECK((d.train == std::vector<std::int64_t>{0, 0, 1, 1, 0, 2, 2, 1, 0}));
    TY_CHECK_EQ(d.entities[2], std::string("c")); // CR stripped
}

TY_TEST(malformedKgLinesNameFileAndLine)
{
    KgDataset d;
    std::istringstream two("a\tr\tb\na\tb\n");
    TY_CHECK_EQ(errorOf([&] { d.parse(two, "UMLS/train.txt", d.train); }),
                std::string("UMLS/train.txt:2: expected 3 tab-separated fields (head, relation, tail), got 2"));
    std::istringstream four("a\tr\tb\tc\n");
    TY_CHECK(errorOf([&] { d.parse(four, "x.txt", d.train); }).find("x.txt:1: expected 3 tab-separated fields") == 0);
    std::istringstream empty("a\t\tb\n");
    TY_CHECK_EQ(errorOf([&] { d.parse(empty, "y.txt", d.train); }), std::string("y.txt:1: field 2 is empty"));
}

TY_TEST(kgFolderErrors)
{
    const std::string dir = testing::tempDir("kg");
    TY_CHECK(errorOf([&] { KgDataset::loadFolder(dir + "/nope"); }).find("data.path: " + dir + "/nope: No such file")
             == 0);
    testing::writeFile(dir + "/train.txt", "a\tr\tb\n");
    testing::writeFile(dir + "/valid.txt", "a\tr\tb\n");
    TY_CHECK(errorOf([&] { KgDataset::loadFolder(dir); }).find(dir + "/test.txt: cannot open") == 0);
    testing::writeFile(dir + "/test.txt", "a r b\n");
    TY_CHECK(errorOf([&] { KgDataset::loadFolder(dir); }).find(dir + "/test.txt:1: expected 3") == 0);
    testing::writeFile(dir + "/test.txt", "b\tr\tc\n");
    const KgDataset ok = KgDataset::loadFolder(dir);
    TY_CHECK_EQ(ok.entityCount(), 3);
    TY_CHECK_EQ(ok.test.size(), 3u);
}

// The quick look of `trainyard-worker --check`: what loadFolder rejects, from the first lines.
TY_TEST(kgFolderCheckFindsWhatLoadingWould)
{
    const std::string dir = testing::tempDir("kgcheck");
    TY_CHECK(errorOf([&] { KgDataset::checkFolder(dir + "/nope"); }).find("data.path: " + dir + "/nope: No such file")
             == 0);
    testing::writeFile(dir + "/train.txt", "a\tr\tb\n");
    testing::writeFile(dir + "/valid.txt", "a\tr\tb\n");
    TY_CHECK(errorOf([&] { KgDataset::checkFolder(dir); }).find(dir + "/test.txt: cannot open") == 0);
    testing::writeFile(dir + "/test.txt", "b\tr\tc\nb r c\n");
    TY_CHECK(errorOf([&] { KgDataset::checkFolder(dir); }).find(dir + "/test.txt:2: expected 3") == 0);
    testing::writeFile(dir + "/test.txt", "b\tr\tc\n");
    TY_CHECK(errorOf([&] { KgDataset::checkFolder(dir); }).empty());
    testing::writeFile(dir + "/train.txt", "");
    TY_CHECK(errorOf([&] { KgDataset::checkFolder(dir); }).find(dir + "/train.txt: no triples") == 0);
}

TY_TEST(sharedUmlsLoads)
{
    const char *shared = std::getenv("TRAINYARD_SHARED_DATA");
    const std::string dir = std::string(shared ? shared : "") + "/kg/UMLS";
    if (!shared || ::access((dir + "/train.txt").c_str(), R_OK) != 0) {
        TY_SKIP(dir + " is absent (set TRAINYARD_SHARED_DATA)");
    }
    const KgDataset d = KgDataset::loadFolder(dir);
    TY_CHECK_EQ(d.entityCount(), 135);
    TY_CHECK_EQ(d.relationCount(), 46);
    TY_CHECK_EQ(d.train.size() / 3, 5216u);
    TY_CHECK_EQ(d.valid.size() / 3, 652u);
    TY_CHECK_EQ(d.test.size() / 3, 661u);
}

TY_TEST(syntheticKgIsDeterministicAndTranslational)
{
    const KgDataset a = KgDataset::synthetic(200, 4, 400, 7);
    const KgDataset b = KgDataset::synthetic(200, 4, 400, 7);
    const KgDataset c = KgDataset::synthetic(200, 4, 400, 8);
    TY_CHECK(a.train == b.train && a.test == b.test);
    TY_CHECK(a.train != c.train);
    const std::size_t total = (a.train.size() + a.valid.size() + a.test.size()) / 3;
    TY_CHECK_EQ(total, 400u);
    TY_CHECK_EQ(a.test.size() / 3, 40u);
    // A relation links whole groups: every head of a relation has the same
    // tails as any other head it shares a tail with.
    std::map<std::pair<std::int64_t, std::int64_t>, std::set<std::int64_t>> tails;
    for (const auto *split : {&a.train, &a.valid, &a.test}) {
        for (std::size_t i = 0; i < split->size(); i += 3) {
            tails[{(*split)[i], (*split)[i + 1]}].insert((*split)[i + 2]);
        }
    }
    const KgDataset full = KgDataset::synthetic(40, 2, 100000, 1); // every pair kept
    std::map<std::pair<std::int64_t, std::int64_t>, std::set<std::int64_t>> fullTails;
    for (const auto *split : {&full.train, &full.valid, &full.test}) {
        for (std::size_t i = 0; i < split->size(); i += 3) {
            fullTails[{(*split)[i], (*split)[i + 1]}].insert((*split)[i + 2]);
        }
    }
    TY_REQUIRE(!fullTails.empty());
    for (const auto &kv : fullTails) {
        TY_CHECK_EQ(kv.second.size(), 10u); // 40 entities in 4 groups of 10
    }
}

TY_TEST(kgIndexListsAnswersBothWays)
{
    KgIndex index;
    index.add({0, 0, 1, 0, 0, 2, 3, 1, 1, 0, 0, 1}, 2);
    index.finish();
    TY_CHECK((index.targets(0, 0) == std::vector<std::int64_t>{1, 2}));
    TY_CHECK((index.targets(1, 2) == std::vector<std::int64_t>{0})); // heads of (?, 0, 1)
    TY_CHECK((index.targets(1, 3) == std::vector<std::int64_t>{3}));
    TY_CHECK(index.targets(5, 0).empty());
}

TY_TEST(idxParsesAndValidates)
{
    const auto good = idxBytes(0x08, {2, 3, 4}, 24);
    const IdxArray a = parseIdx(good.data(), good.size(), "f");
    TY_CHECK((a.dims == std::vector<std::int64_t>{2, 3, 4}));
    TY_CHECK_EQ(a.data.size(), 24u);
    auto badMagic = good;
    badMagic[0] = 1;
    TY_CHECK(errorOf([&] { parseIdx(badMagic.data(), badMagic.size(), "f"); }).find("f: not an IDX file") == 0);
    const auto floats = idxBytes(0x0D, {2}, 8);
    TY_CHECK_EQ(errorOf([&] { parseIdx(floats.data(), floats.size(), "f"); }),
                std::string("f: IDX element type 0x0d is not supported (only unsigned bytes, 0x08)"));
    const auto shortData = idxBytes(0x08, {2, 3, 4}, 23);
    TY_CHECK_EQ(errorOf([&] { parseIdx(shortData.data(), shortData.size(), "f"); }),
                std::string("f: the header promises 24 bytes of data but the file has 23"));
    const std::vector<std::uint8_t> tiny = {0, 0};
    TY_CHECK(errorOf([&] { parseIdx(tiny.data(), tiny.size(), "f"); }).find("too short") != std::string::npos);
    const auto truncatedHeader = std::vector<std::uint8_t>{0, 0, 8, 3, 0, 0};
    TY_CHECK(errorOf([&] { parseIdx(truncatedHeader.data(), truncatedHeader.size(), "f"); }).find("truncated")
             != std::string::npos);
}

TY_TEST(idxFolderReadsRawAndGzip)
{
    const std::string dir = testing::tempDir("idx");
    writeGz(dir + "/train-images-idx3-ubyte.gz", idxBytes(0x08, {10, 8, 8}, 640));
    writeRaw(dir + "/train-labels-idx1-ubyte", idxBytes(0x08, {10}, 10));
    writeGz(dir + "/t10k-images-idx3-ubyte.gz", idxBytes(0x08, {4, 8, 8}, 256));
    writeGz(dir + "/t10k-labels-idx1-ubyte.gz", idxBytes(0x08, {4}, 4));
    const ImageDataset d = ImageDataset::loadIdxFolder(dir, 3);
    TY_CHECK_EQ(d.train.count, 7);
    TY_CHECK_EQ(d.valid.count, 3);
    TY_CHECK_EQ(d.test.count, 4);
    TY_CHECK_EQ(d.train.rows, 8);
    TY_CHECK_EQ(d.classes, 7); // labels 0..6
    TY_CHECK_EQ(d.valid.labels[0], 7 % 7);

    writeGz(dir + "/t10k-labels-idx1-ubyte.gz", idxBytes(0x08, {5}, 5));
    TY_CHECK(errorOf([&] { ImageDataset::loadIdxFolder(dir, 3); }).find("5 labels for 4 images") != std::string::npos);
    TY_CHECK(errorOf([&] { ImageDataset::checkIdxFolder(dir); }).empty()); // the headers are fine
    writeRaw(dir + "/train-labels-idx1-ubyte", {'P', 'K', 3, 4, 0, 0});
    TY_CHECK(errorOf([&] { ImageDataset::checkIdxFolder(dir); }).find("train-labels-idx1-ubyte: not an IDX file")
             != std::string::npos);
    writeRaw(dir + "/train-labels-idx1-ubyte", idxBytes(0x08, {10}, 10));
    ::unlink((dir + "/t10k-labels-idx1-ubyte.gz").c_str());
    TY_CHECK(errorOf([&] { ImageDataset::checkIdxFolder(dir); }).find("t10k-labels-idx1-ubyte[.gz]: no such file")
             != std::string::npos);
    TY_CHECK(errorOf([&] { ImageDataset::loadIdxFolder(dir, 3); }).find("t10k-labels-idx1-ubyte[.gz]: no such file")
             != std::string::npos);
    testing::writeFile(dir + "/t10k-labels-idx1-ubyte.gz", "\x1f\x8b garbage that is not gzip");
    TY_CHECK(!errorOf([&] { ImageDataset::loadIdxFolder(dir, 3); }).empty());
}

TY_TEST(fashionMnistLoadsWhenInstalled)
{
    const std::string dir = "/usr/share/datasets/fashion-mnist";
    if (::access((dir + "/train-images-idx3-ubyte.gz").c_str(), R_OK) != 0) {
        TY_SKIP(dir + " is absent (install dataset-fashion-mnist)");
    }
    const ImageDataset d = ImageDataset::loadIdxFolder(dir, 5000);
    TY_CHECK_EQ(d.train.count, 55000);
    TY_CHECK_EQ(d.test.count, 10000);
    TY_CHECK_EQ(d.classes, 10);
    TY_CHECK_EQ(d.train.rows, 28);
}

TY_TEST(syntheticImagesAreDeterministic)
{
    const ImageDataset a = ImageDataset::synthetic(100, 4, 12, 3);
    const ImageDataset b = ImageDataset::synthetic(100, 4, 12, 3);
    TY_CHECK(a.train.pixels == b.train.pixels && a.train.labels == b.train.labels);
    TY_CHECK_EQ(a.train.count + a.valid.count + a.test.count, 100);
    TY_CHECK_EQ(a.train.pixels.size(), static_cast<std::size_t>(a.train.count * 144));
    TY_CHECK_EQ(a.classes, 4);
}

TY_TEST_MAIN()
