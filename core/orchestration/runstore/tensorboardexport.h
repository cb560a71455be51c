#pragma once

#include <QJsonValue>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace trainyard {

class RunStore;

// A run folder's curves as a TensorBoard run: `trainyard export
// --tensorboard` and the window's Export to TensorBoard write through it.
// Each run gets a subfolder of the target folder named as its run folder
// ("transe-1", a kept attempt "transe-1.attempt-2") holding one file,
// events.out.tfevents.SECONDS.HOST.PID.trainyard, with every value of its
// metrics.jsonl that the CSV export writes (loss, lr, ..., each evaluation
// value as "split/name"; not the epochs), read through the one reader into
// a MetricStore (so a step re-reported after a resume replaces the older
// point, as in the plots), each at its step and at the time it was taken:
// the run's start (status.json's "started": its last start, for a run
// resumed) plus the line's "wall" (seconds on the run's own clock). A run
// without a start in status.json is placed so that its last line is at
// metrics.jsonl's modification time.
//
// History is never overwritten: a run whose subfolder already exists and
// is not empty (or is not a plain folder) is refused before anything is
// written, so exporting again needs a new target folder.
class TensorBoardExport
{
public:
    using HParams = QList<QPair<QString, QJsonValue>>;

    // Why `runs` cannot be exported into `dir`, naming the subfolder; empty
    // when each one is absent or an empty folder.
    static QString refusal(const QString &dir, const QStringList &runs);

    struct Result
    {
        bool ok = false;
        QString file;    // the events file written
        int scalars = 0; // values written
        QString error;   // why not (naming the file), when !ok
        QString warning; // a damaged metrics.jsonl, read up to the damage
    };
    // Writes run `name` of `store` into `dir`/`name`; `hparams` (a sweep
    // trial's parameters) go to the hparams plugin when not empty.
    static Result writeRun(const RunStore &store, const QString &name, const QString &dir, const HParams &hparams = {});

    // The absolute time (seconds since 1970) the run's "wall" 0 stands for.
    static double startTime(const RunStore &store, const QString &name, double lastWall);
};

} // namespace trainyard
