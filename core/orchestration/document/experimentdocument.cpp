#include "orchestration/document/experimentdocument.h"

#include "orchestration/board/board.h"
#include "orchestration/dependencies/dependencies.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/dispatch/startplanner.h"
#include "orchestration/document/boardedits.h"
#include "orchestration/ingest/ingestion.h"
#include "orchestration/launch/launcher.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/onendcommands.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "orchestration/sweep/sweeprunner.h"

#include <QUndoStack>

namespace trainyard {

ExperimentDocument::ExperimentDocument(std::unique_ptr<Session> session, QObject *parent)
    : ExperimentDocument(session.get(), parent)
{
    m_owned = std::move(session);
}

ExperimentDocument::ExperimentDocument(Session *session, QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_undo(new QUndoStack(this))
    , m_edits(new BoardEdits(orchestrator(), m_undo, this))
{
    connect(m_edits, &BoardEdits::editFailed, this, &ExperimentDocument::editFailed);
    connect(m_undo, &QUndoStack::cleanChanged, this, &ExperimentDocument::cleanChanged);
    connect(m_undo, &QUndoStack::indexChanged, this, &ExperimentDocument::edited);
    if (m_session) {
        connect(m_session, &Session::nameChanged, this, &ExperimentDocument::nameChanged);
    }
    connectParts();
}

ExperimentDocument::~ExperimentDocument()
{
    delete m_undo;
}

void ExperimentDocument::connectParts()
{
    Orchestrator *o = orchestrator();
    if (!o) {
        return;
    }
    // Signal to signal: the views hear the parts' own emissions, in their order.
    connect(o->board(), &Board::reset, this, &ExperimentDocument::reset);
    connect(o->board(), &Board::laneAboutToBeAdded, this, &ExperimentDocument::laneAboutToBeAdded);
    connect(o->board(), &Board::laneAdded, this, &ExperimentDocument::laneAdded);
    connect(o->board(), &Board::laneAboutToBeRemoved, this, &ExperimentDocument::laneAboutToBeRemoved);
    connect(o->board(), &Board::laneRemoved, this, &ExperimentDocument::laneRemoved);
    connect(o->board(), &Board::laneChanged, this, &ExperimentDocument::laneChanged);
    connect(o->laneDevices(), &LaneDevices::laneChanged, this, &ExperimentDocument::laneChanged);
    connect(o->board(), &Board::runAboutToBeAdded, this, &ExperimentDocument::runAboutToBeAdded);
    connect(o->board(), &Board::runAdded, this, &ExperimentDocument::runAdded);
    connect(o->board(), &Board::runAboutToBeRemoved, this, &ExperimentDocument::runAboutToBeRemoved);
    connect(o->board(), &Board::runRemoved, this, &ExperimentDocument::runRemoved);
    connect(o->board(), &Board::runAboutToBeMoved, this, &ExperimentDocument::runAboutToBeMoved);
    connect(o->board(), &Board::runMoved, this, &ExperimentDocument::runMoved);
    connect(o->runs(), &RunRegistry::changed, this, &ExperimentDocument::runChanged);
    connect(o->ingestion(), &Ingestion::progressChanged, this, &ExperimentDocument::progressChanged);
    connect(o->supervisor(), &Supervisor::attemptArchived, this, &ExperimentDocument::attemptArchived);
    connect(o->dispatcher(), &Dispatcher::finishCountChanged, this, &ExperimentDocument::finishCountChanged);
    connect(o->dispatcher(), &Dispatcher::warning, this, &ExperimentDocument::warning);
    connect(o->onEnd(), &OnEndCommands::problem, this, &ExperimentDocument::warning);
    connect(o->dispatcher(), &Dispatcher::runEnded, this, &ExperimentDocument::runEnded);
    connect(o->dispatcher(), &Dispatcher::idle, this, &ExperimentDocument::idle);
}

Orchestrator *ExperimentDocument::orchestrator() const
{
    return m_session ? m_session->orchestrator() : nullptr;
}

QString ExperimentDocument::filePath() const
{
    return m_session ? m_session->filePath() : QString();
}

QString ExperimentDocument::name() const
{
    return m_session ? m_session->name() : QString();
}

QString ExperimentDocument::runsRoot() const
{
    return m_session ? m_session->runsRoot() : QString();
}

Experiment ExperimentDocument::experiment() const
{
    return m_session ? m_session->experiment() : Experiment();
}

MetricStore *ExperimentDocument::metrics() const
{
    return m_session ? m_session->metrics() : nullptr;
}

DeviceInventory *ExperimentDocument::devices() const
{
    return m_session ? m_session->devices() : nullptr;
}

bool ExperimentDocument::isClean() const
{
    return m_undo->isClean();
}

void ExperimentDocument::markSaved()
{
    m_undo->setClean();
}

void ExperimentDocument::markUnsaved()
{
    m_undo->resetClean();
}

std::unique_ptr<Session> ExperimentDocument::takeSession()
{
    m_undo->clear();
    m_edits->detach();
    if (Orchestrator *o = orchestrator()) {
        o->disconnectListener(this);
    }
    m_session = nullptr;
    return std::move(m_owned);
}

int ExperimentDocument::laneCount() const
{
    return orchestrator() ? orchestrator()->board()->laneCount() : 0;
}

LaneInfo ExperimentDocument::lane(int index) const
{
    return orchestrator() ? orchestrator()->laneDevices()->lane(index) : LaneInfo();
}

bool ExperimentDocument::hasRun(RunId id) const
{
    return orchestrator() && orchestrator()->runs()->contains(id);
}

RunInfo ExperimentDocument::run(RunId id) const
{
    return orchestrator() ? orchestrator()->runs()->value(id) : RunInfo();
}

RunId ExperimentDocument::findRun(const QString &name) const
{
    return orchestrator() ? orchestrator()->runs()->findByName(name) : RunId(0);
}

QList<RunId> ExperimentDocument::runIds() const
{
    return orchestrator() ? orchestrator()->board()->runIds() : QList<RunId>();
}

QList<RunInfo> ExperimentDocument::allRuns() const
{
    QList<RunInfo> runs;
    if (orchestrator()) {
        for (RunId id : orchestrator()->runs()->ids()) {
            runs << orchestrator()->runs()->value(id);
        }
    }
    return runs;
}

const RunRegistry *ExperimentDocument::runRecords() const
{
    return orchestrator() ? orchestrator()->runs() : nullptr;
}

std::optional<RunRecord> ExperimentDocument::runRecord(RunId id) const
{
    Orchestrator *o = orchestrator();
    if (!o || !o->runs()->contains(id)) {
        return std::nullopt;
    }
    RunInfo info = o->runs()->value(id);
    info.command = o->startPlanner()->commandLine(id);
    if (info.runDir.isEmpty()) {
        info.runDir = m_session->store()->runDir(info.name);
    }
    return RunRecord::live(info, *m_session->metrics());
}

RunNotes ExperimentDocument::runNotes(RunId id) const
{
    return hasRun(id) ? m_session->store()->readNotes(run(id).name) : RunNotes();
}

bool ExperimentDocument::describeJob(const RunInfo &run, QObject *context, JobDescribed done) const
{
    Orchestrator *o = orchestrator();
    return o && o->launcher()->describe(run, context, std::move(done));
}

SweepRunner *ExperimentDocument::sweeps() const
{
    return orchestrator() ? orchestrator()->sweeps() : nullptr;
}

int ExperimentDocument::position(RunId id) const
{
    return orchestrator() ? orchestrator()->board()->position(id) : -1;
}

QString ExperimentDocument::uniqueName(const QString &base, int repeat) const
{
    return orchestrator() ? orchestrator()->board()->uniqueName(base, repeat) : base;
}

int ExperimentDocument::finishedCount() const
{
    return orchestrator() ? orchestrator()->dispatcher()->finishedCount() : 0;
}

int ExperimentDocument::totalCount() const
{
    return orchestrator() ? orchestrator()->dispatcher()->totalCount() : 0;
}

int ExperimentDocument::activeCount() const
{
    return orchestrator() ? orchestrator()->dispatcher()->activeCount() : 0;
}

bool ExperimentDocument::isIdle() const
{
    return !orchestrator() || orchestrator()->dispatcher()->isIdle();
}

bool ExperimentDocument::cpuFallback() const
{
    return orchestrator() && orchestrator()->laneDevices()->cpuFallback();
}

int ExperimentDocument::threadsPerCpuRun() const
{
    return orchestrator() ? orchestrator()->laneDevices()->threadsPerCpuRun() : 1;
}

QStringList ExperimentDocument::commandLine(RunId id) const
{
    return orchestrator() ? orchestrator()->startPlanner()->commandLine(id) : QStringList();
}

QList<int> ExperimentDocument::missingDeviceLanes() const
{
    return orchestrator() ? orchestrator()->laneDevices()->missingDeviceLanes() : QList<int>();
}

QStringList ExperimentDocument::busyDeviceWarnings() const
{
    return orchestrator() ? orchestrator()->laneDevices()->busyDeviceWarnings() : QStringList();
}

QString ExperimentDocument::workerProgram() const
{
    return orchestrator() ? orchestrator()->supervisor()->workerProgram() : QString();
}

QList<ExperimentHost> ExperimentDocument::hosts() const
{
    return orchestrator() ? orchestrator()->hosts() : QList<ExperimentHost>();
}

QString ExperimentDocument::sweepOf(RunId id, int *trial) const
{
    return orchestrator() ? orchestrator()->sweeps()->sweepOf(id, trial) : QString();
}

bool ExperimentDocument::isSweepDone(const QString &name) const
{
    return orchestrator() && orchestrator()->sweeps()->isDone(name);
}

QString ExperimentDocument::sweepProgress(const QString &name) const
{
    return orchestrator() ? orchestrator()->sweeps()->progressLine(name) : QString();
}

QList<std::pair<QString, QString>> ExperimentDocument::afterGroups() const
{
    return orchestrator() ? orchestrator()->dependencies()->groupNames() : QList<std::pair<QString, QString>>();
}

bool ExperimentDocument::wouldCycle(RunId id, const QString &name) const
{
    return orchestrator() && orchestrator()->dependencies()->wouldCycle(id, name);
}

QList<RunId> ExperimentDocument::runsBefore(RunId id) const
{
    return orchestrator() ? orchestrator()->dependencies()->predecessors(id) : QList<RunId>();
}

QList<RunId> ExperimentDocument::runsAfter(RunId id) const
{
    return orchestrator() ? orchestrator()->dependencies()->dependents(id) : QList<RunId>();
}

bool ExperimentDocument::startRun(RunId id, QString *error)
{
    return orchestrator() && orchestrator()->runActions()->startRun(id, error);
}

bool ExperimentDocument::stopRun(RunId id, QString *error)
{
    return orchestrator() && orchestrator()->runActions()->stopRun(id, error);
}

bool ExperimentDocument::pauseRun(RunId id, QString *error)
{
    return orchestrator() && orchestrator()->supervisor()->pause(id, error);
}

bool ExperimentDocument::resumeRun(RunId id, QString *error)
{
    return orchestrator() && orchestrator()->runActions()->resumeRun(id, error);
}

bool ExperimentDocument::retryRun(RunId id, bool fromCheckpoint, QString *error)
{
    return orchestrator() && orchestrator()->runActions()->retryRun(id, fromCheckpoint, error);
}

QString ExperimentDocument::attemptKeptOnRetry(RunId id) const
{
    return orchestrator() ? orchestrator()->startPlanner()->attemptKeptOnRetry(id) : QString();
}

void ExperimentDocument::startAll()
{
    if (orchestrator()) {
        orchestrator()->dispatcher()->startAll();
    }
}

void ExperimentDocument::stopAll()
{
    if (orchestrator()) {
        orchestrator()->dispatcher()->stopAll();
    }
}

void ExperimentDocument::setCpuFallback(bool on)
{
    if (orchestrator()) {
        orchestrator()->laneDevices()->setCpuFallback(on);
    }
}

bool ExperimentDocument::queueSpec(int lane, int position, const QJsonObject &spec, int repeat, QList<RunId> *queued)
{
    return m_edits->queueSpec(lane, position, spec, repeat, queued);
}

bool ExperimentDocument::moveRun(RunId id, int lane, int position)
{
    return m_edits->moveRun(id, lane, position);
}

bool ExperimentDocument::duplicateRun(RunId id, int lane, int position)
{
    return m_edits->duplicateRun(id, lane, position);
}

bool ExperimentDocument::removeRun(RunId id)
{
    return m_edits->removeRun(id);
}

bool ExperimentDocument::editRun(RunId id, const QJsonObject &spec)
{
    return m_edits->editRun(id, spec);
}

bool ExperimentDocument::setRunAfter(RunId id, const QStringList &after)
{
    return m_edits->setRunAfter(id, after);
}

bool ExperimentDocument::addLane(const QString &device, int slotCount)
{
    return m_edits->addLane(device, slotCount);
}

bool ExperimentDocument::removeLane(int lane)
{
    return m_edits->removeLane(lane);
}

bool ExperimentDocument::editLane(int lane, const QString &device, int slotCount)
{
    return m_edits->editLane(lane, device, slotCount);
}

bool ExperimentDocument::renameLane(int lane, const QString &name)
{
    return m_edits->renameLane(lane, name);
}

bool ExperimentDocument::addHost(const ExperimentHost &host, const QStringList &devices)
{
    return m_edits->addHost(host, devices);
}

bool ExperimentDocument::addSweep(const SweepSpec &sweep)
{
    return m_edits->addSweep(sweep);
}

bool ExperimentDocument::moveRuns(const QList<RunId> &ids, int lane, int position)
{
    return m_edits->moveRuns(ids, lane, position);
}

bool ExperimentDocument::copyRuns(const QList<RunId> &ids, int lane, int position)
{
    return m_edits->copyRuns(ids, lane, position);
}

bool ExperimentDocument::duplicateRuns(const QList<RunId> &ids, int copies)
{
    return m_edits->duplicateRuns(ids, copies);
}

bool ExperimentDocument::removeRuns(const QList<RunId> &ids)
{
    return m_edits->removeRuns(ids);
}

void ExperimentDocument::undo()
{
    m_edits->undo();
}

void ExperimentDocument::redo()
{
    m_edits->redo();
}

} // namespace trainyard
