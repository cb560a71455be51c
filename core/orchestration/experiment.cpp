#include "experiment.h"

#include "logcategories.h"
#include "modelcatalog.h"
#include "runspecview.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

#include <cmath>

// Q_INIT_RESOURCE must be used outside a namespace; referencing the
// initializer also keeps the linker from dropping the resource object of
// this static library.
static void initCoreResources()
{
    // Once per process (and thread-safe): demoPath() may be asked often.
    [[maybe_unused]] static const bool registered = [] {
        Q_INIT_RESOURCE(core);
        return true;
    }();
}

namespace trainyard {

namespace {

// Far beyond any real experiment; keeps a hostile file from expanding into
// millions of runs (repeat ≤ 1000 times thousands of entries).
constexpr int kMaxRuns = 10000;

// How a JSON value is shown after "got".
QString describe(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double: {
        const double d = v.toDouble();
        if (std::floor(d) == d && std::fabs(d) < 1e15)
            return QString::number(static_cast<qint64>(d));
        return QString::number(d);
    }
    case QJsonValue::String: {
        QString s = v.toString();
        if (s.size() > 40)
            s = s.left(40) + QStringLiteral("…");
        return QLatin1Char('"') + s + QLatin1Char('"');
    }
    case QJsonValue::Array:
        return QStringLiteral("an array");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

bool isInteger(const QJsonValue &v)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    return std::floor(d) == d && std::fabs(d) <= 9.0e15;
}

// "lanes[0].runs[1]" + "model" -> "lanes[0].runs[1].model"; a spec checked
// on its own (empty path) gives "model".
QString child(const QString &path, const QString &key)
{
    return path.isEmpty() ? key : path + QLatin1Char('.') + key;
}

QString expected(const QString &path, const QString &what, const QJsonValue &got)
{
    return path + QStringLiteral(": expected ") + what + QStringLiteral(", got ") + describe(got);
}

// Integer ≥ min (and ≤ max when max > 0).
void checkInt(const QJsonObject &o, const QString &key, const QString &path, qint64 min, qint64 max,
              QStringList &errors, bool nullable = false)
{
    if (!o.contains(key))
        return;
    const QJsonValue v = o.value(key);
    if (nullable && v.isNull())
        return;
    const bool ok = isInteger(v) && v.toDouble() >= double(min) && (max <= 0 || v.toDouble() <= double(max));
    if (!ok) {
        QString what = QStringLiteral("an integer ≥ %1").arg(min);
        if (max > 0)
            what = QStringLiteral("an integer from %1 to %2").arg(min).arg(max);
        if (nullable)
            what += QStringLiteral(" or null");
        errors << expected(child(path, key), what, v);
    }
}

void checkKeys(const QJsonObject &o, const QStringList &known, const QString &path, QStringList &errors)
{
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (!known.contains(it.key()))
            errors << QStringLiteral("%1: unknown key \"%2\" (expected one of %3)")
                          .arg(path.isEmpty() ? QStringLiteral("(top level)") : path, it.key(),
                               known.join(QStringLiteral(", ")));
    }
}

const QJsonObject *objectAt(const QJsonObject &o, const QString &key, const QString &path, QStringList &errors,
                            QJsonObject &holder)
{
    if (!o.contains(key))
        return nullptr;
    const QJsonValue v = o.value(key);
    if (!v.isObject()) {
        errors << expected(child(path, key), QStringLiteral("an object"), v);
        return nullptr;
    }
    holder = v.toObject();
    return &holder;
}

// sbatch options Trainyard sets itself: a cluster's extra arguments may not
// replace the job (--wrap), its log, its name or its environment.
const QStringList &reservedSbatchOptions()
{
    static const QStringList options{
        QStringLiteral("--wrap"),     QStringLiteral("--output"), QStringLiteral("--error"),
        QStringLiteral("--input"),    QStringLiteral("--export"), QStringLiteral("--parsable"),
        QStringLiteral("--job-name"), QStringLiteral("--chdir"),  QStringLiteral("--open-mode"),
        QStringLiteral("--signal"),   QStringLiteral("--gres"),   QStringLiteral("--partition"),
    };
    return options;
}

void checkString(const QJsonObject &o, const QString &key, const QString &path, const QString &what,
                 const QRegularExpression &re, QString *into, QStringList &errors)
{
    if (!o.contains(key))
        return;
    const QJsonValue v = o.value(key);
    if (!v.isString() || !re.match(v.toString()).hasMatch())
        errors << expected(child(path, key), what, v);
    else
        *into = v.toString();
}

ExperimentCluster parseCluster(const QJsonObject &o, const QString &path, QStringList &errors)
{
    static const QRegularExpression name(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_][A-Za-z0-9._-]{0,99}")));
    static const QRegularExpression absolute(QRegularExpression::anchoredPattern(QStringLiteral("/[^\\x00]*")));
    static const QRegularExpression host(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_.:\\[\\]-]{1,255}")));
    static const QRegularExpression user(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_][A-Za-z0-9._-]{0,63}")));
    // Slurm's time formats: minutes, m:s, h:m:s, d-h, d-h:m, d-h:m:s.
    static const QRegularExpression time(
        QRegularExpression::anchoredPattern(QStringLiteral("([0-9]+-)?[0-9]+(:[0-9]{1,2}){0,2}|UNLIMITED|INFINITE")));
    static const QRegularExpression word(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_.,+-]{1,200}")));

    ExperimentCluster c;
    checkKeys(o,
              {QStringLiteral("name"), QStringLiteral("reach"), QStringLiteral("host"), QStringLiteral("user"),
               QStringLiteral("port"), QStringLiteral("runs_root"), QStringLiteral("worker"), QStringLiteral("sbatch")},
              path, errors);
    if (!o.contains(QStringLiteral("name")))
        errors << expected(child(path, QStringLiteral("name")),
                           QStringLiteral("a cluster name of 1–100 letters, digits or ._-"),
                           QJsonValue(QJsonValue::Undefined));
    checkString(o, QStringLiteral("name"), path, QStringLiteral("a cluster name of 1–100 letters, digits or ._-"), name,
                &c.name, errors);
    const QJsonValue reach = o.value(QStringLiteral("reach"));
    if (!reach.isUndefined() && reach != QJsonValue(QStringLiteral("local"))
        && reach != QJsonValue(QStringLiteral("ssh")))
        errors << expected(child(path, QStringLiteral("reach")), QStringLiteral("\"local\" or \"ssh\""), reach);
    else if (reach.isString())
        c.reach = reach.toString();
    const bool ssh = c.reach == QLatin1String("ssh");
    if (ssh) {
        if (!o.contains(QStringLiteral("host")))
            errors << expected(child(path, QStringLiteral("host")),
                               QStringLiteral("the host to ssh to (reach \"ssh\")"), QJsonValue(QJsonValue::Undefined));
        checkString(o, QStringLiteral("host"), path, QStringLiteral("a host name or address"), host, &c.host, errors);
        checkString(o, QStringLiteral("user"), path, QStringLiteral("a user name"), user, &c.user, errors);
        checkInt(o, QStringLiteral("port"), path, 1, 65535, errors);
        c.port = o.value(QStringLiteral("port")).toInt(22);
        for (const QString &key : {QStringLiteral("runs_root"), QStringLiteral("worker")})
            if (!o.contains(key))
                errors << expected(child(path, key), QStringLiteral("an absolute path on the cluster (reach \"ssh\")"),
                                   QJsonValue(QJsonValue::Undefined));
    } else {
        for (const QString &key : {QStringLiteral("host"), QStringLiteral("user"), QStringLiteral("port")})
            if (o.contains(key))
                errors << QStringLiteral("%1: only with reach \"ssh\"").arg(child(path, key));
    }
    checkString(o, QStringLiteral("runs_root"), path, QStringLiteral("an absolute folder path"), absolute, &c.runsRoot,
                errors);
    checkString(o, QStringLiteral("worker"), path, QStringLiteral("an absolute path to trainyard-worker"), absolute,
                &c.worker, errors);

    QJsonObject holder;
    if (const QJsonObject *sbatch = objectAt(o, QStringLiteral("sbatch"), path, errors, holder)) {
        const QString sp = child(path, QStringLiteral("sbatch"));
        checkKeys(*sbatch,
                  {QStringLiteral("partition"), QStringLiteral("account"), QStringLiteral("qos"),
                   QStringLiteral("time"), QStringLiteral("extra_args")},
                  sp, errors);
        checkString(*sbatch, QStringLiteral("partition"), sp, QStringLiteral("a partition name"), word, &c.partition,
                    errors);
        checkString(*sbatch, QStringLiteral("account"), sp, QStringLiteral("an account name"), word, &c.account,
                    errors);
        checkString(*sbatch, QStringLiteral("qos"), sp, QStringLiteral("a QOS name"), word, &c.qos, errors);
        checkString(*sbatch, QStringLiteral("time"), sp,
                    QStringLiteral("a Slurm time limit (\"30\", \"4:00:00\", \"2-00:00:00\")"), time, &c.time, errors);
        const QJsonValue extra = sbatch->value(QStringLiteral("extra_args"));
        if (!extra.isUndefined() && !extra.isArray()) {
            errors << expected(child(sp, QStringLiteral("extra_args")),
                               QStringLiteral("an array of sbatch options, one \"--name=value\" each"), extra);
        } else {
            const QJsonArray args = extra.toArray();
            for (int i = 0; i < args.size(); ++i) {
                const QString ap = child(sp, QStringLiteral("extra_args[%1]").arg(i));
                const QString arg = args.at(i).toString();
                // "--name=value" only: a word without "--" would be taken
                // for the job script, a split "-p gpu" is two of them.
                if (!args.at(i).isString() || !arg.startsWith(QStringLiteral("--")) || arg.size() < 3)
                    errors << expected(ap, QStringLiteral("one sbatch option as \"--name=value\""), args.at(i));
                else if (reservedSbatchOptions().contains(arg.section(QLatin1Char('='), 0, 0)))
                    errors
                        << QStringLiteral("%1: %2 is Trainyard's to set").arg(ap, arg.section(QLatin1Char('='), 0, 0));
                else
                    c.extraArgs << arg;
            }
        }
    }
    return c;
}

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
        if (it.key() == skip)
            continue;
        const ParamInfo *param = nullptr;
        for (const ParamInfo &p : params)
            param = p.name == it.key() ? &p : param;
        const QString where = child(path, it.key());
        if (!param) {
            QStringList names;
            if (!skip.isEmpty())
                names << skip;
            for (const ParamInfo &p : params)
                names << p.name;
            errors << QStringLiteral("%1: unknown key (expected one of %2)")
                          .arg(where, names.isEmpty() ? QStringLiteral("no keys") : names.join(QStringLiteral(", ")));
        } else if (!param->accepts(it.value())) {
            errors << expected(where, param->expectation(), it.value());
        }
    }
}

} // namespace

