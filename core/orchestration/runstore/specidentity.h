#pragma once

#include <QJsonObject>
#include <QString>

namespace trainyard::specidentity {

// Whether a run folder's spec.json and a run's spec train the same thing:
// the one rule behind "this folder is this run's result" (the history a
// session loads, `trainyard check`, a sweep's trials). The same spec is the
// same model, data, training keys and program (argv, config, env, seed);
// what only says how often it evaluates, checkpoints or reports, the run's
// name, what it runs after and what it needs of a GPU are not compared.
// Paths are compared as resolved (a program's `cwd` as the folder the
// experiment file's relative one named: Experiment::load resolves it), so a
// moved file is the same spec while its paths name the same folders; a
// `{after.…}` placeholder of `spec` matches the value it was replaced by in
// the folder. Any other change, `train.epochs` raised included, is another
// spec: its start is a new attempt (docs/experiment-format.md, Run folders).

// What is compared of `spec`.
QJsonObject trainedPart(const QJsonObject &spec);

// Empty when `held` (a folder's spec.json) and `spec` are the same spec;
// else the first difference in words: "model.dim: 16 there, 32 here".
QString difference(const QJsonObject &held, const QJsonObject &spec);

} // namespace trainyard::specidentity
