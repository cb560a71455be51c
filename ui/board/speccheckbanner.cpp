#include "ui/board/speccheckbanner.h"

#include "orchestration/document/experimentdocument.h"
#include "orchestration/experiment/experiment.h"
#include "ui/common/uilogcategories.h"

namespace trainyard {

SpecCheckBanner::SpecCheckBanner(QWidget *parent)
    : QLabel(parent)
{
    setObjectName(QStringLiteral("specProblems"));
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setStyleSheet(QStringLiteral("background: #fde7e9; color: #6e1118; padding: 4px 8px;"
                                 " border-bottom: 1px solid #f1b7bd;"));
    setVisible(false);
}

void SpecCheckBanner::setDocument(ExperimentDocument *document)
{
    if (m_document) {
        disconnect(m_document, nullptr, this, nullptr);
    }
    m_document = document;
    if (m_document) {
        connect(m_document, &ExperimentDocument::edited, this, &SpecCheckBanner::refresh);
        connect(m_document, &ExperimentDocument::reset, this, &SpecCheckBanner::refresh);
    }
    refresh();
}

void SpecCheckBanner::setCatalogue(const ModelCatalogue &catalogue)
{
    m_catalogue = catalogue;
    refresh();
}

void SpecCheckBanner::refresh()
{
    m_problems.clear();
    if (m_document && !m_catalogue.isEmpty()) {
        // The window opens a file with the structural checks only (the
        // catalogue comes later): the same check `trainyard check` makes
        // (Experiment::load with the catalogue) runs on the board now.
        Experiment::fromJson(m_document->experiment().toJson(), &m_problems, &m_catalogue);
    }
    if (m_problems.isEmpty()) {
        setVisible(false);
        return;
    }
    qCInfo(lcUi).noquote() << "the worker would refuse:" << m_problems.join(QStringLiteral("; "));
    const QString head = m_problems.size() == 1
                             ? tr("A problem the worker would refuse (trainyard check finds it too); edit the run "
                                  "to fix it:")
                             : tr("%1 problems the worker would refuse (trainyard check finds them too); edit the "
                                  "runs to fix them:")
                                   .arg(m_problems.size());
    setText(head + QStringLiteral("\n• ") + m_problems.join(QStringLiteral("\n• ")));
    setVisible(true);
}

} // namespace trainyard
