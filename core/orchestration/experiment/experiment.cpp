#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/jsonchecks.h"
#include "orchestration/experiment/shelltext.h"

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/devices/device.h"
#include "orchestration/experiment/dependencycheck.h"
#include "orchestration/experiment/experimentlanes.h"
#include "orchestration/experiment/experimentpaths.h"
#include "orchestration/experiment/keytables.h"
#include "orchestration/experiment/onend.h"
#include "orchestration/experiment/programconfig.h"
#include "orchestration/experiment/rounds.h"
#include "orchestration/logcategories.h"
#include "orchestration/runspec/runspecview.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

#include <algorithm>

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

using namespace jsonchecks;

bool isLaneName(const QString &name)
{
    if (name.isEmpty() || name.size() > 40 || name.front().isSpace() || name.back().isSpace()) {
        return false;
    }
    return std::none_of(name.cbegin(), name.cend(), [](QChar c) { return c.category() == QChar::Other_Control; });
}

QString laneNameRule()
{
    return QStringLiteral("a lane name of 1–40 characters, without control characters or a space at either end");
}

std::optional<Experiment> Experiment::fromJson(const QJsonValue &json, QStringList *errors,
                                               const ModelCatalogue *catalogue, Experiment *partial)
{
    QStringList problems;
    if (!json.isObject()) {
        problems << expected(QStringLiteral("(top level)"), QStringLiteral("an object"), json);
        if (errors) {
            *errors = problems;
        }
        return std::nullopt;
    }
    const QJsonObject top = json.toObject();
    checkKeys(top, keytables::experiment(), QString(), problems);

    Experiment ex;
    const QJsonValue name = top.value(QStringLiteral("name"));
    if (!name.isString() || !isSafeRunName(name.toString())) {
        problems << expected(
            QStringLiteral("name"),
            QStringLiteral("a name of 1–100 letters, digits or ._+@- not starting with '.' nor ending in .attempt-N"),
            name);
    } else {
        ex.name = name.toString();
    }

    if (top.contains(QStringLiteral("$schema"))) {
        const QJsonValue schema = top.value(QStringLiteral("$schema"));
        if (!schema.isString()) {
            problems << expected(QStringLiteral("$schema"), QStringLiteral("the address of a JSON Schema (a string)"),
                                 schema);
        } else {
            ex.schema = schema.toString();
        }
    }

    if (top.contains(QStringLiteral("runs_root"))) {
        const QJsonValue root = top.value(QStringLiteral("runs_root"));
        if (!root.isString() && !root.isNull()) {
            problems << expected(QStringLiteral("runs_root"), QStringLiteral("a folder path or null"), root);
        } else {
            ex.runsRoot = root.toString();
        }
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
            const ExperimentCluster cluster = ExperimentCluster::fromJson(clusterArray.at(c).toObject(), cp, problems);
            if (!cluster.name.isEmpty() && ex.cluster(cluster.name)) {
                problems << QStringLiteral("%1.name: cluster \"%2\" is already defined").arg(cp, cluster.name);
            } else if (!cluster.name.isEmpty()) {
                ex.clusters << cluster;
            }
        }
    }

    const QJsonValue hosts = top.value(QStringLiteral("hosts"));
    if (!hosts.isUndefined() && !hosts.isArray()) {
        problems << expected(QStringLiteral("hosts"), QStringLiteral("an array of hosts"), hosts);
    } else {
        const QJsonArray hostArray = hosts.toArray();
        for (int h = 0; h < hostArray.size(); ++h) {
            const QString hp = QStringLiteral("hosts[%1]").arg(h);
            if (!hostArray.at(h).isObject()) {
                problems << expected(hp, QStringLiteral("an object"), hostArray.at(h));
                continue;
            }
            const ExperimentHost host = ExperimentHost::fromJson(hostArray.at(h).toObject(), hp, problems);
            if (!host.name.isEmpty() && ex.host(host.name)) {
                problems << QStringLiteral("%1.name: host \"%2\" is already defined").arg(hp, host.name);
            } else if (!host.name.isEmpty()) {
                ex.hosts << host;
            }
        }
    }

    if (const QJsonValue onEnd = top.value(QStringLiteral("on_end")); !onEnd.isUndefined()) {
        const QStringList bad = onend::check(onEnd, QStringLiteral("on_end"), onend::Level::Experiment);
        problems << bad;
        ex.onEnd = bad.isEmpty() ? onend::read(onEnd) : QStringList();
    }

    readLanes(top, ex, catalogue, partial != nullptr, problems);
    readSweeps(top, ex, catalogue, problems);
    checkDependencies(ex, problems);
    if (errors) {
        *errors = problems;
    }
    if (partial) {
        *partial = ex;
    }
    if (!problems.isEmpty()) {
        qCDebug(lcExperiment) << "experiment rejected:" << problems.size() << "problems";
        return std::nullopt;
    }
    qCDebug(lcExperiment) << "experiment" << ex.name << "valid:" << ex.lanes.size() << "lanes,"
                          << (catalogue ? "checked against the worker's catalogue" : "structural checks only");
    return ex;
}

