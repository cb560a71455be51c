#include "ui/sweep/sweeppanel.h"

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/sweep/sweeprunner.h"
#include "ui/app/sessioncontroller.h"
#include "ui/board/boardcontroller.h"
#include "ui/board/boardview.h"
#include "ui/editors/specdialogs.h"
#include "ui/sweep/sweepeditordialog.h"
#include "ui/sweep/sweepview.h"

#include <QMainWindow>
#include <QStatusBar>
#include <QTabWidget>

namespace trainyard {

SweepPanel::SweepPanel(SessionController *sessions, BoardController *controller, BoardView *board, QTabWidget *tabs,
                       SpecDialogs *dialogs, QWidget *window)
    : QObject(window)
    , m_sessions(sessions)
    , m_controller(controller)
    , m_window(window)
    , m_dialogs(dialogs)
    , m_view(new SweepView(tabs))
{
    tabs->addTab(m_view, tr("Sweeps"));
    connect(sessions, &SessionController::sessionOpened, this,
            [this](ExperimentDocument *document) { attach(document); });
    connect(sessions, &SessionController::sessionAboutToClose, this, [this] { attach(nullptr); });
    connect(m_view, &SweepView::runsSelected, board, &BoardView::selectRuns);
    // A trial's card picked on the board: its row in the Sweep view (the view's own picks come back here too).
    connect(board, &BoardView::selectionChanged, this, [this](const QList<RunId> &ids) {
        const ExperimentDocument *document = m_controller->document();
        int trial = -1;
        const QString sweep = document && ids.size() == 1 ? document->sweepOf(ids.first(), &trial) : QString();
        if (!sweep.isEmpty() && (sweep == m_view->currentSweep() || m_view->selectSweep(sweep))) {
            m_view->selectTrial(trial);
        }
    });
    connect(m_view, &SweepView::message, this, &SweepPanel::message);
    if (auto *main = qobject_cast<QMainWindow *>(window)) {
        connect(this, &SweepPanel::message, main,
                [main](const QString &text) { main->statusBar()->showMessage(text, 15000); });
    }
    dialogs->setSweepHandler([this](const QJsonObject &base) { return editSweep(base); });
    attach(sessions->document());
}

void SweepPanel::attach(ExperimentDocument *document)
{
    m_view->setRunner(document ? document->sweeps() : nullptr, document ? document->runRecords() : nullptr,
                      document ? document->metrics() : nullptr);
}

bool SweepPanel::editSweep(const QJsonObject &base)
{
    const ExperimentDocument *document = m_controller->document();
    if (!document) {
        return false;
    }
    QStringList lanes;
    for (int i = 0; i < document->laneCount(); ++i) {
        lanes << document->lane(i).title; // as the board's headers name them
    }
    SweepEditorDialog dialog(base, lanes, catalogue(), m_window);
    while (dialog.exec() == QDialog::Accepted) {
        QString error;
        if (addSweep(dialog.json(), &error)) {
            return true;
        }
        // A name taken by another sweep, say (the window said why): the editor stays open with what was typed.
        Q_EMIT message(error);
    }
    return false;
}

const ModelCatalogue *SweepPanel::catalogue() const
{
    // Checked as the file is (keys, values, objective) once the worker said what it reads.
    return m_dialogs->catalogue().isEmpty() ? nullptr : &m_dialogs->catalogue();
}

bool SweepPanel::addSweep(const QJsonObject &sweep, QString *error)
{
    ExperimentDocument *document = m_controller->document();
    QStringList errors;
    const std::optional<SweepSpec> spec =
        document ? SweepSpec::fromJson(sweep, QStringLiteral("sweep"), document->laneCount(), errors, catalogue())
                 : std::nullopt;
    if (!spec || !errors.isEmpty()) {
        if (error) {
            *error = errors.isEmpty() ? tr("No experiment is open.") : errors.first();
        }
        return false;
    }
    // A refusal is said by the document (editFailed, which the window shows too).
    QString refusal;
    const QMetaObject::Connection said =
        connect(document, &ExperimentDocument::editFailed, this, [&refusal](const QString &text) { refusal = text; });
    const bool added = document->addSweep(*spec);
    disconnect(said);
    if (!added) {
        if (error) {
            *error = refusal;
        }
        return false;
    }
    // "Start sweep": its trials start now, whether or not the board's other runs were started.
    document->sweeps()->startSweep(spec->name);
    m_view->selectSweep(spec->name);
    return true;
}

} // namespace trainyard
