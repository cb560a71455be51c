#include "orchestration/devices/processtree.h"

#include "orchestration/logcategories.h"

#include <QElapsedTimer>
#include <QThread>

#include <cerrno>
#include <csignal>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace trainyard {

namespace {

// A file descriptor closed when it goes out of scope.
class Fd
{
public:
    explicit Fd(int fd = -1)
        : m_fd(fd)
    {
    }
    ~Fd()
    {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

// A file of a /proc/PID folder, at most `limit` bytes; empty when it cannot
// be read (the process ended, another user's environ).
QByteArray readAt(int dirFd, const char *name, qsizetype limit)
{
    const Fd fd(::openat(dirFd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (fd.get() < 0) {
        return {};
    }
    QByteArray out;
    char buffer[4096];
    while (out.size() < limit) {
        const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        out.append(buffer, n);
    }
    return out;
}

// What /proc/PID/stat and the folder's owner say of one process.
struct ProcStat
{
    bool valid = false;
    uid_t uid = 0;
    QString name;
    char state = '?';
    qint64 pgrp = 0;
    qint64 session = 0;
    qint64 startTicks = 0;
};

ProcStat parseStat(const QByteArray &stat)
{
    ProcStat s;
    // The command name (field 2) may hold spaces and ')': fields resume after the last ')'.
    const qsizetype open = stat.indexOf('(');
    const qsizetype close = stat.lastIndexOf(')');
    if (open < 0 || close < open) {
        return s;
    }
    const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
    // fields[0] is field 3 (state), [2] pgrp, [3] session, [19] starttime (field 22).
    if (fields.size() < 20 || fields.at(0).isEmpty()) {
        return s;
    }
    s.name = QString::fromUtf8(stat.mid(open + 1, close - open - 1));
    s.state = fields.at(0).at(0);
    s.pgrp = fields.at(2).toLongLong();
    s.session = fields.at(3).toLongLong();
    s.startTicks = fields.at(19).toLongLong();
    s.valid = true;
    return s;
}

// /proc/PID opened as a directory (no link followed: /proc/self is one).
int openProcess(int procFd, qint64 pid)
{
    const QByteArray name = QByteArray::number(pid);
    return ::openat(procFd, name.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

ProcStat readStat(int dirFd)
{
    struct stat st
    {};
    if (::fstat(dirFd, &st) != 0) {
        return {};
    }
    ProcStat s = parseStat(readAt(dirFd, "stat", 4096));
    s.uid = st.st_uid;
    return s;
}

bool isDigits(const char *s)
{
    if (!*s) {
        return false;
    }
    for (; *s; ++s) {
        if (*s < '0' || *s > '9') {
            return false;
        }
    }
    return true;
}

// Whether the NUL-separated `environ` holds `entry` as one whole entry.
bool holdsEntry(const QByteArray &environ, const QByteArray &entry)
{
    for (qsizetype at = environ.indexOf(entry); at >= 0; at = environ.indexOf(entry, at + 1)) {
        const qsizetype end = at + entry.size();
        if ((at == 0 || environ.at(at - 1) == '\0') && (end == environ.size() || environ.at(end) == '\0')) {
            return true;
        }
    }
    return false;
}

constexpr qsizetype kEnvironLimit = 8 * 1024 * 1024; // well above any ARG_MAX in use

} // namespace

ProcessTree::ProcessTree(qint64 topPid, qint64 topStartTicks, const QString &token)
    : m_topPid(topPid)
    , m_topStartTicks(topStartTicks)
    , m_token(token)
{
    if (!token.isEmpty()) {
        m_tokenEntry = QByteArrayLiteral("TRAINYARD_TOKEN=") + token.toUtf8();
    }
}

QList<ProcessTree::Process> ProcessTree::processes() const
{
    QList<Process> out;
    if (isNull()) {
        return out;
    }
    const Fd proc(::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (proc.get() < 0) {
        return out;
    }
    // fdopendir owns the duplicate; openat goes on using `proc`.
    const int listing = ::dup(proc.get());
    DIR *dir = listing >= 0 ? ::fdopendir(listing) : nullptr;
    if (!dir) {
        if (listing >= 0) {
            ::close(listing);
        }
        return out;
    }
    const uid_t me = ::geteuid();
    const qint64 self = ::getpid();
    struct Candidate
    {
        Process process;
        bool onlyByGroup = false;
    };
    QList<Candidate> candidates;
    bool topReused = false;
    while (const dirent *entry = ::readdir(dir)) {
        if (!isDigits(entry->d_name)) {
            continue;
        }
        const qint64 pid = QByteArray(entry->d_name).toLongLong();
        if (pid == self) {
            continue;
        }
        const Fd process(openProcess(proc.get(), pid));
        if (process.get() < 0) {
            continue; // ended since the listing
        }
        const ProcStat s = readStat(process.get());
        if (!s.valid || s.uid != me || s.state == 'Z' || s.state == 'X') {
            continue;
        }
        if (pid == m_topPid && m_topStartTicks > 0 && s.startTicks != m_topStartTicks) {
            topReused = true;
        }
        const bool byGroup = m_topPid > 0 && (s.pgrp == m_topPid || s.session == m_topPid);
        const bool byToken = !byGroup && !m_tokenEntry.isEmpty()
                             && holdsEntry(readAt(process.get(), "environ", kEnvironLimit), m_tokenEntry);
        if (byGroup || byToken) {
            candidates.append({Process{pid, s.name, s.startTicks}, !byToken});
        }
    }
    ::closedir(dir);
    for (const Candidate &c : std::as_const(candidates)) {
        // The top pid belongs to another process now: its group and session
        // are that one's, not the run's.
        if (topReused && c.onlyByGroup) {
            if (m_tokenEntry.isEmpty()) {
                continue;
            }
            const Fd process(openProcess(proc.get(), c.process.pid));
            if (process.get() < 0 || !holdsEntry(readAt(process.get(), "environ", kEnvironLimit), m_tokenEntry)) {
                continue;
            }
        }
        out.append(c.process);
    }
    return out;
}

bool ProcessTree::contains(qint64 pid) const
{
    if (isNull() || pid <= 0 || pid == ::getpid()) {
        return false;
    }
    const Fd proc(::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    const Fd process(proc.get() >= 0 ? openProcess(proc.get(), pid) : -1);
    if (process.get() < 0) {
        return false;
    }
    const ProcStat s = readStat(process.get());
    if (!s.valid || s.uid != ::geteuid() || s.state == 'Z' || s.state == 'X') {
        return false;
    }
    if (!m_tokenEntry.isEmpty() && holdsEntry(readAt(process.get(), "environ", kEnvironLimit), m_tokenEntry)) {
        return true;
    }
    if (m_topPid <= 0 || (s.pgrp != m_topPid && s.session != m_topPid)) {
        return false;
    }
    if (m_topStartTicks <= 0) {
        return true;
    }
    // The group's or session's leader must still be the run's top process.
    const Fd top(openProcess(proc.get(), m_topPid));
    if (top.get() < 0) {
        return true; // gone, not reused
    }
    const ProcStat t = readStat(top.get());
    return !t.valid || t.startTicks == m_topStartTicks;
}

int ProcessTree::signal(const QList<Process> &processes, int sig)
{
    int signalled = 0;
    const Fd proc(::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    for (const Process &p : processes) {
        // A pidfd pins the process: checked to be the one listed, it is the
        // one signalled, even if its pid is reused in between.
#ifdef SYS_pidfd_open
        const Fd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, static_cast<pid_t>(p.pid), 0)));
        if (pidfd.get() < 0 && errno != ENOSYS) {
            continue; // gone
        }
#endif
        const Fd process(proc.get() >= 0 ? openProcess(proc.get(), p.pid) : -1);
        const ProcStat s = process.get() >= 0 ? readStat(process.get()) : ProcStat{};
        if (!s.valid || s.startTicks != p.startTicks || s.uid != ::geteuid()) {
            continue;
        }
#ifdef SYS_pidfd_open
        if (pidfd.get() >= 0) {
            if (::syscall(SYS_pidfd_send_signal, pidfd.get(), sig, nullptr, 0) == 0) {
                ++signalled;
            }
            continue;
        }
#endif
        if (::kill(static_cast<pid_t>(p.pid), sig) == 0) {
            ++signalled;
        }
    }
    return signalled;
}

bool ProcessTree::killNow(int boundMs) const
{
    QElapsedTimer clock;
    clock.start();
    for (;;) {
        const QList<Process> left = processes();
        if (left.isEmpty()) {
            return true;
        }
        signal(left, SIGKILL);
        if (clock.elapsed() >= boundMs) {
            qCWarning(lcLauncher, "still running after SIGKILL: %s", qUtf8Printable(describe(left)));
            return false;
        }
        QThread::msleep(20);
    }
}

QString ProcessTree::describe(const QList<Process> &processes)
{
    constexpr int kNamed = 4;
    QStringList named;
    for (const Process &p : processes) {
        if (named.size() == kNamed) {
            break;
        }
        named << (p.name.isEmpty() ? QString::number(p.pid) : QStringLiteral("%1 (%2)").arg(p.pid).arg(p.name));
    }
    QString text =
        (processes.size() == 1 ? QStringLiteral("pid ") : QStringLiteral("pids ")) + named.join(QStringLiteral(", "));
    if (processes.size() > kNamed) {
        text += QStringLiteral(" and %1 more").arg(processes.size() - kNamed);
    }
    return text;
}

ProcessTreeEnd::ProcessTreeEnd(const ProcessTree &tree, QObject *parent)
    : QObject(parent)
    , m_tree(tree)
{
    m_poll.setInterval(kPollMs);
    connect(&m_poll, &QTimer::timeout, this, &ProcessTreeEnd::poll);
    m_grace.setSingleShot(true);
    connect(&m_grace, &QTimer::timeout, this, &ProcessTreeEnd::killNow);
}

bool ProcessTreeEnd::begin(bool kill)
{
    const QList<ProcessTree::Process> left = m_tree.processes();
    if (left.isEmpty()) {
        return false;
    }
    m_killing = kill;
    qCInfo(lcLauncher, "top pid %lld exited; %s to what is left of its run: %s",
           static_cast<long long>(m_tree.topPid()), kill ? "SIGKILL" : "SIGTERM",
           qUtf8Printable(ProcessTree::describe(left)));
    ProcessTree::signal(left, kill ? SIGKILL : SIGTERM);
    if (!kill) {
        m_grace.start(kGraceMs);
    }
    m_poll.start();
    // Said at once; done() only from the event loop, never from in here.
    m_message = QStringLiteral("waits for %1 of this run to exit").arg(ProcessTree::describe(left));
    Q_EMIT waiting(m_message);
    return true;
}

void ProcessTreeEnd::killNow()
{
    m_killing = true;
    m_grace.stop();
    poll();
}

void ProcessTreeEnd::poll()
{
    const QList<ProcessTree::Process> left = m_tree.processes();
    if (left.isEmpty()) {
        m_poll.stop();
        m_grace.stop();
        Q_EMIT done();
        return;
    }
    // SIGKILL again each round: a process forked since the last one, or
    // one in the kernel that has not taken it yet.
    if (m_killing) {
        ProcessTree::signal(left, SIGKILL);
    }
    const QString message = QStringLiteral("waits for %1 of this run to exit").arg(ProcessTree::describe(left));
    if (message != m_message) {
        m_message = message;
        qCInfo(lcLauncher, "top pid %lld: %s", static_cast<long long>(m_tree.topPid()), qUtf8Printable(message));
        Q_EMIT waiting(message);
    }
}

} // namespace trainyard
