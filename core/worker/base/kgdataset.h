#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <unordered_map>
#include <vector>

namespace trainyard {

// A knowledge graph with integer ids: entity and relation names are mapped to
// 0..n-1 in order of first appearance (train first). Triples are stored flat
// as (head, relation, tail) so they can be copied into a tensor in one go.
class KgDataset
{
public:
    std::vector<std::string> entities;
    std::vector<std::string> relations;
    std::vector<std::int64_t> train; // 3 * count
    std::vector<std::int64_t> valid;
    std::vector<std::int64_t> test;

    // Reads DIR/train.txt, valid.txt, test.txt. Throws BadInput naming the
    // file and line of the first malformed line, or the missing file.
    static KgDataset loadFolder(const std::string &dir);
    // What loadFolder would reject, found quickly: the folder and its three
    // files exist and open, and their first lines parse (the same parser).
    // Throws BadInput naming the file and line.
    static void checkFolder(const std::string &dir);

    // A graph whose relations are translations along a hidden order of the
    // entities (relation r links entity i to entity i + shift_r), so
    // translational and convolutional models can learn it exactly.
    // Deterministic from `seed`; shuffled and split 80/10/10.
    static KgDataset synthetic(std::int64_t entities, std::int64_t relations, std::int64_t triples, std::uint64_t seed);

    // Parses one split from `in`; `fileName` is used in error messages.
    // Unknown names are added to the id maps. Empty lines are skipped.
    void parse(std::istream &in, const std::string &fileName, std::vector<std::int64_t> &out);

    const std::vector<std::int64_t> &split(const std::string &name) const;
    std::int64_t entityCount() const { return static_cast<std::int64_t>(entities.size()); }
    std::int64_t relationCount() const { return static_cast<std::int64_t>(relations.size()); }

private:
    std::int64_t entityId(const std::string &name);
    std::int64_t relationId(const std::string &name);

    std::unordered_map<std::string, std::int64_t> m_entityIds;
    std::unordered_map<std::string, std::int64_t> m_relationIds;
};

// For every (entity, relation) key the sorted list of entities it links to.
// Used for filtered ranking (all splits) and for one-to-all training targets
// (train only, with inverse relations numbered relation + relationCount).
class KgIndex
{
public:
    // tails of (h, r) and, under relation r + relationCount, heads of (t, r).
    void add(const std::vector<std::int64_t> &triples, std::int64_t relationCount);
    void finish(); // sorts and deduplicates; call once after the last add

    const std::vector<std::int64_t> &targets(std::int64_t entity, std::int64_t relation) const;

    // Keys (entity, relation) in a fixed order, and their count.
    const std::vector<std::pair<std::int64_t, std::int64_t>> &keys() const { return m_keys; }

private:
    static std::uint64_t key(std::int64_t entity, std::int64_t relation)
    {
        return (static_cast<std::uint64_t>(relation) << 40) ^ static_cast<std::uint64_t>(entity);
    }

    std::unordered_map<std::uint64_t, std::vector<std::int64_t>> m_targets;
    std::vector<std::pair<std::int64_t, std::int64_t>> m_keys;
};

} // namespace trainyard
