#pragma once

#include "app/sessioncontroller.h"

#include <QStringList>

class QDateTime;
class QString;
class QWidget;

/// The questions asked when an experiment closes or reopens, as the user
/// sees them. MainWindow puts them behind SessionController's choosers, where
/// tests and the screenshot tool answer instead.
namespace trainyard::sessionprompts {

/// `training` runs of `experiment` are active: stop them, leave them running, or cancel.
SessionController::CloseChoice askHowToClose(QWidget *parent, const QString &experiment, int training);
/// Recover the board edits of `experiment` autosaved at `savedAt` (true), or discard them.
bool askToRecover(QWidget *parent, const QString &experiment, const QDateTime &savedAt);
/// `file` runs commands (Experiment::commandLines) and is not trusted: show every command line it
/// would run; true when the user trusts this version of it.
bool askToTrust(QWidget *parent, const QString &file, const QStringList &commands);
/// The board of `experiment` has unsaved edits: Save (the caller saves), Discard or Cancel.
SessionController::UnsavedChoice askAboutUnsavedEdits(QWidget *parent, const QString &experiment);

} // namespace trainyard::sessionprompts
