#pragma once

#include "orchestration/experiment/experiment.h"
#include "orchestration/records/runinfo.h"

#include <QByteArray>
#include <QObject>
#include <QSet>
#include <QStringList>

#include <functional>

class QMainWindow;
class QThread;

namespace trainyard {

class BoardView;
class ExperimentDocument;
class Prompts;
class SessionController;

/// Run control from the window's actions on the open experiment's document:
/// start, stop, pause, resume and retry the runs selected on the board, start
/// all (after checking busy GPUs and the runs' data with the worker, which
/// may ask) and stop all; retry starts the run again. What the
/// document refuses goes to the window's status bar.
class RunControl : public QObject
{
    Q_OBJECT
public:
    RunControl(SessionController *sessions, BoardView *board, QMainWindow *window);
    ~RunControl() override;

    /// Who answers "start anyway?" and "start a new attempt?" (they must
    /// outlive this); without prompts nobody is asked and runs start.
    void setPrompts(Prompts *prompts) { m_prompts = prompts; }
    /// What the worker's catalogue refuses in the runs' specs (SpecCheckBanner):
    /// Start all asks about it with the rest.
    void setSpecProblems(std::function<QStringList()> problems) { m_specProblems = std::move(problems); }

    void startSelected();
    void stopSelected();
    void pauseSelected();
    void resumeSelected();
    /// A run that did not finish and has a checkpoint carries on from it;
    /// any other starts a new attempt, its earlier results kept (asked
    /// first: the question says under which name). Start of an ended run
    /// does the same.
    void retrySelected();
    void startAll();
    void stopAll();

Q_SIGNALS:
    /// Runs were asked to start or stop: actions and counts may change.
    void runsChanged();

private:
    void forEachSelected(const std::function<bool(ExperimentDocument *, RunId, QString *)> &action);
    /// Asks before the selected runs that would start a new attempt do
    /// (`verb`: the action's name); true when none would or the user agrees.
    bool confirmNewAttempts(ExperimentDocument *document, const QString &verb);
    ExperimentDocument *document() const;
    /// The runs Start all would start whose data has not passed the check yet.
    Experiment runsToCheck(ExperimentDocument *document) const;
    /// Asks about `dataProblems` and busy GPUs (when confirming), then starts all.
    void confirmAndStart(ExperimentDocument *document, const QStringList &dataProblems);

    SessionController *m_sessions;
    BoardView *m_board;
    QMainWindow *m_window;
    Prompts *m_prompts = nullptr;
    std::function<QStringList()> m_specProblems;
    QSet<QByteArray> m_dataPassed; ///< data sources (compact JSON) the worker's check passed
    bool m_checking = false;       ///< a Start all waits for the data check
    QThread *m_checkThread = nullptr;
};

} // namespace trainyard
