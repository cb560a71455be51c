#pragma once

#include <QJsonObject>
#include <QObject>

class QTabWidget;
class QWidget;

namespace trainyard {

class ModelCatalogue;

class BoardController;
class BoardView;
class ExperimentDocument;
class SessionController;
class SpecDialogs;
class SweepView;

/// The app's sweeps, wired: the Sweep view as a tab beside the runs table
/// following the open session's SweepRunner, the run editors' "Sweep…"
/// choice that opens the sweep editor on the dropped spec, and its
/// accepting as an undoable edit of the open document. MainWindow makes one.
class SweepPanel : public QObject
{
    Q_OBJECT
public:
    SweepPanel(SessionController *sessions, BoardController *controller, BoardView *board, QTabWidget *tabs,
               SpecDialogs *dialogs, QWidget *window);

    SweepView *view() const { return m_view; }
    /// Opens the sweep editor on `base` and adds the sweep when accepted; false when cancelled or refused.
    bool editSweep(const QJsonObject &base);
    /// Adds the SweepEditorDialog's JSON `sweep` as an undoable edit and starts its trials (the
    /// editor's "Start sweep"); false (and a message) when refused.
    bool addSweep(const QJsonObject &sweep, QString *error = nullptr);

Q_SIGNALS:
    void message(const QString &text);

private:
    void attach(ExperimentDocument *document);

    SessionController *m_sessions;
    BoardController *m_controller;
    const ModelCatalogue *catalogue() const; ///< null until the worker's catalogue is known
    QWidget *m_window;
    SpecDialogs *m_dialogs;
    SweepView *m_view;
};

} // namespace trainyard
