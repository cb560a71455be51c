#include "worker/base/kgdataset.h"

#include "worker/base/badinput.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <sys/stat.h>

namespace trainyard {

void KgDataset::parse(std::istream &in, const std::string &fileName, std::vector<std::int64_t> &out)
{
    std::string line;
    std::int64_t lineNo = 0;
    std::string fields[3];
    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        if (line.empty()) {
            continue;
        }
        int count = 0;
        std::size_t start = 0;
        while (true) {
            const std::size_t tab = line.find('\t', start);
            const std::size_t end = tab == std::string::npos ? line.size() : tab;
            if (count < 3) {
                fields[count] = line.substr(start, end - start);
            }
            ++count;
            if (tab == std::string::npos) {
                break;
            }
            start = tab + 1;
        }
        const std::string where = fileName + ":" + std::to_string(lineNo) + ": ";
        if (count != 3) {
            throw BadInput(where + "expected 3 tab-separated fields (head, relation, tail), got "
                           + std::to_string(count));
        }
        for (int i = 0; i < 3; ++i) {
            if (fields[i].empty()) {
                throw BadInput(where + "field " + std::to_string(i + 1) + " is empty");
            }
        }
        out.push_back(entityId(fields[0]));
        out.push_back(relationId(fields[1]));
        out.push_back(entityId(fields[2]));
    }
    if (in.bad()) {
        throw BadInput(fileName + ": read error after line " + std::to_string(lineNo));
    }
}

KgDataset KgDataset::loadFolder(const std::string &dir)
{
    struct stat st
    {};
    if (::stat(dir.c_str(), &st) != 0) {
        throw BadInput("data.path: " + dir + ": " + std::strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) {
        throw BadInput("data.path: " + dir + ": not a folder");
    }
    KgDataset data;
    const std::pair<const char *, std::vector<std::int64_t> *> splits[] = {
        {"train.txt", &data.train}, {"valid.txt", &data.valid}, {"test.txt", &data.test}};
    for (const auto &[name, target] : splits) {
        const std::string path = dir + "/" + name;
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            throw BadInput(path + ": cannot open (" + std::strerror(errno) + ")");
        }
        data.parse(in, path, *target);
    }
    if (data.train.empty()) {
        throw BadInput(dir + "/train.txt: no triples");
    }
    return data;
}

void KgDataset::checkFolder(const std::string &dir)
{
    struct stat st
    {};
    if (::stat(dir.c_str(), &st) != 0) {
        throw BadInput("data.path: " + dir + ": " + std::strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) {
        throw BadInput("data.path: " + dir + ": not a folder");
    }
    for (const char *name : {"train.txt", "valid.txt", "test.txt"}) {
        const std::string path = dir + "/" + name;
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            throw BadInput(path + ": cannot open (" + std::strerror(errno) + ")");
        }
        // The first lines only: a quick look, through the loader's own parser.
        std::string head, line;
        for (int i = 0; i < 100 && std::getline(in, line); ++i) {
            head += line + '\n';
        }
        if (head.empty() && std::string(name) == "train.txt") {
            throw BadInput(path + ": no triples");
        }
        std::istringstream first(head);
        KgDataset scratch;
        std::vector<std::int64_t> triples;
        scratch.parse(first, path, triples);
    }
}

