#include "ui/board/boardcontroller.h"

#include "orchestration/document/experimentdocument.h"

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

} // namespace trainyard
