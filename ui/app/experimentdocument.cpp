#include "app/experimentdocument.h"

#include "session/session.h"

#include <QUndoStack>

namespace trainyard {

ExperimentDocument::ExperimentDocument(std::unique_ptr<Session> session, QObject *parent)
    : QObject(parent)
    , m_session(std::move(session))
    , m_undo(new QUndoStack(this))
{
    connect(m_undo, &QUndoStack::cleanChanged, this, &ExperimentDocument::cleanChanged);
}

ExperimentDocument::~ExperimentDocument()
{
    delete m_undo;
}

QString ExperimentDocument::filePath() const
{
    return m_session ? m_session->filePath() : QString();
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
    return std::move(m_session);
}

} // namespace trainyard
