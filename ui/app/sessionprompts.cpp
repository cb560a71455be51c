#include "app/sessionprompts.h"

#include <QDateTime>
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>

namespace trainyard::sessionprompts {

SessionController::CloseChoice askHowToClose(QWidget *parent, const QString &experiment, int training)
{
    QMessageBox box(QMessageBox::Question, QMessageBox::tr("Runs are training"),
                    QMessageBox::tr("%n run(s) of %1 are still training.", nullptr, training).arg(experiment),
                    QMessageBox::NoButton, parent);
    box.setInformativeText(QMessageBox::tr("Stop them (each saves a checkpoint first), or leave them running? "
                                           "Runs left running go on without the window; opening this experiment "
                                           "again reattaches to them."));
    QPushButton *stop = box.addButton(QMessageBox::tr("Stop runs"), QMessageBox::DestructiveRole);
    QPushButton *leave = box.addButton(QMessageBox::tr("Leave running"), QMessageBox::AcceptRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(leave);
    box.exec();
    using Choice = SessionController::CloseChoice;
    return box.clickedButton() == stop    ? Choice::StopRuns
           : box.clickedButton() == leave ? Choice::LeaveRunning
                                          : Choice::Cancel;
}

bool askToRecover(QWidget *parent, const QString &experiment, const QDateTime &savedAt)
{
    QMessageBox box(
        QMessageBox::Question, QMessageBox::tr("Recover unsaved edits"),
        QMessageBox::tr("%1 has board edits from %2 that were never saved (Trainyard did not close normally).")
            .arg(experiment, QLocale().toString(savedAt, QLocale::ShortFormat)),
        QMessageBox::NoButton, parent);
    QPushButton *recover = box.addButton(QMessageBox::tr("Recover"), QMessageBox::AcceptRole);
    box.addButton(QMessageBox::tr("Discard"), QMessageBox::DestructiveRole);
    box.setDefaultButton(recover);
    box.exec();
    return box.clickedButton() == recover;
}

bool askToTrust(QWidget *parent, const QString &file, const QStringList &commands)
{
    QMessageBox box(QMessageBox::Warning, QMessageBox::tr("Run this file's commands?"),
                    QMessageBox::tr("%1 names commands to run (program runs, a cluster's worker, ssh or sbatch "
                                    "options): starting its runs runs these as you, with your files and network:")
                        .arg(QFileInfo(file).fileName()),
                    QMessageBox::NoButton, parent);
    box.setInformativeText(QStringLiteral("<pre>%1</pre>").arg(commands.join(QLatin1Char('\n')).toHtmlEscaped())
                           + QMessageBox::tr("Trust it only if you wrote it or checked every command. You are asked "
                                             "again whenever the file changes."));
    box.setDetailedText(file + QStringLiteral("\n\n") + commands.join(QLatin1Char('\n')));
    QPushButton *trust = box.addButton(QMessageBox::tr("&Trust and Open"), QMessageBox::AcceptRole);
    QPushButton *cancel = box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(cancel);
    box.exec();
    return box.clickedButton() == trust;
}

SessionController::UnsavedChoice askAboutUnsavedEdits(QWidget *parent, const QString &experiment)
{
    QMessageBox box(QMessageBox::Warning, QMessageBox::tr("Unsaved changes"),
                    QMessageBox::tr("The board of %1 has changes that are not saved.").arg(experiment),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parent);
    box.setInformativeText(QMessageBox::tr("Save them before closing? Runs keep their folders either way; "
                                           "only the board's edits are at stake."));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save:
        return SessionController::UnsavedChoice::Save;
    case QMessageBox::Discard:
        return SessionController::UnsavedChoice::Discard;
    default:
        return SessionController::UnsavedChoice::Cancel;
    }
}

} // namespace trainyard::sessionprompts
