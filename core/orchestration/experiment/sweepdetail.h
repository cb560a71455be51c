#pragma once

#include "orchestration/experiment/sweepspec.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

// What SweepSpec's reading (sweepvalidation.cpp) and its trials
// (sweepspec.cpp) share; internal to the sweep folder.
namespace trainyard::sweepdetail {

// A sweep's trials count towards the same bound as an experiment's runs:
// a hostile file must not expand into millions of them.
constexpr int kMaxTrials = 10000;
// More values than any grid may hold (max_grid ≤ kMaxTrials) from one range.
constexpr qint64 kMaxRangeValues = 100000;

// A number as trials get it: an int where the key takes ints.
QJsonValue numberValue(double d, bool integer);
// How many values range [low, high] with `step` holds (kMaxRangeValues + 1 when more).
qint64 rangeCount(double low, double high, double step);
// "values", "range", ...: the key that says a parameter's kind.
QString kindName(SweepParameter::Kind kind);
// One sweep of the file: everything of `o` that could be read (a bad key of
// the space left out), each problem added to `errors`.
SweepSpec parseSweep(const QJsonObject &o, const QString &path, int laneCount, QStringList &errors,
                     const ModelCatalogue *catalogue);

} // namespace trainyard::sweepdetail
