#include "orchestration/records/exittext.h"

#include "protocol/exitcode.h"

#include <QObject>

#include <cstring>
#include <string_view>

namespace trainyard {

QString signalName(int sig)
{
    const char *abbrev = sigabbrev_np(sig);
    const char *text = sigdescr_np(sig);
    if (!abbrev || !text) {
        return QStringLiteral("signal %1").arg(sig);
    }
    return QStringLiteral("signal %1 (SIG%2: %3)").arg(sig).arg(QString::fromLatin1(abbrev), QString::fromLatin1(text));
}

QString exitText(const RunInfo &run)
{
    if (run.state == RunState::Queued || run.state == RunState::Waiting) {
        return QObject::tr("not started");
    }
    if (isActive(run.state)) {
        return QObject::tr("still running");
    }
    if (run.exitSignal > 0) {
        return signalName(run.exitSignal);
    }
    if (run.exitCode >= 0) {
        const std::string_view meaning = protocol::exitMeaning(run.exitCode);
        return QStringLiteral("exit %1: %2")
            .arg(run.exitCode)
            .arg(QString::fromUtf8(meaning.data(), qsizetype(meaning.size())));
    }
    return run.state == RunState::Cancelled ? QObject::tr("never started") : QObject::tr("unknown");
}

} // namespace trainyard