KgDataset KgDataset::synthetic(std::int64_t entities, std::int64_t relations, std::int64_t triples, std::uint64_t seed)
{
    KgDataset data;
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 17);
    // Entities fall into `clusters` groups along a line (through a hidden
    // shuffle, so ids carry no structure); relation r links every entity of
    // group g to every entity of group g + shift_r. Translational models
    // represent this exactly (group positions on an axis), and each entity
    // appears in many triples, so held-out triples are predictable. With all
    // pairs kept, filtered ranking removes the other answers of a query.
    const std::int64_t clusters = std::clamp<std::int64_t>(entities / 10, 2, 10);
    const std::int64_t size = (entities + clusters - 1) / clusters;
    std::vector<std::int64_t> order(static_cast<std::size_t>(entities));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    const std::int64_t maxShift = std::max<std::int64_t>(1, clusters / 2);
    std::vector<std::int64_t> shifts;
    for (std::int64_t r = 0; r < relations; ++r) {
        shifts.push_back(1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(maxShift)));
    }

    std::vector<std::int64_t> all;
    for (std::int64_t r = 0; r < relations; ++r) {
        for (std::int64_t a = 0; a < entities; ++a) {
            const std::int64_t g = a / size + shifts[r];
            for (std::int64_t b = g * size; b < std::min(entities, (g + 1) * size); ++b) {
                all.insert(all.end(), {order[a], r, order[b]});
            }
        }
    }
    // Shuffle the triples, keep `triples` of them.
    std::vector<std::size_t> pick(all.size() / 3);
    std::iota(pick.begin(), pick.end(), 0);
    std::shuffle(pick.begin(), pick.end(), rng);
    pick.resize(std::min<std::size_t>(pick.size(), static_cast<std::size_t>(triples)));
    std::vector<std::int64_t> chosen;
    for (const auto i : pick) {
        chosen.insert(chosen.end(), all.begin() + 3 * i, all.begin() + 3 * i + 3);
    }

    for (std::int64_t e = 0; e < entities; ++e) {
        data.entityId("e" + std::to_string(e));
    }
    for (std::int64_t r = 0; r < relations; ++r) {
        data.relationId("r" + std::to_string(r));
    }

    const std::int64_t n = static_cast<std::int64_t>(chosen.size()) / 3;
    const std::int64_t nTest = n / 10;
    const std::int64_t nValid = n / 10;
    const std::int64_t nTrain = n - nTest - nValid;
    data.train.assign(chosen.begin(), chosen.begin() + 3 * nTrain);
    data.valid.assign(chosen.begin() + 3 * nTrain, chosen.begin() + 3 * (nTrain + nValid));
    data.test.assign(chosen.begin() + 3 * (nTrain + nValid), chosen.end());
    return data;
}

const std::vector<std::int64_t> &KgDataset::split(const std::string &name) const
{
    if (name == "train") {
        return train;
    }
    if (name == "valid") {
        return valid;
    }
    return test;
}

std::int64_t KgDataset::entityId(const std::string &name)
{
    const auto [it, inserted] = m_entityIds.emplace(name, static_cast<std::int64_t>(entities.size()));
    if (inserted) {
        entities.push_back(name);
    }
    return it->second;
}

std::int64_t KgDataset::relationId(const std::string &name)
{
    const auto [it, inserted] = m_relationIds.emplace(name, static_cast<std::int64_t>(relations.size()));
    if (inserted) {
        relations.push_back(name);
    }
    return it->second;
}

void KgIndex::add(const std::vector<std::int64_t> &triples, std::int64_t relationCount)
{
    for (std::size_t i = 0; i + 2 < triples.size(); i += 3) {
        const std::int64_t h = triples[i], r = triples[i + 1], t = triples[i + 2];
        auto &tails = m_targets[key(h, r)];
        if (tails.empty()) {
            m_keys.emplace_back(h, r);
        }
        tails.push_back(t);
        auto &heads = m_targets[key(t, r + relationCount)];
        if (heads.empty()) {
            m_keys.emplace_back(t, r + relationCount);
        }
        heads.push_back(h);
    }
}

void KgIndex::finish()
{
    for (auto &[k, list] : m_targets) {
        (void)k;
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
    }
}

const std::vector<std::int64_t> &KgIndex::targets(std::int64_t entity, std::int64_t relation) const
{
    static const std::vector<std::int64_t> none;
    const auto it = m_targets.find(key(entity, relation));
    return it == m_targets.end() ? none : it->second;
}

} // namespace trainyard
