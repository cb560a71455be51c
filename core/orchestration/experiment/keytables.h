#pragma once

#include <QStringList>

#include <vector>

// The keys of every object of the experiment file, one table per kind of
// object: what the checks accept (jsonchecks::checkKeys takes a table) and
// what `trainyard schema` describes (experimentschema.h), from one place so
// that the two cannot drift apart. A new key is one line in its table; its
// value is still checked where the table's kind is read.
namespace trainyard::keytables {

enum KeyFlag : unsigned {
    kOptional = 0,
    kRequired = 1,  // the checks refuse the object without it
    kEntryOnly = 2, // only in a lane's queue, not in a member of rounds nor in a sweep's base
    kUnlisted = 4,  // accepted but not named in "expected one of": read by editors, not by Trainyard
};

// One key of an object.
struct Key
{
    const char *name;
    const char *type;        // JSON type(s), "|" between several ("string|null"); "" for any value
    const char *description; // one line, what an editor shows beside the key
    const char *kind = "";   // the kind (a table's, or a value of the worker's catalogue) of the value, or of the
                             // items when `type` is "array"
    const char *rule = "";   // more of the value's JSON Schema, as JSON: {"minimum": 1}, {"enum": ["a", "b"]}
    unsigned flags = kOptional;
};

// The keys of one kind of object, in the order messages list them.
struct Table
{
    const char *kind;        // its name in the schema's $defs: "lane", "cluster", ...
    const char *description; // one line
    std::vector<Key> keys;

    // The keys named in "expected one of": all but kUnlisted ones, and but
    // kEntryOnly ones when `entry` is false.
    QStringList names(bool entry = true) const;
    // Every key a check accepts (kUnlisted ones too).
    QStringList accepted(bool entry = true) const;
};

const Table &experiment();
const Table &cluster();
const Table &sbatch();
const Table &host();
const Table &lane();
const Table &modelRun();
const Table &programRun();
const Table &program();
const Table &programTrain();
const Table &resources();
const Table &roundsEntry();
const Table &rounds();
const Table &sweep();
const Table &sweepParameter();
const Table &objective();
const Table &earlyStopping();

// Every table above, in the order the schema lists them.
const std::vector<const Table *> &all();

} // namespace trainyard::keytables
