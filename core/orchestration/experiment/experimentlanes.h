#pragma once

#include <QJsonObject>
#include <QStringList>

namespace trainyard {

class Experiment;
class ModelCatalogue;

// The experiment file's "lanes" into `ex.lanes` (Experiment::fromJson,
// after the clusters and hosts the devices name): each lane's name, device,
// slots and gres, its runs checked (against `catalogue` when given), named
// once across the file, repeats and rounds expanded. Each problem names its
// JSON path. `partial`: an invalid lane or run is kept as a placeholder,
// so the next ones keep their indices.
void readLanes(const QJsonObject &top, Experiment &ex, const ModelCatalogue *catalogue, bool partial,
               QStringList &problems);

} // namespace trainyard
