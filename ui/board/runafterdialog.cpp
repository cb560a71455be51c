#include "ui/board/runafterdialog.h"

#include "orchestration/document/experimentdocument.h"
#include "ui/board/boardcontroller.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QVBoxLayout>

namespace trainyard {

RunAfterDialog::RunAfterDialog(BoardController *controller, RunId run, QWidget *parent)
    : QDialog(parent)
    , m_list(new QListWidget(this))
{
    setObjectName(QStringLiteral("runAfterDialog"));
    const ExperimentDocument *document = controller->document();
    const RunInfo self = document->run(run);
    setWindowTitle(tr("Run %1 after…").arg(self.name));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("%1 waits until every run ticked here has finished, then joins its lane's queue. "
                                "It gets their run folders, final checkpoints and summaries "
                                "(run.inputs, TRAINYARD_INPUTS, {after.NAME.checkpoint}).")
                                 .arg(self.name),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_list->setObjectName(QStringLiteral("afterList"));
    layout->addWidget(m_list, 1);

    const auto add = [&](const QString &name, const QString &what) {
        auto *item = new QListWidgetItem(what.isEmpty() ? name : tr("%1 (%2)").arg(name, what), m_list);
        item->setData(Qt::UserRole, name);
        item->setCheckState(self.after.contains(name) ? Qt::Checked : Qt::Unchecked);
        if (name == self.name || document->wouldCycle(run, name)) {
            // Still shown: the user sees why it cannot be chosen.
            item->setFlags(item->flags() & ~(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable));
            item->setToolTip(
                name == self.name
                    ? tr("the run itself")
                    : tr("%1 runs after %2 already: they would wait for one another").arg(name, self.name));
        } else {
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        }
    };
    for (const auto &[name, what] : document->afterGroups()) {
        add(name, what);
    }
    for (RunId id : document->runIds()) {
        const RunInfo r = document->run(id);
        if (r.sweep.isEmpty()) { // a sweep is chosen as a whole
            add(r.name, runStateName(r.state));
        }
    }
    // A name of its "after" that is on the board no more stays, to be unticked.
    for (const QString &name : self.after) {
        bool listed = false;
        for (int i = 0; i < m_list->count(); ++i) {
            listed = listed || m_list->item(i)->data(Qt::UserRole).toString() == name;
        }
        if (!listed) {
            add(name, tr("not on the board"));
        }
    }
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(420, 420);
}

QStringList RunAfterDialog::chosen() const
{
    QStringList names;
    for (int i = 0; i < m_list->count(); ++i) {
        if (m_list->item(i)->checkState() == Qt::Checked) {
            names << m_list->item(i)->data(Qt::UserRole).toString();
        }
    }
    return names;
}

bool RunAfterDialog::ask(BoardController *controller, RunId run, QWidget *parent)
{
    if (!controller->document() || !controller->document()->hasRun(run)) {
        return false;
    }
    RunAfterDialog dialog(controller, run, parent);
    if (dialog.exec() != QDialog::Accepted) {
        return false;
    }
    ExperimentDocument *document = controller->document(); // the dialog's loop ran
    return document && document->setRunAfter(run, dialog.chosen());
}

} // namespace trainyard
