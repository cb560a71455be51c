#pragma once

#include <QString>

namespace trainyard {

// Runs the desktop application (creates the QApplication, the main window and
// its event loop) on `experimentFile`, or on the built-in demo when empty.
// Returns the process exit status.
int runDesktopApp(int &argc, char **argv, const QString &experimentFile);

// Application name, icon and resources, for programs that make their own
// QApplication and MainWindow (tests, the screenshot tool, benchmarks).
void initDesktopApp();

} // namespace trainyard