std::optional<Experiment> Experiment::load(const QString &path, QStringList *errors, const ModelCatalogue *catalogue,
                                           Experiment *partial)
{
    // A FIFO or a device would block the opening (the window's thread
    // included) or never end: only a regular file, a link to one allowed.
    const QFileInfo info(path);
    if (info.exists() && !info.isFile()) {
        if (errors) {
            *errors = QStringList{path + QStringLiteral(": not a regular file")};
        }
        return std::nullopt;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (errors) {
            *errors = QStringList{path + QStringLiteral(": cannot open: ") + file.errorString()};
        }
        return std::nullopt;
    }
    constexpr qint64 kMaxBytes = 16 * 1024 * 1024;
    if (file.size() > kMaxBytes) {
        if (errors) {
            *errors =
                QStringList{path + QStringLiteral(": %1 bytes; an experiment file is at most 16 MiB").arg(file.size())};
        }
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
        if (errors) {
            *errors = QStringList{QStringLiteral("%1:%2:%3: not valid JSON: %4")
                                      .arg(path)
                                      .arg(line)
                                      .arg(column)
                                      .arg(parseError.errorString())};
        }
        return std::nullopt;
    }
    QStringList problems;
    // Every local path from here on is absolute, resolved against the
    // file's folder: the board, the runs' spec.json (a worker runs in its
    // run folder), a check and a save all mean the same files. A built-in
    // file (":/...") has no folder; its paths are absolute.
    QHash<QString, QString> written;
    QJsonValue json = doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array());
    if (doc.isObject() && !path.startsWith(QLatin1Char(':'))) {
        json = experimentpaths::resolve(doc.object(), QFileInfo(path).absolutePath(), &written, &problems);
    }
    const QStringList pathProblems = problems;
    auto ex = fromJson(json, &problems, catalogue, partial);
    problems = pathProblems + problems;
    if (!pathProblems.isEmpty()) {
        ex.reset();
    }
    if (partial) {
        partial->sourcePath = QFileInfo(path).absoluteFilePath();
        partial->contentHash = versionHash(path, bytes);
        partial->pathTexts = written;
    }
    if (ex) {
        ex->sourcePath = path.startsWith(QLatin1Char(':')) ? path : QFileInfo(path).absoluteFilePath();
        ex->contentHash = versionHash(path, bytes);
        ex->pathTexts = written;
    }
    if (errors) {
        errors->clear();
        for (const QString &p : std::as_const(problems)) {
            *errors << path + QStringLiteral(": ") + p;
        }
    }
    if (ex) {
        qCInfo(lcExperiment).noquote() << "loaded" << path << "-" << ex->runCount() << "runs in" << ex->lanes.size()
                                       << "lanes"
                                       << (catalogue ? "(checked against the worker's catalogue)"
                                                     : "(structural checks only: no catalogue)");
    } else {
        qCInfo(lcExperiment).noquote() << "refused" << path << "-" << problems.size() << "problems";
    }
    return ex;
}

QString Experiment::demoPath()
{
    initCoreResources();
    return QStringLiteral(":/trainyard/demo.json");
}