bool isDeviceName(const QString &device)
{
    static const QRegularExpression re(
        QRegularExpression::anchoredPattern(QStringLiteral("cpu|cuda:(0|[1-9][0-9]{0,2})")));
    return re.match(device).hasMatch();
}

bool isSlurmDevice(const QString &device, QString *cluster, QString *partition)
{
    static const QRegularExpression re(QRegularExpression::anchoredPattern(
        QStringLiteral("slurm:([A-Za-z0-9_][A-Za-z0-9._-]{0,99})(?:/([A-Za-z0-9_][A-Za-z0-9._-]{0,99}))?")));
    const QRegularExpressionMatch m = re.match(device);
    if (!m.hasMatch())
        return false;
    if (cluster)
        *cluster = m.captured(1);
    if (partition)
        *partition = m.captured(2);
    return true;
}

bool isSafeRunName(const QString &name)
{
    // anchoredPattern: a plain '$' would also match before a final "\n".
    static const QRegularExpression re(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_+@-][A-Za-z0-9._+@-]{0,99}")));
    return re.match(name).hasMatch();
}

QStringList validateRunSpec(const QJsonObject &spec, const QString &path, bool allowRepeat, const ModelCatalog *catalog)
{
    QStringList errors;
    QStringList known = ModelCatalog::specKeys();
    if (allowRepeat)
        known << QStringLiteral("repeat");
    checkKeys(spec, known, path, errors);
    const RunSpecView view(spec);

    if (spec.contains(QStringLiteral("name"))) {
        const QJsonValue v = spec.value(QStringLiteral("name"));
        if (!v.isString() || !isSafeRunName(v.toString()))
            errors << expected(child(path, QStringLiteral("name")),
                               QStringLiteral("a name of 1–100 letters, digits or ._+@- not starting with '.'"), v);
    }

    QJsonObject holder;
    const ModelInfo *modelInfo = nullptr;
    if (!spec.contains(QStringLiteral("model"))) {
        errors << child(path, QStringLiteral("model: missing (expected an object with a \"type\")"));
    } else if (const QJsonObject *model = objectAt(spec, QStringLiteral("model"), path, errors, holder)) {
        const QJsonValue type = model->value(QStringLiteral("type"));
        const QString typePath = child(path, QStringLiteral("model.type"));
        if (catalog) {
            modelInfo = type.isString() ? catalog->model(type.toString()) : nullptr;
            if (!modelInfo)
                errors << expected(typePath,
                                   QStringLiteral("one of ") + catalog->modelTypes().join(QStringLiteral(", ")), type);
            else
                checkParams(*model, modelInfo->params, child(path, QStringLiteral("model")), QStringLiteral("type"),
                            errors);
        } else if (!type.isString() || !isCatalogueName(type.toString())) {
            errors << expected(typePath, QStringLiteral("a model type of 1–64 letters, digits or ._+-"), type);
        }
    }

    if (const QJsonObject *data = objectAt(spec, QStringLiteral("data"), path, errors, holder)) {
        const QJsonValue kind = data->value(QStringLiteral("kind"));
        const QString kindPath = child(path, QStringLiteral("data.kind"));
        if (catalog) {
            const DataKindInfo *kindInfo = kind.isString() ? catalog->dataKind(kind.toString()) : nullptr;
            if (!kindInfo) {
                const QString kinds = catalog->dataKindNames().join(QStringLiteral(", "));
                errors << expected(kindPath, QStringLiteral("one of ") + kinds, kind);
            } else {
                // The worker refuses these too; saying so at load spares a failed run.
                if (modelInfo && !modelInfo->task.isEmpty() && !kindInfo->task.isEmpty()
                    && modelInfo->task != kindInfo->task)
                    errors << QStringLiteral("%1: \"%2\" holds %3 data but model \"%4\" needs %5 data")
                                  .arg(kindPath, kindInfo->kind, kindInfo->task, modelInfo->type, modelInfo->task);
                checkParams(*data, kindInfo->params, child(path, QStringLiteral("data")), QStringLiteral("kind"),
                            errors);
            }
        } else if (!kind.isString() || !isCatalogueName(kind.toString())) {
            errors << expected(kindPath, QStringLiteral("a data kind of 1–64 letters, digits or ._+-"), kind);
        }
    }

    for (const QString &section : ModelCatalog::specSectionNames()) {
        if (const QJsonObject *values = objectAt(spec, section, path, errors, holder)) {
            if (catalog)
                checkParams(*values, catalog->section(section), child(path, section), QString(), errors);
        }
    }
    if (!catalog) {
        // The catalogue checks train.seed with the rest; without one, still
        // what repeats rely on: seed + i must be an integer.
        const QString seed = QStringLiteral("seed");
        const QJsonObject train = view.train();
        if (train.contains(seed) && !(view.seed() && *view.seed() >= 0))
            errors << expected(child(path, QStringLiteral("train.seed")), QStringLiteral("an integer ≥ 0"),
                               train.value(seed));
    }

    if (allowRepeat)
        checkInt(spec, QStringLiteral("repeat"), path, 1, 1000, errors);
    return errors;
}

