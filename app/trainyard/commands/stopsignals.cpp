#include "commands/stopsignals.h"

#include <QObject>

#include <csignal>
#include <unistd.h>

namespace trainyard {

namespace {

int signalPipe[2] = {-1, -1};

void onSignal(int sig)
{
    const char c = static_cast<char>(sig);
    [[maybe_unused]] const ssize_t n = ::write(signalPipe[1], &c, 1);
}

} // namespace

std::unique_ptr<QSocketNotifier> handleStopSignals(QObject *context, bool hangUp, std::function<void()> handler)
{
    if (::pipe(signalPipe) != 0) {
        return nullptr;
    }
    struct sigaction sa
    {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    if (hangUp) {
        sigaction(SIGHUP, &sa, nullptr);
    }
    auto notifier = std::make_unique<QSocketNotifier>(signalPipe[0], QSocketNotifier::Read);
    QObject::connect(notifier.get(), &QSocketNotifier::activated, context, [handler = std::move(handler)] {
        char c = 0;
        [[maybe_unused]] const ssize_t n = ::read(signalPipe[0], &c, 1);
        handler();
    });
    return notifier;
}

} // namespace trainyard
