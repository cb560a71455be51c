#include "ui/app/dialogprompts.h"

#include <QDateTime>
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>

namespace trainyard {

DialogPrompts::DialogPrompts(QWidget *parent, std::function<bool()> save)
    : m_parent(parent)
    , m_save(std::move(save))
{
}

Prompts::CloseChoice DialogPrompts::howToClose(const QString &experiment, int training)
{
    QMessageBox box(QMessageBox::Question, QMessageBox::tr("Runs are training"),
                    QMessageBox::tr("%n run(s) of %1 are still training.", nullptr, training).arg(experiment),
                    QMessageBox::NoButton, m_parent);
    box.setInformativeText(QMessageBox::tr("Stop them (each saves a checkpoint first), or leave them running? "
                                           "Runs left running go on without the window; opening this experiment "
                                           "again reattaches to them."));
    QPushButton *stop = box.addButton(QMessageBox::tr("&Stop runs"), QMessageBox::DestructiveRole);
    QPushButton *leave = box.addButton(QMessageBox::tr("&Leave running"), QMessageBox::AcceptRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(leave);
    box.exec();
    return box.clickedButton() == stop    ? CloseChoice::StopRuns
           : box.clickedButton() == leave ? CloseChoice::LeaveRunning
                                          : CloseChoice::Cancel;
}

bool DialogPrompts::recover(const QString &experiment, const QDateTime &savedAt)
{
    QMessageBox box(
        QMessageBox::Question, QMessageBox::tr("Recover unsaved edits"),
        QMessageBox::tr("%1 has board edits from %2 that were never saved (Trainyard did not close normally).")
            .arg(experiment, QLocale().toString(savedAt, QLocale::ShortFormat)),
        QMessageBox::NoButton, m_parent);
    QPushButton *recover = box.addButton(QMessageBox::tr("&Recover"), QMessageBox::AcceptRole);
    box.addButton(QMessageBox::tr("&Discard"), QMessageBox::DestructiveRole);
    box.setDefaultButton(recover);
    box.exec();
    return box.clickedButton() == recover;
}

bool DialogPrompts::trust(const QString &file, const QStringList &commands, const QString &about)
{
    QMessageBox box(QMessageBox::Warning, QMessageBox::tr("Run this file's commands?"),
                    QMessageBox::tr("%1 names commands to run (program runs, a cluster's worker, ssh or sbatch "
                                    "options): starting its runs runs these as you, with your files and network:")
                        .arg(QFileInfo(file).fileName()),
                    QMessageBox::NoButton, m_parent);
    box.setInformativeText(QStringLiteral("<pre>%1</pre>").arg(commands.join(QLatin1Char('\n')).toHtmlEscaped())
                           + QMessageBox::tr("Trust it only if you wrote it or checked every command. You are asked "
                                             "again whenever the file or a file it points at changes.")
                           // Its line breaks and indents kept, but wrapped: prose, not commands.
                           + QStringLiteral("<p style=\"white-space:pre-wrap\">%1</p>").arg(about.toHtmlEscaped()));
    box.setDetailedText(file + QStringLiteral("\n\n") + commands.join(QLatin1Char('\n')) + QStringLiteral("\n\n")
                        + about);
    QPushButton *trust = box.addButton(QMessageBox::tr("&Trust and Open"), QMessageBox::AcceptRole);
    QPushButton *cancel = box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(cancel);
    box.exec();
    return box.clickedButton() == trust;
}

Prompts::UnsavedChoice DialogPrompts::unsavedEdits(const QString &experiment)
{
    QMessageBox box(QMessageBox::Warning, QMessageBox::tr("Unsaved changes"),
                    QMessageBox::tr("The board of %1 has changes that are not saved.").arg(experiment),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, m_parent);
    box.setInformativeText(QMessageBox::tr("Save them before closing? Runs keep their folders either way; "
                                           "only the board's edits are at stake."));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save:
        // The Save action asks for a file when the board has none; cancelling that cancels the close.
        return m_save() ? UnsavedChoice::Save : UnsavedChoice::Cancel;
    case QMessageBox::Discard:
        return UnsavedChoice::Discard;
    default:
        return UnsavedChoice::Cancel;
    }
}

bool DialogPrompts::startAnyway(const QStringList &problems)
{
    return QMessageBox::warning(
               m_parent, QMessageBox::tr("Start all"),
               QMessageBox::tr("Before starting:\n\n%1\n\nStart anyway?").arg(problems.join(QLatin1Char('\n'))),
               QMessageBox::Yes | QMessageBox::No, QMessageBox::No)
           == QMessageBox::Yes;
}

bool DialogPrompts::startNewAttempts(const QString &verb, const QString &question)
{
    // A new attempt keeps the old one's folder: nothing is lost, so the
    // verb the user chose is the default, Return confirms it.
    QMessageBox box(QMessageBox::Question, verb, question, QMessageBox::NoButton, m_parent);
    QPushButton *go = box.addButton(QStringLiteral("&") + verb, QMessageBox::AcceptRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(go);
    box.exec();
    return box.clickedButton() == go;
}

void DialogPrompts::tell(const QString &title, const QString &message)
{
    QMessageBox::information(m_parent, title, message);
}

} // namespace trainyard