QJsonObject withDefaults(const QJsonObject &spec)
{
    QJsonObject out = spec;
    const RunSpecView view(spec);
    if (!out.contains(QStringLiteral("name")) && !view.modelType().isEmpty())
        out.insert(QStringLiteral("name"), view.modelType());
    QJsonObject train = view.train();
    if (!train.contains(QStringLiteral("seed"))) {
        train.insert(QStringLiteral("seed"), 1);
        out.insert(QStringLiteral("train"), train);
    }
    return out;
}

QJsonObject expandRepeat(const QJsonObject &spec, int index, int count)
{
    QJsonObject out = withDefaults(spec);
    out.remove(QStringLiteral("repeat"));
    if (count <= 1)
        return out;
    const RunSpecView view(out);
    out.insert(QStringLiteral("name"), view.name() + QLatin1Char('-') + QString::number(index + 1));
    QJsonObject train = view.train();
    train.insert(QStringLiteral("seed"), view.seed().value_or(0) + index);
    out.insert(QStringLiteral("train"), train);
    return out;
}

std::optional<Experiment> Experiment::fromJson(const QJsonValue &json, QStringList *errors, const ModelCatalog *catalog)
{
    QStringList problems;
    if (!json.isObject()) {
        problems << expected(QStringLiteral("(top level)"), QStringLiteral("an object"), json);
        if (errors)
            *errors = problems;
        return std::nullopt;
    }
    const QJsonObject top = json.toObject();
    checkKeys(
        top, {QStringLiteral("name"), QStringLiteral("runs_root"), QStringLiteral("clusters"), QStringLiteral("lanes")},
        QString(), problems);

    Experiment ex;
    const QJsonValue name = top.value(QStringLiteral("name"));
    if (!name.isString() || !isSafeRunName(name.toString()))
        problems << expected(QStringLiteral("name"),
                             QStringLiteral("a name of 1–100 letters, digits or ._+@- not starting with '.'"), name);
    else
        ex.name = name.toString();

    if (top.contains(QStringLiteral("runs_root"))) {
        const QJsonValue root = top.value(QStringLiteral("runs_root"));
        if (!root.isString() && !root.isNull())
            problems << expected(QStringLiteral("runs_root"), QStringLiteral("a folder path or null"), root);
        else
            ex.runsRoot = root.toString();
    }

    const QJsonValue clusters = top.value(QStringLiteral("clusters"));
    if (!clusters.isUndefined() && !clusters.isArray()) {
        problems << expected(QStringLiteral("clusters"), QStringLiteral("an array of clusters"), clusters);
    } else {
        const QJsonArray clusterArray = clusters.toArray();
        for (int c = 0; c < clusterArray.size(); ++c) {
            const QString cp = QStringLiteral("clusters[%1]").arg(c);
            if (!clusterArray.at(c).isObject()) {
                problems << expected(cp, QStringLiteral("an object"), clusterArray.at(c));
                continue;
            }
            const ExperimentCluster cluster = parseCluster(clusterArray.at(c).toObject(), cp, problems);
            if (!cluster.name.isEmpty() && ex.cluster(cluster.name))
                problems << QStringLiteral("%1.name: cluster \"%2\" is already defined").arg(cp, cluster.name);
            else if (!cluster.name.isEmpty())
                ex.clusters << cluster;
        }
    }

    const QJsonValue lanes = top.value(QStringLiteral("lanes"));
    if (!lanes.isArray()) {
        problems << expected(QStringLiteral("lanes"), QStringLiteral("an array of lanes"), lanes);
    } else {
        const QJsonArray laneArray = lanes.toArray();
        QHash<QString, QString> names; // run name -> where it was first used
        int totalRuns = 0;
        for (int l = 0; l < laneArray.size(); ++l) {
            const QString lp = QStringLiteral("lanes[%1]").arg(l);
            if (!laneArray.at(l).isObject()) {
                problems << expected(lp, QStringLiteral("an object"), laneArray.at(l));
                continue;
            }
            const QJsonObject lo = laneArray.at(l).toObject();
            checkKeys(
                lo, {QStringLiteral("device"), QStringLiteral("slots"), QStringLiteral("gres"), QStringLiteral("runs")},
                lp, problems);
            ExperimentLane lane;
            const QJsonValue device = lo.value(QStringLiteral("device"));
            QString clusterName;
            const bool slurm = device.isString() && isSlurmDevice(device.toString(), &clusterName);
            if (!device.isString() || !(isDeviceName(device.toString()) || slurm)) {
                problems << expected(lp + QStringLiteral(".device"),
                                     QStringLiteral("\"cpu\", \"cuda:N\" or \"slurm:CLUSTER/PARTITION\""), device);
            } else if (slurm && !ex.cluster(clusterName)) {
                QStringList known;
                for (const ExperimentCluster &c : std::as_const(ex.clusters))
                    known << c.name;
                problems << QStringLiteral("%1.device: no cluster \"%2\" in clusters (%3)")
                                .arg(lp, clusterName,
                                     known.isEmpty()
                                         ? QStringLiteral("none is defined")
                                         : QStringLiteral("expected one of ") + known.join(QStringLiteral(", ")));
            } else {
                lane.device = device.toString();
            }
            if (lo.contains(QStringLiteral("gres"))) {
                // name[:type][:count], as sbatch --gres takes one.
                static const QRegularExpression gres(QRegularExpression::anchoredPattern(
                    QStringLiteral("[A-Za-z][A-Za-z0-9_]*(:[A-Za-z0-9_.-]+)?(:[0-9]+)?")));
                const QJsonValue g = lo.value(QStringLiteral("gres"));
                if (!slurm)
                    problems << QStringLiteral("%1.gres: only for a \"slurm:CLUSTER/PARTITION\" lane").arg(lp);
                else if (!g.isString() || !gres.match(g.toString()).hasMatch())
                    problems << expected(lp + QStringLiteral(".gres"),
                                         QStringLiteral("a Slurm GRES such as \"gpu:1\" or \"gpu:a100:2\""), g);
                else
                    lane.gres = g.toString();
            }
            checkInt(lo, QStringLiteral("slots"), lp, 1, 0, problems);
            lane.slotCount = lo.value(QStringLiteral("slots")).toInt(1);
            if (lo.contains(QStringLiteral("runs")) && !lo.value(QStringLiteral("runs")).isArray()) {
                problems << expected(lp + QStringLiteral(".runs"), QStringLiteral("an array of run specs"),
                                     lo.value(QStringLiteral("runs")));
            }
            const QJsonArray runs = lo.value(QStringLiteral("runs")).toArray();
            for (int r = 0; r < runs.size(); ++r) {
                const QString rp = lp + QStringLiteral(".runs[%1]").arg(r);
                if (!runs.at(r).isObject()) {
                    problems << expected(rp, QStringLiteral("a run spec object"), runs.at(r));
                    continue;
                }
                const QJsonObject spec = runs.at(r).toObject();
                const QStringList specErrors = validateRunSpec(spec, rp, true, catalog);
                problems << specErrors;
                const QString folderNameRule = QStringLiteral(
                    "a run folder name of 1–100 letters, digits or ._+@- not starting with '.' (repeats add \"-N\")");
                if (!specErrors.isEmpty()) {
                    // A name taken from model.type is a run folder too: one
                    // more problem to report with the rest.
                    const QString derived = RunSpecView(spec).effectiveName();
                    if (!spec.contains(QStringLiteral("name")) && !derived.isEmpty() && !isSafeRunName(derived))
                        problems << expected(rp + QStringLiteral(".name"), folderNameRule, QJsonValue(derived));
                    continue;
                }
                ExperimentRun run;
                run.repeat = RunSpecView(spec).repeat();
                run.spec = withDefaults(spec);
                run.spec.remove(QStringLiteral("repeat"));
                if (totalRuns + run.repeat > kMaxRuns) {
                    problems << QStringLiteral("%1.repeat: the experiment would hold more than %2 runs")
                                    .arg(rp)
                                    .arg(kMaxRuns);
                    break;
                }
                totalRuns += run.repeat;
                for (int i = 0; i < run.repeat; ++i) {
                    const QString n = RunSpecView(expandRepeat(run.spec, i, run.repeat)).name();
                    // The name becomes the run folder (a name taken from
                    // model.type or grown by "-N" is checked here too).
                    if (!isSafeRunName(n)) {
                        problems << expected(rp + QStringLiteral(".name"), folderNameRule, QJsonValue(n));
                        break;
                    }
                    if (names.contains(n))
                        problems << QStringLiteral("%1.name: run name \"%2\" is already used by %3")
                                        .arg(rp, n, names.value(n));
                    else
                        names.insert(n, rp);
                }
                lane.runs << run;
            }
            ex.lanes << lane;
        }
    }
    if (errors)
        *errors = problems;
    if (!problems.isEmpty()) {
        qCDebug(lcExperiment) << "experiment rejected:" << problems.size() << "problems";
        return std::nullopt;
    }
    qCDebug(lcExperiment) << "experiment" << ex.name << "valid:" << ex.lanes.size() << "lanes,"
                          << (catalog ? "checked against the worker's catalogue" : "structural checks only");
    return ex;
}

