#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/experiment/dependencycheck.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/jsonchecks.h"
#include "orchestration/experiment/keytables.h"
#include "orchestration/experiment/onend.h"
#include "orchestration/experiment/programconfig.h"
#include "orchestration/experiment/programrequires.h"
#include "orchestration/placement/runresources.h"
#include "orchestration/runspec/runspecview.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>

namespace trainyard {

using namespace jsonchecks;

namespace {

// What a model type or data kind can look like without the catalogue that
// lists them: a name, never a path or a command line ("/bin/sh").
bool isCatalogueName(const QString &name)
{
    static const QRegularExpression re(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")));
    return re.match(name).hasMatch();
}

// Every key of `values` (but `skip`, the key that chose `params`) must be one
// of `params` and hold what it accepts.
void checkParams(const QJsonObject &values, const QList<ParamInfo> &params, const QString &path, const QString &skip,
                 QStringList &errors)
{
    for (auto it = values.begin(); it != values.end(); ++it) {
        if (it.key() == skip) {
            continue;
        }
        const ParamInfo *param = nullptr;
        for (const ParamInfo &p : params) {
            param = p.name == it.key() ? &p : param;
        }
        const QString where = child(path, it.key());
        if (!param) {
            QStringList names;
            if (!skip.isEmpty()) {
                names << skip;
            }
            for (const ParamInfo &p : params) {
                names << p.name;
            }
            errors << QStringLiteral("%1: unknown key (expected one of %2)")
                          .arg(where, names.isEmpty() ? QStringLiteral("no keys") : names.join(QStringLiteral(", ")));
        } else if (!param->accepts(it.value())) {
            errors << expected(where, param->expectation(), it.value());
        }
    }
}

void checkName(const QJsonObject &spec, const QString &path, QStringList &errors)
{
    if (spec.contains(QStringLiteral("name"))) {
        const QJsonValue v = spec.value(QStringLiteral("name"));
        if (!v.isString() || !isSafeRunName(v.toString())) {
            errors << expected(
                child(path, QStringLiteral("name")),
                QStringLiteral(
                    "a name of 1–100 letters, digits or ._+@- not starting with '.' nor ending in .attempt-N"),
                v);
        }
    }
}

// A program run: {"name", "program": {"argv", "cwd", "env", "requires"}, "config",
// "train": {"seed"}, "repeat"}. What it runs is checked for shape only; whether it
// may run at all is the trust list's question (experiment/trustlist.h).
void checkProgramRun(const QJsonObject &spec, const QString &path, bool allowRepeat, QStringList &errors)
{
    for (const QString &key : {QStringLiteral("model"), QStringLiteral("data")}) {
        if (spec.contains(key)) {
            errors << QStringLiteral("%1: a program run has no %2 (its program reads its own data)")
                          .arg(child(path, key), key);
        }
    }
    QJsonObject rest = spec;
    rest.remove(QStringLiteral("model"));
    rest.remove(QStringLiteral("data"));
    checkKeys(rest, keytables::programRun(), path, errors, allowRepeat);

    QJsonObject holder;
    const QString programPath = child(path, QStringLiteral("program"));
    if (const QJsonObject *program = objectAt(spec, QStringLiteral("program"), path, errors, holder)) {
        checkKeys(*program, keytables::program(), programPath, errors);
        const QJsonValue argv = program->value(QStringLiteral("argv"));
        const QString argvPath = child(programPath, QStringLiteral("argv"));
        const QString what = QStringLiteral("a non-empty list of strings (the program and its arguments)");
        if (!argv.isArray() || argv.toArray().isEmpty() || argv.toArray().size() > 10000) {
            errors << expected(argvPath, what, argv);
        } else {
            const QJsonArray items = argv.toArray();
            for (qsizetype i = 0; i < items.size(); ++i) {
                const QJsonValue item = items.at(i);
                if (!item.isString() || item.toString().contains(QChar(0)) || item.toString().size() > 100000
                    || (i == 0 && item.toString().isEmpty())) {
                    errors << expected(QStringLiteral("%1[%2]").arg(argvPath).arg(i),
                                       i == 0 ? QStringLiteral("a program name or path")
                                              : QStringLiteral("a string without NUL characters"),
                                       item);
                }
            }
        }
        if (argv.isArray() && !argv.toArray().isEmpty()) {
            errors << programrequires::validate(*program, programPath);
        }
        const QJsonValue cwd = program->value(QStringLiteral("cwd"));
        if (!cwd.isUndefined() && (!cwd.isString() || cwd.toString().isEmpty() || cwd.toString().contains(QChar(0)))) {
            errors << expected(child(programPath, QStringLiteral("cwd")), QStringLiteral("a folder's path"), cwd);
        }
        const QJsonValue env = program->value(QStringLiteral("env"));
        if (!env.isUndefined() && !env.isObject()) {
            errors << expected(child(programPath, QStringLiteral("env")),
                               QStringLiteral("an object of variable names and strings"), env);
        } else {
            static const QRegularExpression name(
                QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z_][A-Za-z0-9_]{0,127}")));
            const QJsonObject vars = env.toObject();
            for (auto it = vars.begin(); it != vars.end(); ++it) {
                const QString where = child(child(programPath, QStringLiteral("env")), it.key());
                if (!name.match(it.key()).hasMatch()) {
                    errors << QStringLiteral("%1: not a variable name (letters, digits and _)").arg(where);
                } else if (it.key().startsWith(QLatin1String("TRAINYARD_"))
                           || it.key() == QLatin1String("CUDA_VISIBLE_DEVICES")
                           || it.key() == QLatin1String("CUDA_DEVICE_ORDER")) {
                    errors << QStringLiteral("%1: set by Trainyard for every run (its lane, folder and socket)")
                                  .arg(where);
                } else if (!it.value().isString() || it.value().toString().contains(QChar(0))) {
                    errors << expected(where, QStringLiteral("a string"), it.value());
                }
            }
        }
    }
    errors << programconfig::check(spec, path);
    if (const QJsonObject *train = objectAt(spec, QStringLiteral("train"), path, errors, holder)) {
        const QString trainPath = child(path, QStringLiteral("train"));
        checkKeys(*train, keytables::programTrain(), trainPath, errors);
        checkInt(*train, QStringLiteral("seed"), trainPath, 0, 0, errors);
    }
}

// The keys only an experiment file's entry has: "repeat" and "after".
void checkFileKeys(const QJsonObject &spec, const QString &path, QStringList &errors)
{
    checkInt(spec, QStringLiteral("repeat"), path, 1, 1000, errors);
    if (spec.contains(QStringLiteral("after"))) {
        checkAfterValue(spec.value(QStringLiteral("after")), child(path, QStringLiteral("after")), errors);
    }
    if (spec.contains(QStringLiteral("on_end"))) {
        errors << onend::check(spec.value(QStringLiteral("on_end")), child(path, QStringLiteral("on_end")),
                               onend::Level::Run);
    }
}

// "resources" (placement/runresources.h): its shape, and one GPU for the
// worker's own models, which train on one (a program may run torchrun).
void checkResources(const QJsonObject &spec, const QString &path, bool program, QStringList &errors)
{
    const QString key = QStringLiteral("resources");
    const int before = int(errors.size());
    QJsonObject holder;
    const QJsonObject *resources = objectAt(spec, key, path, errors, holder);
    if (!resources) {
        return;
    }
    const QString at = child(path, key);
    const QString memory = QStringLiteral("gpu_memory");
    const QString onOom = QStringLiteral("on_oom");
    checkKeys(*resources, keytables::resources(), at, errors);
    checkInt(*resources, QStringLiteral("gpus"), at, 1, RunResources::kMaxGpus, errors);
    if (resources->contains(memory) && RunResources::memoryOf(resources->value(memory)) < 0) {
        errors << expected(child(at, memory),
                           QStringLiteral("a number of bytes or a size such as \"30GiB\" or \"512MiB\""),
                           resources->value(memory));
    }
    if (const QJsonValue v = resources->value(onOom); resources->contains(onOom)
                                                      && v != QJsonValue(QStringLiteral("fail"))
                                                      && v != QJsonValue(QStringLiteral("retry"))) {
        errors << expected(child(at, onOom), QStringLiteral("\"fail\" or \"retry\""), v);
    }
    if (errors.size() == before && !program && RunResources::of(spec).gpus > 1) {
        errors << QStringLiteral("%1.gpus: the built-in models train on one GPU, got %2 (a program run, such as "
                                 "torchrun, can use several)")
                      .arg(child(path, key))
                      .arg(RunResources::of(spec).gpus);
    }
}

} // namespace

bool isSafeRunName(const QString &name)
{
    // anchoredPattern: a plain '$' would also match before a final "\n".
    static const QRegularExpression re(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_+@-][A-Za-z0-9._+@-]{0,99}")));
    // NAME.attempt-N is the folder a kept attempt of NAME moves to (RunStore::archiveRunDir).
    static const QRegularExpression attempt(QStringLiteral("\\.attempt-[0-9]+$"));
    return re.match(name).hasMatch() && !attempt.match(name).hasMatch();
}

QStringList validateRunSpec(const QJsonObject &spec, const QString &path, bool allowRepeat,
                            const ModelCatalogue *catalogue)
{
    QStringList errors;
    if (spec.contains(QStringLiteral("program"))) {
        checkProgramRun(spec, path, allowRepeat, errors);
        checkName(spec, path, errors);
        checkResources(spec, path, true, errors);
        if (allowRepeat) {
            checkFileKeys(spec, path, errors);
        }
        return errors;
    }
    checkKeys(spec, keytables::modelRun(), path, errors, allowRepeat);
    checkName(spec, path, errors);
    checkResources(spec, path, false, errors);
    const RunSpecView view(spec);

    QJsonObject holder;
    const CatalogueModel *modelInfo = nullptr;
    if (!spec.contains(QStringLiteral("model"))) {
        errors << child(path, QStringLiteral("model: missing (expected an object with a \"type\")"));
    } else if (const QJsonObject *model = objectAt(spec, QStringLiteral("model"), path, errors, holder)) {
        const QJsonValue type = model->value(QStringLiteral("type"));
        const QString typePath = child(path, QStringLiteral("model.type"));
        if (catalogue) {
            modelInfo = type.isString() ? catalogue->model(type.toString()) : nullptr;
            if (!modelInfo) {
                errors << expected(
                    typePath, QStringLiteral("one of ") + catalogue->modelTypes().join(QStringLiteral(", ")), type);
            } else {
                checkParams(*model, modelInfo->params, child(path, QStringLiteral("model")), QStringLiteral("type"),
                            errors);
            }
        } else if (!type.isString() || !isCatalogueName(type.toString())) {
            errors << expected(typePath, QStringLiteral("a model type of 1–64 letters, digits or ._+-"), type);
        }
    }

    if (const QJsonObject *data = objectAt(spec, QStringLiteral("data"), path, errors, holder)) {
        const QJsonValue kind = data->value(QStringLiteral("kind"));
        const QString kindPath = child(path, QStringLiteral("data.kind"));
        if (catalogue) {
            const DataKindInfo *kindInfo = kind.isString() ? catalogue->dataKind(kind.toString()) : nullptr;
            if (!kindInfo) {
                const QString kinds = catalogue->dataKindNames().join(QStringLiteral(", "));
                errors << expected(kindPath, QStringLiteral("one of ") + kinds, kind);
            } else {
                // The worker refuses these too; saying so at load spares a failed run.
                if (modelInfo && !modelInfo->task.isEmpty() && !kindInfo->task.isEmpty()
                    && modelInfo->task != kindInfo->task) {
                    errors << QStringLiteral("%1: \"%2\" holds %3 data but model \"%4\" needs %5 data")
                                  .arg(kindPath, kindInfo->kind, kindInfo->task, modelInfo->type, modelInfo->task);
                }
                checkParams(*data, kindInfo->params, child(path, QStringLiteral("data")), QStringLiteral("kind"),
                            errors);
            }
        } else if (!kind.isString() || !isCatalogueName(kind.toString())) {
            errors << expected(kindPath, QStringLiteral("a data kind of 1–64 letters, digits or ._+-"), kind);
        }
    }

    for (const QString &section : ModelCatalogue::specSectionNames()) {
        if (const QJsonObject *values = objectAt(spec, section, path, errors, holder)) {
            if (catalogue) {
                checkParams(*values, catalogue->section(section), child(path, section), QString(), errors);
            }
        }
    }
    if (!catalogue) {
        // The catalogue checks train.seed with the rest; without one, still
        // what repeats rely on: seed + i must be an integer.
        const QString seed = QStringLiteral("seed");
        const QJsonObject train = view.train();
        if (train.contains(seed) && !(view.seed() && *view.seed() >= 0)) {
            errors << expected(child(path, QStringLiteral("train.seed")), QStringLiteral("an integer ≥ 0"),
                               train.value(seed));
        }
    }

    if (allowRepeat) {
        checkFileKeys(spec, path, errors);
    }
    return errors;
}

QJsonObject withDefaults(const QJsonObject &spec)
{
    QJsonObject out = spec;
    const RunSpecView view(spec);
    if (!out.contains(QStringLiteral("name")) && !view.effectiveName().isEmpty()) {
        out.insert(QStringLiteral("name"), view.effectiveName());
    }
    QJsonObject train = view.train();
    if (!train.contains(QStringLiteral("seed"))) {
        train.insert(QStringLiteral("seed"), 1);
        out.insert(QStringLiteral("train"), train);
    }
    return out;
}

QJsonObject pythonScriptRunSpec(const QString &file)
{
    const QFileInfo info(file);
    return QJsonObject{
        {QStringLiteral("program"),
         QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("python3"), info.absoluteFilePath()}},
                     {QStringLiteral("cwd"), info.absolutePath()}}}};
}

QStringList repeatNames(const QString &name, int count)
{
    if (count <= 1) {
        return {name};
    }
    QStringList names;
    for (int i = 1; i <= count; ++i) {
        names << name + QLatin1Char('-') + QString::number(i);
    }
    return names;
}

QJsonObject expandRepeat(const QJsonObject &spec, int index, int count)
{
    QJsonObject out = withDefaults(spec);
    out.remove(QStringLiteral("repeat"));
    if (count <= 1) {
        return out;
    }
    const RunSpecView view(out);
    // One name, not the group's list: callers expand every index (quadratic for a repeat of 1000).
    out.insert(QStringLiteral("name"), view.name() + QLatin1Char('-') + QString::number(index + 1));
    QJsonObject train = view.train();
    train.insert(QStringLiteral("seed"), view.seed().value_or(0) + index);
    out.insert(QStringLiteral("train"), train);
    return out;
}

} // namespace trainyard
