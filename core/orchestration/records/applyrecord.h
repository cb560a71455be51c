#pragma once

namespace trainyard {

struct MetricRecord;
struct RunInfo;

// What one record a worker reported does to its run's state: the one rule
// for live ingestion (Ingestion) and for a run read back from its
// metrics.jsonl (RunRecord), so that both end in the same state on the
// same lines. A metric line's step is the run's, and its epoch, loss,
// mem_bytes and total_steps when it has them; a heartbeat's total_steps; a
// summary's values; a log's recipe; a checkpoint's path. The wall is that
// of the last line that has one.
//
// The step is the last metric line's, also when lower than an earlier one's:
// a run resumed from its checkpoint reports the steps after it again, its
// clock goes on from the checkpoint's wall, and its curves go back with it
// (MetricStore drops the points from the step reported again). A step that
// never moved back would claim progress the run threw away, next to a loss
// and a curve of the step it is really at. Returns whether the record was a
// metric line.
bool applyRecord(RunInfo &info, const MetricRecord &record);

} // namespace trainyard
