#pragma once

#include <QJsonObject>
#include <QString>

namespace trainyard {

struct RunRecord;

/// What a run used, in words for the run details: its throughput and memory
/// (RunRecord::usage, from the metric lines that report them) and its time
/// budget (train.max_seconds of its resolved spec) against the time it
/// trained by the worker's clock. "—" where nothing says.
namespace runusage {

/// "51,234 samples/s (mean of 300 reports; last 50,112)".
QString throughputText(const RunRecord &run);
/// "700.0 MiB (peak 720.0 MiB)"; while it trains the last comes first.
QString memoryText(const RunRecord &run);
/// "6:40 (train.max_seconds): 3:12 used, 3:28 left", or "none (train.max_seconds: null)".
QString budgetText(const RunRecord &run, const QJsonObject &resolvedSpec);

} // namespace runusage

} // namespace trainyard
