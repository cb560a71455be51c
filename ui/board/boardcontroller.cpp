#include "board/boardcontroller.h"

#include "document/experimentdocument.h"

#include <QAction>
#include <QUndoStack>

namespace trainyard {

BoardController::BoardController(QObject *parent)
    : QObject(parent)
{
}

BoardController::~BoardController() = default;

void BoardController::setDocument(ExperimentDocument *document)
{
    for (const QMetaObject::Connection &c : std::as_const(m_connections)) {
        disconnect(c);
    }
    m_connections.clear();
    m_document = document;
    if (document) {
        m_connections << connect(document, &ExperimentDocument::editFailed, this, &BoardController::editFailed)
                      << connect(document, &ExperimentDocument::edited, this, &BoardController::edited)
                      << connect(document, &ExperimentDocument::edited, this, &BoardController::historyChanged)
                      << connect(document, &ExperimentDocument::cleanChanged, this, &BoardController::historyChanged)
                      << connect(document, &QObject::destroyed, this, [this] { setDocument(nullptr); });
    }
    Q_EMIT historyChanged();
}

QUndoStack *BoardController::undoStack() const
{
    return m_document ? m_document->undoStack() : nullptr;
}

void BoardController::undo()
{
    if (m_document) {
        m_document->undo();
    }
}

void BoardController::redo()
{
    if (m_document) {
        m_document->redo();
    }
}

QAction *BoardController::createUndoAction(QObject *parent, bool labelled)
{
    return createStepAction(parent, labelled, false);
}

QAction *BoardController::createRedoAction(QObject *parent, bool labelled)
{
    return createStepAction(parent, labelled, true);
}

QAction *BoardController::createStepAction(QObject *parent, bool labelled, bool forward)
{
    const QString verb = forward ? tr("&Redo") : tr("&Undo");
    auto *action = new QAction(verb, parent);
    const auto update = [this, action, verb, labelled, forward] {
        const QUndoStack *stack = undoStack();
        if (!stack) {
            action->setEnabled(false); // no document
            action->setText(verb);
            action->setToolTip(QString(verb).remove(QLatin1Char('&')));
            return;
        }
        const QString what = forward ? stack->redoText() : stack->undoText();
        const QString full = what.isEmpty() ? verb : tr("%1 %2").arg(verb, what);
        action->setEnabled(forward ? stack->canRedo() : stack->canUndo());
        action->setText(labelled ? full : verb);
        action->setToolTip(QString(full).remove(QLatin1Char('&')));
    };
    connect(this, &BoardController::historyChanged, action, update);
    connect(action, &QAction::triggered, this, [this, forward] { forward ? redo() : undo(); });
    update();
    return action;
}

bool BoardController::queueSpec(int lane, int position, const QJsonObject &spec, int repeat, QList<RunId> *queued)
{
    return m_document && m_document->queueSpec(lane, position, spec, repeat, queued);
}

bool BoardController::moveRun(RunId id, int lane, int position)
{
    return m_document && m_document->moveRun(id, lane, position);
}

bool BoardController::duplicateRun(RunId id, int lane, int position)
{
    return m_document && m_document->duplicateRun(id, lane, position);
}

bool BoardController::removeRun(RunId id)
{
    return m_document && m_document->removeRun(id);
}

bool BoardController::editRun(RunId id, const QJsonObject &spec)
{
    return m_document && m_document->editRun(id, spec);
}

bool BoardController::setRunAfter(RunId id, const QStringList &after)
{
    return m_document && m_document->setRunAfter(id, after);
}

bool BoardController::addLane(const QString &device, int slotCount)
{
    return m_document && m_document->addLane(device, slotCount);
}

bool BoardController::removeLane(int lane)
{
    return m_document && m_document->removeLane(lane);
}

bool BoardController::editLane(int lane, const QString &device, int slotCount)
{
    return m_document && m_document->editLane(lane, device, slotCount);
}

bool BoardController::renameLane(int lane, const QString &name)
{
    return m_document && m_document->renameLane(lane, name);
}

bool BoardController::addHost(const ExperimentHost &host, const QStringList &devices)
{
    return m_document && m_document->addHost(host, devices);
}

bool BoardController::addSweep(const SweepSpec &sweep)
{
    return m_document && m_document->addSweep(sweep);
}

bool BoardController::moveRuns(const QList<RunId> &ids, int lane, int position)
{
    return m_document && m_document->moveRuns(ids, lane, position);
}

bool BoardController::copyRuns(const QList<RunId> &ids, int lane, int position)
{
    return m_document && m_document->copyRuns(ids, lane, position);
}

bool BoardController::duplicateRuns(const QList<RunId> &ids, int copies)
{
    return m_document && m_document->duplicateRuns(ids, copies);
}

bool BoardController::removeRuns(const QList<RunId> &ids)
{
    return m_document && m_document->removeRuns(ids);
}

} // namespace trainyard
