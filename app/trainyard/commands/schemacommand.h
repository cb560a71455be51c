#pragma once

#include <QStringList>

namespace trainyard {

// `trainyard schema [-o FILE]`: the JSON Schema of the experiment file
// (experimentschema.h) with the worker's model, data and section keys when
// its catalogue can be had, for editors' completion and checking. Writes
// stdout or FILE; returns 0, 1 when FILE cannot be written, 2 on a bad
// command line.
int schemaCommand(const QStringList &args);

} // namespace trainyard
