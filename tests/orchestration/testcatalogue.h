#pragma once

// Catalogues in the shape of `trainyard-worker --list-models`, small, for
// tests that must not depend on a built worker: one for the catalogue's own
// parsing, the palette and the run editor, one for experiment validation.

#include "orchestration/catalogue/modelcatalogue.h"

#include <QByteArray>
#include <QString>

namespace trainyard::test {

// Two models (transe: kg, mlp: image), three data kinds, a few keys per section.
inline QByteArray catalogueJson()
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

// What the experiment tests check files against: the worker's data kinds
// in its order, open-ended ranges, and a model "x" of no
// parameters that the validation messages' test cases use.
inline QByteArray validationCatalogueJson()
{
    return R"({"version": "test", "protocol": 1,
      "models": [
        {"type": "transe", "task": "kg",
         "params": [{"name": "dim", "type": "int", "default": 100, "min": 1, "max": 4096},
                    {"name": "norm", "type": "int", "default": 1, "choices": [1, 2]}],
         "defaults": {"data": {"kind": "synthetic-kg"}}},
        {"type": "x", "task": "kg", "params": []},
        {"type": "mlp", "task": "image", "params": [{"name": "hidden", "type": "int", "default": 64, "min": 1}]}],
      "data_kinds": [
        {"kind": "kg", "task": "kg", "params": [{"name": "path", "type": "path", "default": ""}]},
        {"kind": "idx", "task": "image", "params": [{"name": "path", "type": "path", "default": "/usr/share/datasets/fashion-mnist"}]},
        {"kind": "synthetic-kg", "task": "kg",
         "params": [{"name": "entities", "type": "int", "default": 200, "min": 1},
                    {"name": "relations", "type": "int", "default": 10, "min": 1},
                    {"name": "triples", "type": "int", "default": 4000, "min": 1}]},
        {"kind": "synthetic-images", "task": "image",
         "params": [{"name": "samples", "type": "int", "default": 2000, "min": 1},
                    {"name": "classes", "type": "int", "default": 10, "min": 1},
                    {"name": "size", "type": "int", "default": 28, "min": 1}]}],
      "train": [{"name": "epochs", "type": "int", "default": 10, "min": 1},
                {"name": "max_steps", "type": "int", "default": null, "min": 1, "nullable": true},
                {"name": "batch_size", "type": "int", "default": 128, "min": 1},
                {"name": "optimizer", "type": "string", "default": "adam", "choices": ["adam", "sgd", "adagrad"]},
                {"name": "lr", "type": "float", "default": 0.001, "min": 0.0, "min_exclusive": true},
                {"name": "seed", "type": "int", "default": 1, "min": 0}],
      "eval": [{"name": "every_epochs", "type": "int", "default": 10, "min": 0},
               {"name": "split", "type": "string", "default": "valid", "choices": ["valid", "test"]}],
      "checkpoint": [{"name": "every_steps", "type": "int", "default": 1000, "min": 0}],
      "report": [{"name": "every_steps", "type": "int", "default": 10, "min": 0}]})";
}

// A model whose recipes set what a new run leaves to "auto" (as the real
// worker's KG models do): model.dim, model.loss, train.lr, train.batch_size, train.negatives.
inline QByteArray recipeCatalogueJson()
{
    return R"({"version": "test", "protocol": 1,
      "models": [
        {"type": "transe", "task": "kg",
         "params": [{"name": "dim", "type": "int", "default": 100, "min": 1, "max": 4096},
                    {"name": "loss", "type": "string", "default": "softmax", "choices": ["softmax", "margin"]},
                    {"name": "recipe", "type": "string", "default": "auto", "choices": ["auto", "none", "small"]}],
         "defaults": {"data": {"kind": "synthetic-kg"}},
         "recipes": [{"name": "small", "fits": "small graphs",
                      "model": {"dim": 200, "loss": "margin"},
                      "train": {"lr": 0.01, "batch_size": 512, "negatives": 32}}]}],
      "data_kinds": [
        {"kind": "synthetic-kg", "task": "kg",
         "params": [{"name": "entities", "type": "int", "default": 200, "min": 1},
                    {"name": "relations", "type": "int", "default": 10, "min": 1},
                    {"name": "triples", "type": "int", "default": 4000, "min": 1}]}],
      "train": [{"name": "epochs", "type": "int", "default": 10, "min": 1},
                {"name": "batch_size", "type": "int", "default": 128, "min": 1},
                {"name": "negatives", "type": "int", "default": 1, "min": 1},
                {"name": "lr", "type": "float", "default": 0.001, "min": 0.0, "min_exclusive": true},
                {"name": "seed", "type": "int", "default": 1, "min": 0}],
      "eval": [{"name": "every_epochs", "type": "int", "default": 10, "min": 0}],
      "checkpoint": [], "report": []})";
}

inline const ModelCatalogue &validationCatalogue()
{
    static const ModelCatalogue catalogue = [] {
        QString error;
        ModelCatalogue c = ModelCatalogue::fromJson(validationCatalogueJson(), &error);
        if (c.isEmpty()) {
            qFatal("validationCatalogueJson: %s", qPrintable(error));
        }
        return c;
    }();
    return catalogue;
}

} // namespace trainyard::test
