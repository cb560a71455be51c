#pragma once

#include <QSocketNotifier>

#include <functional>
#include <memory>

class QObject;

namespace trainyard {

// Runs `handler` in the event loop for every SIGINT and SIGTERM (and SIGHUP
// with `hangUp`): the signal handler only writes to a pipe, which is all
// that is async-signal-safe. Null when the pipe cannot be made. One per
// process: the headless commands each install it once.
std::unique_ptr<QSocketNotifier> handleStopSignals(QObject *context, bool hangUp, std::function<void()> handler);

} // namespace trainyard