namespace {

// The demo trains for about a minute so that curves are seen arriving; the
// tests that train it set TRAINYARD_DEMO_MAX_STEPS to stop each run sooner.
std::optional<Experiment> cappedDemo(std::optional<Experiment> ex)
{
    bool ok = false;
    const int cap = qEnvironmentVariableIntValue("TRAINYARD_DEMO_MAX_STEPS", &ok);
    if (!ex || !ok || cap < 1) {
        return ex;
    }
    for (ExperimentLane &lane : ex->lanes) {
        for (ExperimentRun &run : lane.runs) {
            QJsonObject train = run.spec.value(QStringLiteral("train")).toObject();
            const int steps = train.value(QStringLiteral("max_steps")).toInt(cap);
            train.insert(QStringLiteral("max_steps"), std::min(steps, cap));
            run.spec.insert(QStringLiteral("train"), train);
        }
    }
    return ex;
}

} // namespace

Experiment Experiment::demo()
{
    QStringList errors;
    auto ex = cappedDemo(load(demoPath(), &errors));
    // The demo is part of the build and checked by tests; a broken one is a bug.
    Q_ASSERT_X(ex.has_value(), "Experiment::demo", qPrintable(errors.join(QLatin1Char('\n'))));
    return ex.value_or(Experiment{});
}

std::optional<Experiment> Experiment::loadDemo(QStringList *errors, const ModelCatalogue *catalogue)
{
    return cappedDemo(load(demoPath(), errors, catalogue));
}

QJsonObject Experiment::toJson() const
{
    QJsonObject top;
    if (!schema.isEmpty()) {
        top.insert(QStringLiteral("$schema"), schema);
    }
    top.insert(QStringLiteral("name"), name);
    if (!runsRoot.isEmpty()) {
        top.insert(QStringLiteral("runs_root"), runsRoot);
    }
    if (!clusters.isEmpty()) {
        QJsonArray clusterArray;
        for (const ExperimentCluster &c : clusters) {
            clusterArray.append(c.toJson());
        }
        top.insert(QStringLiteral("clusters"), clusterArray);
    }
    if (!hosts.isEmpty()) {
        QJsonArray hostArray;
        for (const ExperimentHost &h : hosts) {
            hostArray.append(h.toJson());
        }
        top.insert(QStringLiteral("hosts"), hostArray);
    }
    QJsonArray laneArray;
    for (const ExperimentLane &lane : lanes) {
        QJsonObject lo;
        if (!lane.name.isEmpty()) {
            lo.insert(QStringLiteral("name"), lane.name);
        }
        lo.insert(QStringLiteral("device"), lane.device.toString());
        lo.insert(QStringLiteral("slots"), lane.slotCount);
        if (!lane.gres.isEmpty()) {
            lo.insert(QStringLiteral("gres"), lane.gres);
        }
        if (!lane.busy.isEmpty()) {
            lo.insert(QStringLiteral("busy"), lane.busy);
        }
        QJsonArray runs;
        for (int i = 0; i < lane.runs.size(); ++i) {
            const ExperimentRun &run = lane.runs.at(i);
            // Rounds whose runs are all there as they were made: one entry again.
            if (const int members = rounds::spanAt(rounds, lane.runs, i); members > 0) {
                runs.append(QJsonObject{{QStringLiteral("rounds"), rounds::named(rounds, run.rounds)}});
                i += members - 1;
                continue;
            }
            QJsonObject spec = run.spec;
            if (run.repeat > 1) {
                spec.insert(QStringLiteral("repeat"), run.repeat);
            }
            runs.append(spec);
        }
        lo.insert(QStringLiteral("runs"), runs);
        laneArray.append(lo);
    }
    top.insert(QStringLiteral("lanes"), laneArray);
    if (!sweeps.isEmpty()) {
        top.insert(QStringLiteral("sweeps"), sweepsToJson(sweeps));
    }
    if (!onEnd.isEmpty()) {
        top.insert(QStringLiteral("on_end"), QJsonArray::fromStringList(onEnd));
    }
    return top;
}

bool Experiment::save(const QString &path, QString *error, QByteArray *sha256Hex) const
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error) {
            *error = path + QStringLiteral(": cannot write: ") + file.errorString();
        }
        return false;
    }
    // Paths as their author wrote them where those still name the same
    // files from the folder saved to; elsewhere absolute.
    const QJsonObject top = experimentpaths::restoreWritten(toJson(), QFileInfo(path).absolutePath(), pathTexts);
    const QByteArray bytes = QJsonDocument(top).toJson(QJsonDocument::Indented);
    if (sha256Hex) {
        *sha256Hex = versionHash(path, bytes);
    }
    file.write(bytes);
    if (!file.commit()) {
        if (error) {
            *error = path + QStringLiteral(": cannot write: ") + file.errorString();
        }
        return false;
    }
    return true;
}

