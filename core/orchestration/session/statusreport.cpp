#include "orchestration/session/statusreport.h"

#include "orchestration/board/board.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/records/runrecord.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"

#include <QSet>

#include <algorithm>

namespace trainyard {

QList<RunStatusRow> liveStatusReport(const Orchestrator &orchestrator)
{
    QList<RunStatusRow> rows;
    const Board &board = *orchestrator.board();
    for (int i = 0; i < board.laneCount(); ++i) {
        const LaneInfo lane = orchestrator.laneDevices()->lane(i);
        const int busy = RunStatusRow::busySlots(lane, [&](RunId id) { return orchestrator.runs()->value(id).state; });
        for (RunId id : lane.runs) {
            rows.append(RunStatusRow::live(orchestrator.runs()->value(id), lane, busy));
        }
    }
    return rows;
}

QList<RunStatusRow> folderStatusReport(const Experiment &experiment, const RunStore &store)
{
    QList<RunStatusRow> rows;
    QSet<QString> named;
    auto add = [&](const QString &name, const QString &lane) {
        named.insert(name);
        RunRecord record;
        rows.append(store.readRun(name, &record) ? RunStatusRow::past(record, lane)
                                                 : RunStatusRow::neverStarted(name, lane));
    };
    for (int i = 0; i < experiment.lanes.size(); ++i) {
        const ExperimentLane &lane = experiment.lanes.at(i);
        const int before = int(std::count_if(experiment.lanes.cbegin(), experiment.lanes.cbegin() + i,
                                             [&](const ExperimentLane &l) { return l.device == lane.device; }));
        const QString title = Board::laneTitle(lane.name, lane.device, before);
        for (const ExperimentRun &run : lane.runs) {
            for (int r = 0; r < run.repeat; ++r) {
                add(RunSpecView(expandRepeat(run.spec, r, run.repeat)).name(), title);
            }
        }
    }
    for (const QString &name : store.runNames()) {
        if (!named.contains(name) && RunStore::attemptNumber(name) == 0) {
            RunRecord record;
            if (store.readRun(name, &record)) {
                rows.append(RunStatusRow::past(record, QString()));
            }
        }
    }
    return rows;
}

} // namespace trainyard
