#pragma once

namespace trainyard {

// Stable identity of a run within one Session (never reused while it lives).
// Names can change (rename, duplicate); ids do not. Here, not with RunInfo,
// so that the metric store and its readers need no orchestration types.
using RunId = int;

} // namespace trainyard
