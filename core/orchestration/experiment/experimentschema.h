#pragma once

#include <QJsonObject>

namespace trainyard {

class ModelCatalogue;

// A JSON Schema (draft 2020-12) of the experiment file, for editors'
// completion and checking (`trainyard schema`): one $defs entry per table
// of keytables.h, with additionalProperties false wherever the checks
// refuse an unknown key. With `catalogue` (the worker's --list-models) a
// run's model, data, train, eval, checkpoint and report get the worker's
// keys (the model's per model.type, the data's per data.kind) with their
// types, ranges, choices and help; without one they are objects with a
// "type" or a "kind", as the structural checks see them. The schema says
// less than the checks (unique names, a device naming a defined cluster):
// `trainyard check` stays the authority.
QJsonObject experimentSchema(const ModelCatalogue *catalogue);

} // namespace trainyard
