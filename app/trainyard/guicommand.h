#pragma once

#include <functional>

namespace trainyard {

// `trainyard [FILE.json]`: the desktop app on an experiment, or on the
// built-in demo without one. It parses its command line before any
// QApplication exists, so `--help` and `--version` need no display.
// `--help` prints its own usage and then calls `commandsHelp` (the helps of
// the headless commands). Returns the process exit status (2 for a bad
// command line, and in a build without TRAINYARD_BUILD_GUI, which has no
// desktop app, for anything but --help and --version).
int guiCommand(int &argc, char **argv, const std::function<void()> &commandsHelp);

} // namespace trainyard