std::optional<Experiment> Experiment::load(const QString &path, QStringList *errors, const ModelCatalog *catalog)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (errors)
            *errors = QStringList{path + QStringLiteral(": cannot open: ") + file.errorString()};
        return std::nullopt;
    }
    constexpr qint64 kMaxBytes = 16 * 1024 * 1024;
    if (file.size() > kMaxBytes) {
        if (errors)
            *errors =
                QStringList{path + QStringLiteral(": %1 bytes; an experiment file is at most 16 MiB").arg(file.size())};
        return std::nullopt;
    }
    // Not read(kMaxBytes): that allocates 16 MiB up front for every file.
    const QByteArray bytes = file.readAll().left(kMaxBytes);
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        // Line and column help more than a byte offset.
        const QByteArray before = bytes.left(parseError.offset);
        const int line = before.count('\n') + 1;
        const int column = parseError.offset - (before.lastIndexOf('\n') + 1) + 1;
        if (errors)
            *errors = QStringList{QStringLiteral("%1:%2:%3: not valid JSON: %4")
                                      .arg(path)
                                      .arg(line)
                                      .arg(column)
                                      .arg(parseError.errorString())};
        return std::nullopt;
    }
    QStringList problems;
    auto ex = fromJson(doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array()), &problems, catalog);
    if (errors) {
        errors->clear();
        for (const QString &p : std::as_const(problems))
            *errors << path + QStringLiteral(": ") + p;
    }
    if (ex)
        qCInfo(lcExperiment).noquote() << "loaded" << path << "-" << ex->runCount() << "runs in" << ex->lanes.size()
                                       << "lanes"
                                       << (catalog ? "(checked against the worker's catalogue)"
                                                   : "(structural checks only: no catalogue)");
    else
        qCInfo(lcExperiment).noquote() << "refused" << path << "-" << problems.size() << "problems";
    return ex;
}

