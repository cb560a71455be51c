#pragma once

#include <QLatin1String>

namespace trainyard {

/// A run spec dragged from the model palette: JSON {"spec": {...}, "repeat": N, "preset": bool}.
inline QLatin1String runSpecMimeType()
{
    return QLatin1String("application/x-trainyard-run-spec");
}

/// Board cards being dragged: JSON {"runs": ["run id", ...]}.
inline QLatin1String runCardsMimeType()
{
    return QLatin1String("application/x-trainyard-run-cards");
}

} // namespace trainyard
