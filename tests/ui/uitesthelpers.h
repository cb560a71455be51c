#pragma once

// Shared set-up for the UI tests: a small experiment on CPU lanes under a
// temporary runs root, and a catalog like the worker's --list-models.

#include "experiment.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

namespace trainyard::testing {

// A tiny TransE spec on generated data (trains in a second or two on a CPU).
inline QJsonObject tinyKgSpec(const QString &name, int epochs = 2)
{
    return QJsonObject{
        {QStringLiteral("name"), name},
        {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}, {QStringLiteral("dim"), 8}}},
        {QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("synthetic-kg")},
                                             {QStringLiteral("entities"), 40},
                                             {QStringLiteral("relations"), 3},
                                             {QStringLiteral("triples"), 400}}},
        {QStringLiteral("train"), QJsonObject{{QStringLiteral("epochs"), epochs},
                                              {QStringLiteral("batch_size"), 64},
                                              {QStringLiteral("optimizer"), QStringLiteral("adam")},
                                              {QStringLiteral("lr"), 0.01},
                                              {QStringLiteral("seed"), 1}}},
        {QStringLiteral("eval"), QJsonObject{{QStringLiteral("every_epochs"), 1}, {QStringLiteral("split"), QStringLiteral("valid")}}},
        {QStringLiteral("checkpoint"), QJsonObject{{QStringLiteral("every_steps"), 1000}}},
        {QStringLiteral("report"), QJsonObject{{QStringLiteral("every_steps"), 1}}},
    };
}

// Two CPU lanes: lane 0 holds a, b, c; lane 1 holds d.
inline Experiment twoLaneExperiment(const QString &runsRoot)
{
    Experiment e;
    e.name = QStringLiteral("ui-test");
    e.runsRoot = runsRoot;
    ExperimentLane first;
    first.device = QStringLiteral("cpu");
    for (const QString &n : {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}) {
        first.runs.append(ExperimentRun{tinyKgSpec(n), 1});
    }
    ExperimentLane second;
    second.device = QStringLiteral("cpu");
    second.runs.append(ExperimentRun{tinyKgSpec(QStringLiteral("d")), 1});
    e.lanes = {first, second};
    return e;
}

// The shape of `trainyard-worker --list-models` (common.md), small.
inline QByteArray catalogJson()
{
    return R"({"version": "0.1.0", "protocol": 1,
      "models": [
        {"type": "transe", "task": "kg", "description": "TransE",
         "params": [{"name": "dim", "type": "int", "default": 100, "min": 1, "max": 4096, "help": "embedding size"},
                    {"name": "norm", "type": "int", "default": 1, "choices": [1, 2]},
                    {"name": "margin", "type": "float", "default": 1.0, "min": 0.0, "max": 100.0}],
         "defaults": {"train": {"epochs": 50, "lr": 0.001}, "data": {"kind": "synthetic-kg"}}},
        {"type": "mlp", "task": "image", "description": "MLP",
         "params": [{"name": "hidden", "type": "int", "default": 64, "min": 1, "max": 8192}]}],
      "data_kinds": [
        {"kind": "kg", "task": "kg", "params": [{"name": "path", "type": "path", "default": ""}]},
        {"kind": "synthetic-kg", "task": "kg", "params": [{"name": "entities", "type": "int", "default": 200, "min": 2, "max": 100000}]},
        {"kind": "synthetic-images", "task": "image", "params": [{"name": "samples", "type": "int", "default": 1000, "min": 1, "max": 1000000}]}],
      "train": [{"name": "epochs", "type": "int", "default": 10, "min": 1, "max": 100000},
                {"name": "max_steps", "type": "int", "default": null, "min": 1, "max": 1000000000},
                {"name": "optimizer", "type": "string", "default": "adam", "choices": ["adam", "sgd", "adagrad"]},
                {"name": "lr", "type": "float", "default": 0.01, "min": 0.0, "max": 10.0},
                {"name": "seed", "type": "int", "default": 1, "min": 0, "max": 1000000}],
      "eval": [{"name": "every_epochs", "type": "int", "default": 10, "min": 0, "max": 100000}],
      "checkpoint": [], "report": []})";
}

} // namespace trainyard::testing