QString Experiment::demoPath()
{
    initCoreResources();
    return QStringLiteral(":/trainyard/demo.json");
}

Experiment Experiment::demo()
{
    QStringList errors;
    auto ex = load(demoPath(), &errors);
    // The demo is part of the build and checked by tests; a broken one is a bug.
    Q_ASSERT_X(ex.has_value(), "Experiment::demo", qPrintable(errors.join(QLatin1Char('\n'))));
    return ex.value_or(Experiment{});
}

std::optional<Experiment> Experiment::loadDemo(QStringList *errors, const ModelCatalog *catalog)
{
    return load(demoPath(), errors, catalog);
}

QJsonObject Experiment::toJson() const
{
    QJsonObject top;
    top.insert(QStringLiteral("name"), name);
    if (!runsRoot.isEmpty())
        top.insert(QStringLiteral("runs_root"), runsRoot);
    if (!clusters.isEmpty()) {
        QJsonArray clusterArray;
        for (const ExperimentCluster &c : clusters)
            clusterArray.append(c.toJson());
        top.insert(QStringLiteral("clusters"), clusterArray);
    }
    QJsonArray laneArray;
    for (const ExperimentLane &lane : lanes) {
        QJsonObject lo;
        lo.insert(QStringLiteral("device"), lane.device);
        lo.insert(QStringLiteral("slots"), lane.slotCount);
        if (!lane.gres.isEmpty())
            lo.insert(QStringLiteral("gres"), lane.gres);
        QJsonArray runs;
        for (const ExperimentRun &run : lane.runs) {
            QJsonObject spec = run.spec;
            if (run.repeat > 1)
                spec.insert(QStringLiteral("repeat"), run.repeat);
            runs.append(spec);
        }
        lo.insert(QStringLiteral("runs"), runs);
        laneArray.append(lo);
    }
    top.insert(QStringLiteral("lanes"), laneArray);
    return top;
}

