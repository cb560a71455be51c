#pragma once

#include "orchestration/records/runinfo.h"

#include <QDialog>
#include <QStringList>

class QLabel;
class QListWidget;

namespace trainyard {

class BoardController;

/// "Run after…" on a card: which runs, repeat groups, rounds and sweeps of
/// the board a run waits for (docs/experiment-format.md#after). A name that
/// would make runs wait for one another is shown but cannot be chosen, with
/// why; OK hands the choice to BoardController::setRunAfter (one undo step).
class RunAfterDialog : public QDialog
{
    Q_OBJECT
public:
    RunAfterDialog(BoardController *controller, RunId run, QWidget *parent = nullptr);

    /// The names ticked, groups first, then runs in board order.
    QStringList chosen() const;
    QListWidget *list() const { return m_list; }

    /// Asks and applies; false when cancelled or refused.
    static bool ask(BoardController *controller, RunId run, QWidget *parent);

private:
    QListWidget *m_list;
};

} // namespace trainyard
