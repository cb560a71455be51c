#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace trainyard {

// A run spec's "resources": {"gpus": N, "gpu_memory": "30GiB", "on_oom":
// "fail" | "retry"} (docs/experiment-format.md#resources), every key
// optional. Kept in spec.json with the rest of the spec: it is part of what
// the run asked for.
struct RunResources
{
    int gpus = 1;            // on a GPU lane; a CPU lane's runs train on the CPU whatever it says
    qint64 memoryBytes = -1; // "gpu_memory" on each GPU; -1: not given (learned, else unknown)
    bool retryOnOom = false; // "on_oom": "retry"

    // The spec's resources, defaults for what it leaves out (the spec is valid).
    static RunResources of(const QJsonObject &spec);
    // A Slurm lane's `gres` ("gpu", "gpu:a100:1", empty: "gpu") asking for
    // `gpus` of its type: "gpu:2", "gpu:a100:2".
    static QString gresFor(const QString &laneGres, int gpus);
    // Whether the spec says how many GPUs it needs.
    static bool namesGpus(const QJsonObject &spec);
    // "gpu_memory" in bytes: a number, or a size such as "30GiB"; -1 when it is neither.
    static qint64 memoryOf(const QJsonValue &value);
    static constexpr int kMaxGpus = 64;
};

} // namespace trainyard