bool Experiment::save(const QString &path, QString *error) const
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = path + QStringLiteral(": cannot write: ") + file.errorString();
        return false;
    }
    file.write(QJsonDocument(toJson()).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        if (error)
            *error = path + QStringLiteral(": cannot write: ") + file.errorString();
        return false;
    }
    return true;
}

QString Experiment::effectiveRunsRoot() const
{
    if (!runsRoot.isEmpty()) {
        QString root = runsRoot;
        if (root.startsWith(QStringLiteral("~/")))
            root = QDir::homePath() + root.mid(1);
        return QDir::cleanPath(QDir(root).absolutePath());
    }
    QString base = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (base.isEmpty())
        base = QDir::homePath() + QStringLiteral("/.local/share/trainyard");
    return QDir::cleanPath(base + QLatin1Char('/') + name);
}

int Experiment::runCount() const
{
    int n = 0;
    for (const ExperimentLane &lane : lanes) {
        for (const ExperimentRun &run : lane.runs)
            n += run.repeat;
    }
    return n;
}

} // namespace trainyard

namespace trainyard {

const ExperimentCluster *Experiment::cluster(const QString &name) const
{
    for (const ExperimentCluster &c : clusters)
        if (c.name == name)
            return &c;
    return nullptr;
}

QJsonObject ExperimentCluster::toJson() const
{
    QJsonObject o{{QStringLiteral("name"), name}, {QStringLiteral("reach"), reach}};
    if (reach == QLatin1String("ssh")) {
        o.insert(QStringLiteral("host"), host);
        if (!user.isEmpty())
            o.insert(QStringLiteral("user"), user);
        if (port != 22)
            o.insert(QStringLiteral("port"), port);
    }
    if (!runsRoot.isEmpty())
        o.insert(QStringLiteral("runs_root"), runsRoot);
    if (!worker.isEmpty())
        o.insert(QStringLiteral("worker"), worker);
    QJsonObject sbatch;
    const QList<QPair<QString, QString>> fields{{QStringLiteral("partition"), partition},
                                                {QStringLiteral("account"), account},
                                                {QStringLiteral("qos"), qos},
                                                {QStringLiteral("time"), time}};
    for (const auto &[key, value] : fields)
        if (!value.isEmpty())
            sbatch.insert(key, value);
    if (!extraArgs.isEmpty())
        sbatch.insert(QStringLiteral("extra_args"), QJsonArray::fromStringList(extraArgs));
    if (!sbatch.isEmpty())
        o.insert(QStringLiteral("sbatch"), sbatch);
    return o;
}

} // namespace trainyard