QString Experiment::effectiveRunsRoot() const
{
    if (!runsRoot.isEmpty()) {
        QString root = runsRoot;
        if (root.startsWith(QStringLiteral("~/"))) {
            root = QDir::homePath() + root.mid(1);
        }
        return QDir::cleanPath(QDir(root).absolutePath());
    }
    QString base = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (base.isEmpty()) {
        base = QDir::homePath() + QStringLiteral("/.local/share/trainyard");
    }
    return QDir::cleanPath(base + QLatin1Char('/') + name);
}

QByteArray Experiment::versionHash(const QString &path, const QByteArray &bytes)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(QFileInfo(path).absoluteDir().canonicalPath().toUtf8());
    hash.addData(QByteArrayView("\n", 1));
    hash.addData(bytes);
    return hash.result().toHex();
}

QStringList Experiment::commandLines() const
{
    QStringList lines;
    // "K=v (in CWD) ARGV", each command once.
    const auto add = [&lines](const RunSpecView &view, const QStringList &argv) {
        QString line = shellText(argv);
        if (!view.programCwd().isEmpty()) {
            line = QStringLiteral("(in %1) %2").arg(shellText({view.programCwd()}), line);
        }
        for (const auto &[key, value] : view.programEnv()) {
            line = QStringLiteral("%1=%2 %3").arg(key, shellText({value}), line);
        }
        if (!lines.contains(line)) {
            lines << line;
        }
    };
    // An on_end as written, its placeholders shown: what it runs with
    // differs only in the values of the run that ended.
    const auto addOnEnd = [&lines](const QString &when, const QJsonValue &onEnd) {
        const QString line = QStringLiteral("(%1) %2").arg(when, shellText(onend::read(onEnd)));
        if (onEnd.isArray() && !lines.contains(line)) {
            lines << line;
        }
    };
    for (const ExperimentLane &lane : lanes) {
        for (const ExperimentRun &run : lane.runs) {
            const RunSpecView view(run.spec);
            if (view.isProgram()) {
                // As it will run, its config's values in place: they are part of
                // the command the user allows (and of the file's trusted version).
                const QStringList command = programconfig::command(view);
                add(view, command.isEmpty() ? view.programArgv() : command);
            }
            addOnEnd(QStringLiteral("when %1 ends").arg(view.name()), run.spec.value(QStringLiteral("on_end")));
        }
    }
    for (const SweepSpec &sweep : sweeps) {
        // The base's argv as written: its trials differ only in the values
        // the file's space gives them.
        const RunSpecView view(sweep.base);
        if (view.isProgram()) {
            add(view, view.programArgv());
        }
    }
    if (!onEnd.isEmpty()) {
        addOnEnd(QStringLiteral("when every run has ended"), QJsonArray::fromStringList(onEnd));
    }
    for (const ExperimentCluster &cluster : clusters) {
        lines << cluster.commandLines();
    }
    for (const ExperimentHost &host : hosts) {
        lines << host.commandLines();
    }
    return lines;
}

bool Experiment::hasWorkerRuns() const
{
    for (const ExperimentLane &lane : lanes) {
        for (const ExperimentRun &run : lane.runs) {
            if (!RunSpecView(run.spec).isProgram()) {
                return true;
            }
        }
    }
    for (const SweepSpec &sweep : sweeps) {
        if (!RunSpecView(sweep.base).isProgram()) {
            return true;
        }
    }
    return false;
}

int Experiment::runCount() const
{
    int n = 0;
    for (const ExperimentLane &lane : lanes) {
        for (const ExperimentRun &run : lane.runs) {
            n += run.repeat;
        }
    }
    return n;
}

QStringList Experiment::runNames() const
{
    QStringList names;
    for (const ExperimentLane &lane : lanes) {
        for (const ExperimentRun &run : lane.runs) {
            for (int i = 0; i < run.repeat; ++i) {
                names << RunSpecView(expandRepeat(run.spec, i, run.repeat)).name();
            }
        }
    }
    return names;
}

} // namespace trainyard
