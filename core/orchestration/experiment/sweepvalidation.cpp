#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/jsonchecks.h"
#include "orchestration/experiment/keytables.h"
#include "orchestration/experiment/programconfig.h"
#include "orchestration/experiment/sweepdetail.h"
#include "orchestration/experiment/sweepspec.h"
#include "orchestration/runspec/runspecview.h"

#include <QHash>
#include <QJsonArray>
#include <QRegularExpression>

#include <cmath>

// Reading and checking the sweeps of an experiment file: every problem with
// its JSON path (docs/experiment-format.md#sweeps).
namespace trainyard {

using namespace jsonchecks;
using namespace sweepdetail;

namespace {

QString pair(const QJsonValue &a, const QJsonValue &b)
{
    return QStringLiteral("[%1, %2]").arg(describe(a), describe(b));
}

// {"values": [...]}, {"range": [lo, hi], "step": s}, {"uniform": [lo, hi]},
// {"log_uniform": [lo, hi]} (each with "int"), {"fixed": v}.
std::optional<SweepParameter> parseParameter(const QString &key, const QJsonValue &json, const QString &path,
                                             QStringList &errors)
{
    if (!json.isObject()) {
        errors << expected(path,
                           QStringLiteral("an object such as {\"values\": [...]}, {\"range\": [lo, hi], \"step\": s}, "
                                          "{\"uniform\": [lo, hi]}, {\"log_uniform\": [lo, hi]} or {\"fixed\": v}"),
                           json);
        return std::nullopt;
    }
    const QJsonObject o = json.toObject();
    const int before = errors.size();
    checkKeys(o, keytables::sweepParameter(), path, errors);
    SweepParameter p;
    p.key = key;
    QStringList kinds;
    for (const auto kind : {SweepParameter::Kind::Fixed, SweepParameter::Kind::Values, SweepParameter::Kind::Range,
                            SweepParameter::Kind::Uniform, SweepParameter::Kind::LogUniform}) {
        if (o.contains(kindName(kind))) {
            kinds << QLatin1Char('"') + kindName(kind) + QLatin1Char('"');
            p.kind = kind;
        }
    }
    if (kinds.isEmpty()) {
        errors << QStringLiteral("%1: expected one of \"values\", \"range\", \"uniform\", \"log_uniform\" or \"fixed\"")
                      .arg(path);
        return std::nullopt;
    }
    if (kinds.size() > 1) {
        errors << QStringLiteral("%1: %2 cannot go together (one kind per key)")
                      .arg(path, kinds.join(QStringLiteral(" and ")));
        return std::nullopt;
    }
    const QString kindPath = child(path, kindName(p.kind));
    const bool continuous = p.kind == SweepParameter::Kind::Range || p.kind == SweepParameter::Kind::Uniform
                            || p.kind == SweepParameter::Kind::LogUniform;
    if (o.contains(QStringLiteral("step")) && p.kind != SweepParameter::Kind::Range) {
        errors << QStringLiteral("%1.step: only for \"range\"").arg(path);
    }
    if (o.contains(QStringLiteral("int"))) {
        const QJsonValue v = o.value(QStringLiteral("int"));
        if (!continuous) {
            errors << QStringLiteral("%1.int: only for \"range\", \"uniform\" and \"log_uniform\" (values keep the "
                                     "types they are written in)")
                          .arg(path);
        } else if (!v.isBool()) {
            errors << expected(child(path, QStringLiteral("int")), QStringLiteral("true or false"), v);
        } else {
            p.integer = v.toBool();
        }
    }

    if (p.kind == SweepParameter::Kind::Fixed) {
        p.values = {o.value(QStringLiteral("fixed"))};
        p.integer = isInteger(p.values.first());
    } else if (p.kind == SweepParameter::Kind::Values) {
        const QJsonValue v = o.value(QStringLiteral("values"));
        if (!v.isArray()) {
            errors << expected(kindPath, QStringLiteral("an array of values"), v);
        } else if (v.toArray().isEmpty()) {
            errors << QStringLiteral("%1: empty (expected at least one value)").arg(kindPath);
        } else {
            const QJsonArray items = v.toArray();
            p.integer = true;
            for (qsizetype i = 0; i < items.size(); ++i) {
                if (p.values.contains(items.at(i))) {
                    errors
                        << QStringLiteral("%1[%2]: %3 is listed twice").arg(kindPath).arg(i).arg(describe(items.at(i)));
                }
                p.values << items.at(i);
                p.integer = p.integer && isInteger(items.at(i));
            }
        }
    } else {
        const QJsonValue v = o.value(kindName(p.kind));
        const QJsonArray bounds = v.toArray();
        if (!v.isArray() || bounds.size() != 2 || !bounds.at(0).isDouble() || !bounds.at(1).isDouble()
            || !std::isfinite(bounds.at(0).toDouble()) || !std::isfinite(bounds.at(1).toDouble())) {
            errors << expected(kindPath, QStringLiteral("[low, high] (two numbers)"), v);
            return std::nullopt;
        }
        p.low = bounds.at(0).toDouble();
        p.high = bounds.at(1).toDouble();
        if (p.low > p.high) {
            errors << QStringLiteral("%1: low %2 is above high %3")
                          .arg(kindPath, describe(bounds.at(0)), describe(bounds.at(1)));
        }
        if (p.kind == SweepParameter::Kind::LogUniform && p.low <= 0) {
            errors << QStringLiteral("%1: a log range must stay above 0, got %2")
                          .arg(kindPath, pair(bounds.at(0), bounds.at(1)));
        }
        bool integralStep = true;
        if (p.kind == SweepParameter::Kind::Range && o.contains(QStringLiteral("step"))) {
            const QJsonValue step = o.value(QStringLiteral("step"));
            if (!step.isDouble() || !(step.toDouble() > 0) || !std::isfinite(step.toDouble())) {
                errors << expected(child(path, QStringLiteral("step")), QStringLiteral("a number > 0"), step);
            } else {
                p.step = step.toDouble();
            }
            integralStep = isInteger(step);
        }
        const bool integralBounds = isInteger(bounds.at(0)) && isInteger(bounds.at(1));
        if (p.integer && !(integralBounds && integralStep)) {
            errors << QStringLiteral("%1: \"int\": true needs integer bounds%2, got %3")
                          .arg(kindPath,
                               p.kind == SweepParameter::Kind::Range ? QStringLiteral(" and step") : QString(),
                               pair(bounds.at(0), bounds.at(1)));
        }
        // A range of integers is one of integers, whether "int" says so or not.
        if (p.kind == SweepParameter::Kind::Range) {
            p.integer = integralBounds && integralStep;
        }
        if (p.kind == SweepParameter::Kind::Range && errors.size() == before
            && rangeCount(p.low, p.high, p.step) > kMaxRangeValues) {
            errors << QStringLiteral("%1: more than %2 values (a larger step, or \"uniform\" with \"method\": "
                                     "\"random\")")
                          .arg(kindPath)
                          .arg(kMaxRangeValues);
        }
    }
    if (errors.size() != before) {
        return std::nullopt;
    }
    return p;
}

// The catalogue's entry for the dotted `key` of the resolved worker spec
// `spec`, or a problem ("unknown key (expected one of dim, norm)").
const ParamInfo *catalogueParam(const ModelCatalogue &catalogue, const QJsonObject &spec, const QString &key,
                                const QString &path, QStringList &errors)
{
    const qsizetype dot = key.indexOf(QLatin1Char('.'));
    const QString section = key.left(dot);
    const QString name = key.mid(dot + 1);
    const RunSpecView view(spec);
    QList<ParamInfo> params;
    if (section == QLatin1String("model")) {
        if (const CatalogueModel *model = catalogue.model(view.modelType())) {
            params = model->params;
        } else {
            return nullptr; // the base's model type is reported with the base
        }
    } else if (section == QLatin1String("data")) {
        if (const DataKindInfo *kind = catalogue.dataKind(view.dataKind())) {
            params = kind->params;
        } else {
            return nullptr;
        }
    } else {
        params = catalogue.section(section);
    }
    for (const ParamInfo &p : std::as_const(params)) {
        if (p.name == name) {
            return &p;
        }
    }
    QStringList names;
    for (const ParamInfo &p : std::as_const(params)) {
        names << p.name;
    }
    errors << QStringLiteral("%1: unknown key (expected one of %2)")
                  .arg(path, names.isEmpty() ? QStringLiteral("no keys") : names.join(QStringLiteral(", ")));
    return nullptr;
}

// The values of `p` a trial can take, as the catalogue must accept them:
// every value of a discrete key, the bounds of a continuous one.
QList<std::pair<QString, QJsonValue>> extremes(const SweepParameter &p, const QString &path)
{
    QList<std::pair<QString, QJsonValue>> out;
    const QString kindPath = child(path, kindName(p.kind));
    if (p.kind == SweepParameter::Kind::Fixed) {
        out.append({kindPath, p.values.first()});
    } else if (p.kind == SweepParameter::Kind::Values) {
        for (qsizetype i = 0; i < p.values.size(); ++i) {
            out.append({QStringLiteral("%1[%2]").arg(kindPath).arg(i), p.values.at(i)});
        }
    } else {
        const QList<QJsonValue> grid = p.gridValues();
        const QJsonValue last =
            p.kind == SweepParameter::Kind::Range ? grid.value(grid.size() - 1) : numberValue(p.high, p.integer);
        out.append({kindPath + QStringLiteral("[0]"), numberValue(p.low, p.integer)});
        out.append({kindPath + QStringLiteral("[1]"), last});
    }
    return out;
}

// Whether the space may set `p.key` of `base`, and to its values.
void checkSpaceKey(const SweepParameter &p, const QJsonObject &base, const QString &path,
                   const ModelCatalogue *catalogue, QStringList &errors)
{
    const QString &key = p.key;
    const bool program = RunSpecView(base).isProgram();
    if (key == QLatin1String("program") || key.startsWith(QLatin1String("program."))) {
        errors << QStringLiteral("%1: not searchable: what a program runs is a command (give the value as "
                                 "config.<name> and write {name} in program.argv)")
                      .arg(path);
        return;
    }
    if (key == QLatin1String("train.seed")) {
        // Trials count their seeds from it: an integer for every runner, with a catalogue or not.
        const qsizetype before = errors.size();
        for (const auto &[where, value] : extremes(p, path)) {
            if (!isInteger(value) || value.toDouble() < 0) {
                errors << expected(where, QStringLiteral("an integer ≥ 0"), value);
            }
        }
        if (program || errors.size() != before) {
            return;
        }
    }
    if (program) {
        if (key.startsWith(QLatin1String("config.")) && programconfig::isConfigName(key.mid(7))) {
            return;
        }
        if (key != QLatin1String("train.seed")) {
            errors << QStringLiteral("%1: a program run takes its parameters as config.<name> keys (a name of "
                                     "letters, digits and _) and train.seed")
                          .arg(path);
        }
        return;
    }
    static const QStringList sections =
        QStringList{QStringLiteral("model"), QStringLiteral("data")} + ModelCatalogue::specSectionNames();
    const qsizetype dot = key.indexOf(QLatin1Char('.'));
    if (dot <= 0 || dot == key.size() - 1 || !sections.contains(key.left(dot))) {
        errors << QStringLiteral("%1: expected a key of the run spec such as train.lr or model.dim (one of %2, a dot "
                                 "and a key)")
                      .arg(path, sections.join(QStringLiteral(", ")));
        return;
    }
    if (key == QLatin1String("model.type") || key == QLatin1String("data.kind")) {
        errors << QStringLiteral("%1: not searchable: the base's %2 is the sweep's (one sweep per %2)")
                      .arg(path, key == QLatin1String("model.type") ? QStringLiteral("model type")
                                                                    : QStringLiteral("data kind"));
        return;
    }
    if (!catalogue) {
        return;
    }
    const ParamInfo *param = catalogueParam(*catalogue, catalogue->resolve(base), key, path, errors);
    if (!param) {
        return;
    }
    if (param->type == QLatin1String("int") && !p.integer
        && (p.kind == SweepParameter::Kind::Uniform || p.kind == SweepParameter::Kind::LogUniform)) {
        errors << QStringLiteral("%1: %2 takes integers: add \"int\": true").arg(path, key);
        return;
    }
    for (const auto &[where, value] : extremes(p, path)) {
        if (!param->accepts(value)) {
            errors << expected(where, param->expectation(), value);
        }
    }
}

// The base as its trials run it. A program base's config gets the space's
// config keys (its argv's {name}s must find them), each of their values
// tried in turn: a value that would make the command bad is refused here.
void checkBase(const SweepSpec &sweep, const QString &basePath, const QString &spacePath,
               const ModelCatalogue *catalogue, QStringList &errors)
{
    if (!RunSpecView(sweep.base).isProgram()) {
        errors << validateRunSpec(sweep.base, basePath, false, catalogue);
        return;
    }
    QJsonObject probe = sweep.base;
    QList<SweepParameter> config;
    for (const SweepParameter &p : sweep.space) {
        if (p.key.startsWith(QLatin1String("config."))) {
            config << p;
            setSpecValue(probe, p.key, extremes(p, QString()).first().second);
        }
    }
    const QStringList baseErrors = validateRunSpec(probe, basePath, false, catalogue);
    errors << baseErrors;
    if (!baseErrors.isEmpty()) {
        return;
    }
    for (const SweepParameter &p : std::as_const(config)) {
        for (const auto &[where, value] : extremes(p, child(spacePath, p.key))) {
            QJsonObject trial = probe;
            setSpecValue(trial, p.key, value);
            for (const QString &problem : validateRunSpec(trial, basePath, false, catalogue)) {
                errors << QStringLiteral("%1: a trial with %2 is refused: %3").arg(where, describe(value), problem);
            }
        }
    }
}

// "valid/mrr": a split, a slash and a metric as eval lines name them.
void checkObjective(const QJsonObject &o, const QJsonObject &base, const QList<SweepParameter> &space,
                    const QString &path, const ModelCatalogue *catalogue, SweepSpec &sweep, QStringList &errors)
{
    const QJsonValue json = o.value(QStringLiteral("objective"));
    if (json.isUndefined()) {
        errors << QStringLiteral("%1: missing (expected {\"metric\": \"valid/mrr\", \"mode\": \"max\"})").arg(path);
        return;
    }
    if (!json.isObject()) {
        errors << expected(path, QStringLiteral("an object such as {\"metric\": \"valid/mrr\", \"mode\": \"max\"}"),
                           json);
        return;
    }
    const QJsonObject objective = json.toObject();
    checkKeys(objective, keytables::objective(), path, errors);
    static const QRegularExpression metricRe(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_-]{1,64}/[A-Za-z0-9_@.+-]{1,64}")));
    const QJsonValue metric = objective.value(QStringLiteral("metric"));
    const QString metricPath = child(path, QStringLiteral("metric"));
    if (!metric.isString() || !metricRe.match(metric.toString()).hasMatch()) {
        errors << expected(metricPath, QStringLiteral("\"<split>/<metric>\" such as \"valid/mrr\""), metric);
    } else {
        sweep.objective = metric.toString();
        // The worker evaluates one split (eval.split): a metric of another is never reported.
        bool splitSwept = false;
        for (const SweepParameter &p : space) {
            splitSwept = splitSwept || p.key == QLatin1String("eval.split");
        }
        const RunSpecView view(base);
        if (catalogue && !view.isProgram() && !splitSwept && catalogue->model(view.modelType())) {
            const QString split = RunSpecView(catalogue->resolve(base)).evalSplit();
            const QString wanted = sweep.objective.section(QLatin1Char('/'), 0, 0);
            if (!split.isEmpty() && split != wanted) {
                errors << QStringLiteral("%1: the trials evaluate the \"%2\" split (base.eval.split), so they never "
                                         "report \"%3\"")
                              .arg(metricPath, split, sweep.objective);
            }
        }
    }
    const QJsonValue mode = objective.value(QStringLiteral("mode"));
    if (mode != QJsonValue(QStringLiteral("max")) && mode != QJsonValue(QStringLiteral("min"))) {
        errors << expected(child(path, QStringLiteral("mode")), QStringLiteral("\"max\" or \"min\""), mode);
    } else {
        sweep.maximize = mode.toString() == QLatin1String("max");
    }
}

void checkStopping(const QJsonObject &o, const QString &path, SweepStopping &stopping, QStringList &errors)
{
    if (!o.contains(QStringLiteral("early_stopping"))) {
        return;
    }
    const QJsonValue json = o.value(QStringLiteral("early_stopping"));
    if (!json.isObject()) {
        errors << expected(path, QStringLiteral("an object such as {\"rule\": \"asha\", \"max\": 100}"), json);
        return;
    }
    const QJsonObject s = json.toObject();
    const QJsonValue rule = s.value(QStringLiteral("rule"));
    const bool median = rule == QJsonValue(QStringLiteral("median"));
    QStringList known = keytables::earlyStopping().names();
    if (median) {
        known.removeAll(QStringLiteral("eta")); // the median rule has no reduction factor
    }
    checkKeys(s, known, path, errors);
    if (rule == QJsonValue(QStringLiteral("asha"))) {
        stopping.rule = SweepStopping::Rule::Asha;
    } else if (median) {
        stopping.rule = SweepStopping::Rule::Median;
    } else {
        errors << expected(child(path, QStringLiteral("rule")), QStringLiteral("\"asha\" or \"median\""), rule);
    }
    if (s.contains(QStringLiteral("resource"))) {
        const QJsonValue resource = s.value(QStringLiteral("resource"));
        if (resource != QJsonValue(QStringLiteral("epoch")) && resource != QJsonValue(QStringLiteral("step"))) {
            errors << expected(child(path, QStringLiteral("resource")), QStringLiteral("\"epoch\" or \"step\""),
                               resource);
        } else {
            stopping.resource = resource.toString();
        }
    }
    const auto positive = [&](const QString &key, double *into) {
        const QJsonValue v = s.value(key);
        if (v.isUndefined()) {
            return;
        }
        if (!v.isDouble() || !(v.toDouble() > 0) || !std::isfinite(v.toDouble())) {
            errors << expected(child(path, key), QStringLiteral("a number > 0"), v);
        } else {
            *into = v.toDouble();
        }
    };
    positive(QStringLiteral("min"), &stopping.min);
    if (!s.contains(QStringLiteral("max"))) {
        errors << QStringLiteral("%1.max: missing (expected the %2 the trials train up to)")
                      .arg(path, stopping.resource == QLatin1String("step") ? QStringLiteral("step")
                                                                            : QStringLiteral("epoch"));
    }
    positive(QStringLiteral("max"), &stopping.max);
    if (stopping.max > 0 && stopping.min > stopping.max) {
        errors << QStringLiteral("%1.min: %2 is above max %3")
                      .arg(path, describe(QJsonValue(stopping.min)), describe(QJsonValue(stopping.max)));
    }
    if (s.contains(QStringLiteral("eta")) && !median) {
        const QJsonValue eta = s.value(QStringLiteral("eta"));
        if (!eta.isDouble() || !(eta.toDouble() > 1) || !std::isfinite(eta.toDouble())) {
            errors << expected(child(path, QStringLiteral("eta")), QStringLiteral("a number > 1"), eta);
        } else {
            stopping.eta = eta.toDouble();
        }
    }
    // A ladder of rungs min * eta^k up to max: a few dozen at most in any real
    // search, and a bound so that no file can make it endless.
    constexpr double kMaxRungs = 100;
    if (!median && stopping.max >= stopping.min && stopping.min > 0 && stopping.eta > 1
        && std::log(stopping.max / stopping.min) / std::log(stopping.eta) > kMaxRungs - 1) {
        errors << QStringLiteral("%1: min %2, max %3 and eta %4 make more than %5 rungs")
                      .arg(path, describe(QJsonValue(stopping.min)), describe(QJsonValue(stopping.max)),
                           describe(QJsonValue(stopping.eta)))
                      .arg(int(kMaxRungs));
    }
}

// Everything of `o` that could be read, each problem added to `errors`;
// a bad key of the space is left out of it.
SweepSpec parseSweepImpl(const QJsonObject &o, const QString &path, int laneCount, QStringList &errors,
                         const ModelCatalogue *catalogue)
{
    SweepSpec sweep;
    checkKeys(o, keytables::sweep(), path, errors);

    const QJsonValue name = o.value(QStringLiteral("name"));
    const QString namePath = child(path, QStringLiteral("name"));
    if (!name.isString() || !isSafeRunName(name.toString())) {
        errors << expected(
            namePath,
            QStringLiteral("a name of 1–100 letters, digits or ._+@- not starting with '.' nor ending in .attempt-N"),
            name);
    } else {
        sweep.name = name.toString();
    }

    const QJsonValue base = o.value(QStringLiteral("base"));
    const QString basePath = child(path, QStringLiteral("base"));
    if (!base.isObject()) {
        errors << (base.isUndefined()
                       ? basePath
                             + QStringLiteral(": missing (expected a run spec: a model and its data, or a program)")
                       : expected(basePath, QStringLiteral("a run spec object"), base));
    } else {
        sweep.base = base.toObject(); // checked with the space (checkBase)
        if (sweep.base.contains(QStringLiteral("name"))) {
            errors << QStringLiteral("%1.name: a sweep names its trials (\"<sweep>-1\", \"<sweep>-2\", ...); name the "
                                     "sweep instead")
                          .arg(basePath);
        }
    }

    const QJsonValue method = o.value(QStringLiteral("method"));
    if (!method.isUndefined() && method != QJsonValue(QStringLiteral("grid"))
        && method != QJsonValue(QStringLiteral("random"))) {
        errors << expected(child(path, QStringLiteral("method")), QStringLiteral("\"grid\" or \"random\""), method);
    } else if (method.isString()) {
        sweep.method = method.toString();
    }
    const bool grid = sweep.method == QLatin1String("grid");

    const QJsonValue space = o.value(QStringLiteral("space"));
    const QString spacePath = child(path, QStringLiteral("space"));
    if (space.isObject() && space.toObject().isEmpty()) {
        errors << QStringLiteral("%1: no key is swept yet (add one, such as {\"train.lr\": {\"values\": [0.01, "
                                 "0.001]}})")
                      .arg(spacePath);
    } else if (!space.isObject()) {
        errors << expected(spacePath,
                           QStringLiteral("an object of run spec keys, such as {\"train.lr\": {\"values\": "
                                          "[0.01, 0.001]}}"),
                           space);
    } else {
        const QJsonObject keys = space.toObject();
        for (auto it = keys.begin(); it != keys.end(); ++it) {
            const QString where = child(spacePath, it.key());
            const int before = errors.size();
            std::optional<SweepParameter> p = parseParameter(it.key(), it.value(), where, errors);
            if (!p) {
                continue;
            }
            if (grid && !p->isDiscrete()) {
                errors << QStringLiteral("%1: a grid cannot enumerate \"%2\" (use \"values\" or \"range\", or "
                                         "\"method\": \"random\")")
                              .arg(where, kindName(p->kind));
            }
            if (!sweep.base.isEmpty()) {
                checkSpaceKey(*p, sweep.base, where, catalogue, errors);
            }
            if (errors.size() == before) {
                sweep.space << *p;
            }
        }
    }
    if (!sweep.base.isEmpty()) {
        checkBase(sweep, basePath, spacePath, catalogue, errors);
    }

    checkInt(o, QStringLiteral("trials"), path, grid ? 0 : 1, kMaxTrials, errors);
    sweep.trials = isInteger(o.value(QStringLiteral("trials"))) ? o.value(QStringLiteral("trials")).toInt() : 0;
    if (!grid && !o.contains(QStringLiteral("trials"))) {
        errors << QStringLiteral("%1.trials: missing (\"random\" needs a number of trials, 1 to %2)")
                      .arg(path)
                      .arg(kMaxTrials);
    }
    checkInt(o, QStringLiteral("seed"), path, 0, 0, errors);
    if (isInteger(o.value(QStringLiteral("seed"))) && o.value(QStringLiteral("seed")).toDouble() >= 0) {
        sweep.seed = std::uint64_t(o.value(QStringLiteral("seed")).toDouble());
    }
    checkInt(o, QStringLiteral("max_grid"), path, 1, kMaxTrials, errors);
    if (isInteger(o.value(QStringLiteral("max_grid")))) {
        sweep.maxGrid = o.value(QStringLiteral("max_grid")).toInt();
    }

    if (grid && !sweep.space.isEmpty()) {
        qint64 size = 1;
        QStringList factors;
        for (const SweepParameter &p : std::as_const(sweep.space)) {
            size = std::min<qint64>(size * p.gridValues().size(), qint64(1) << 40);
            factors << QString::number(p.gridValues().size());
        }
        if (size > sweep.maxGrid) {
            errors << QStringLiteral("%1: the grid has %2 configurations (%3), more than max_grid %4 (raise "
                                     "max_grid, or use \"method\": \"random\")")
                          .arg(spacePath)
                          .arg(size)
                          .arg(factors.join(QStringLiteral(" × ")))
                          .arg(sweep.maxGrid);
        }
    }

    if (o.contains(QStringLiteral("lanes"))) {
        const QJsonValue lanes = o.value(QStringLiteral("lanes"));
        const QString lanesPath = child(path, QStringLiteral("lanes"));
        if (!lanes.isArray() || lanes.toArray().isEmpty()) {
            errors << expected(lanesPath,
                               QStringLiteral("a non-empty array of lane indices (leave \"lanes\" out for every lane)"),
                               lanes);
        } else {
            const QJsonArray items = lanes.toArray();
            for (qsizetype i = 0; i < items.size(); ++i) {
                const QString where = QStringLiteral("%1[%2]").arg(lanesPath).arg(i);
                const QJsonValue v = items.at(i);
                if (!isInteger(v) || v.toDouble() < 0) {
                    errors << expected(where, QStringLiteral("a lane index (an integer ≥ 0)"), v);
                } else if (v.toDouble() >= laneCount) {
                    errors << QStringLiteral("%1: no lane %2 (the experiment has %3)")
                                  .arg(where, describe(v),
                                       laneCount == 0 ? QStringLiteral("none")
                                       : laneCount == 1
                                           ? QStringLiteral("1 lane: 0")
                                           : QStringLiteral("%1 lanes: 0 to %2").arg(laneCount).arg(laneCount - 1));
                } else if (sweep.lanes.contains(v.toInt())) {
                    errors << QStringLiteral("%1: lane %2 is listed twice").arg(where).arg(v.toInt());
                } else {
                    sweep.lanes << v.toInt();
                }
            }
        }
    }

    checkObjective(o, sweep.base, sweep.space, child(path, QStringLiteral("objective")), catalogue, sweep, errors);
    checkStopping(o, child(path, QStringLiteral("early_stopping")), sweep.stopping, errors);
    return sweep;
}

QString folderNameRule()
{
    return QStringLiteral("a name of 1–100 letters, digits or ._+@- not starting with '.' nor ending in .attempt-N");
}

} // namespace

namespace sweepdetail {

SweepSpec parseSweep(const QJsonObject &o, const QString &path, int laneCount, QStringList &errors,
                     const ModelCatalogue *catalogue)
{
    return parseSweepImpl(o, path, laneCount, errors, catalogue);
}

} // namespace sweepdetail

void readSweeps(const QJsonObject &top, Experiment &ex, const ModelCatalogue *catalogue, QStringList &errors)
{
    if (!top.contains(QStringLiteral("sweeps"))) {
        return;
    }
    const QJsonValue sweeps = top.value(QStringLiteral("sweeps"));
    if (!sweeps.isArray()) {
        errors << expected(QStringLiteral("sweeps"), QStringLiteral("an array of sweeps"), sweeps);
        return;
    }
    // Trial names are run names: none may be a run's or another trial's.
    QHash<QString, QString> runNames; // run name -> where it is
    for (int l = 0; l < ex.lanes.size(); ++l) {
        const QList<ExperimentRun> &runs = ex.lanes.at(l).runs;
        for (int r = 0; r < runs.size(); ++r) {
            for (int i = 0; i < runs.at(r).repeat; ++i) {
                runNames.insert(RunSpecView(expandRepeat(runs.at(r).spec, i, runs.at(r).repeat)).name(),
                                QStringLiteral("lanes[%1].runs[%2]").arg(l).arg(r));
            }
        }
    }
    const int laneCount = int(top.value(QStringLiteral("lanes")).toArray().size());
    const QJsonArray items = sweeps.toArray();
    QHash<QString, QString> sweepNames;
    for (int s = 0; s < items.size(); ++s) {
        const QString sp = QStringLiteral("sweeps[%1]").arg(s);
        if (!items.at(s).isObject()) {
            errors << expected(sp, QStringLiteral("a sweep object"), items.at(s));
            continue;
        }
        SweepSpec sweep = parseSweep(items.at(s).toObject(), sp, laneCount, errors, catalogue);
        const QString namePath = child(sp, QStringLiteral("name"));
        if (!sweep.name.isEmpty()) {
            const QString last = SweepSpec::trialName(sweep.name, std::max(sweep.trialCount(), 1) - 1);
            if (sweepNames.contains(sweep.name)) {
                errors << QStringLiteral("%1: \"%2\" is already used by %3")
                              .arg(namePath, sweep.name, sweepNames.value(sweep.name));
            } else if (runNames.contains(sweep.name)) {
                errors << QStringLiteral("%1: \"%2\" is already used by %3")
                              .arg(namePath, sweep.name, runNames.value(sweep.name));
            } else if (!isSafeRunName(last)) {
                errors << expected(namePath, folderNameRule() + QStringLiteral(" for every trial"), QJsonValue(last));
            }
            for (int i = 0;
                 i < sweep.trialCount() && !sweepNames.contains(sweep.name) && !runNames.contains(sweep.name); ++i) {
                const QString trial = SweepSpec::trialName(sweep.name, i);
                const QString where = runNames.value(trial, sweepNames.value(trial));
                if (!where.isEmpty()) {
                    errors << QStringLiteral("%1: its trial \"%2\" has the name of %3").arg(namePath, trial, where);
                    break;
                }
            }
            for (int i = -1; i < sweep.trialCount(); ++i) {
                const QString taken = i < 0 ? sweep.name : SweepSpec::trialName(sweep.name, i);
                if (!sweepNames.contains(taken)) { // the first one to take it is named
                    sweepNames.insert(taken, sp);
                }
            }
        }
        ex.sweeps << sweep;
    }
}

} // namespace trainyard
