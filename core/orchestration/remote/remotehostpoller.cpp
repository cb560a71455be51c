#include "orchestration/remote/remotehostpoller.h"

#include "orchestration/logcategories.h"
#include "orchestration/process/processrunner.h"
#include "orchestration/remote/remotegpus.h"
#include "orchestration/remote/sshmaster.h"

namespace trainyard {

using remotescripts::RunReport;

RemoteHostPoller::RemoteHostPoller(const RemoteHostConfig &config, SshMaster &master, QHash<RunId, RemoteRun> &runs,
                                   QObject *parent)
    : QObject(parent)
    , m_config(config)
    , m_master(master)
    , m_runs(runs)
{
    m_timer.setInterval(qMax(100, m_config.pollMs));
    connect(&m_timer, &QTimer::timeout, this, &RemoteHostPoller::tick);
    m_timer.start();
}

void RemoteHostPoller::pollSoon()
{
    QTimer::singleShot(0, this, &RemoteHostPoller::tick);
}

void RemoteHostPoller::tick()
{
    if (m_polling) {
        return; // one poll at a time, however slow the host
    }
    m_polling = true;
    m_master.ensure([this](bool up, bool fresh, const QString &why) {
        if (!up) {
            m_polling = false;
            // Asked again less often while it stays away, at most every 10 s.
            m_downPolls = qMin(m_downPolls + 1, 5);
            m_timer.setInterval(qMin(10000, qMax(100, m_config.pollMs) << m_downPolls));
            Q_EMIT devicesReported(m_config.name, {}, why);
            return;
        }
        if (m_downPolls > 0) {
            m_downPolls = 0;
            m_timer.setInterval(qMax(100, m_config.pollMs));
        }
        // A new master (fresh): the forward goes on it after the files are read.
        Q_EMIT reached();
        QList<RunId> ids;
        QList<quint64> serials;
        QList<remotescripts::PollRun> runs;
        for (auto it = m_runs.cbegin(); it != m_runs.cend(); ++it) {
            if (!it->live || !it->verified) {
                continue;
            }
            ids << it.key();
            serials << it->serial;
            runs << it->pollRun(false);
        }
        m_master.run(remotescripts::poll(true, m_config.maxBytesPerPoll, runs), {}, this,
                     [this, ids, serials, fresh](const ProcessResult &r) {
                         m_polling = false;
                         if (!r.ok()) {
                             // The connection may have dropped: the next tick asks the master.
                             qCWarning(lcRemote, "host %s: the poll failed: %s", qUtf8Printable(m_config.name),
                                       qUtf8Printable(r.message(QStringLiteral("ssh"))));
                             return;
                         }
                         polled(ids, serials, fresh, r.out);
                     });
    });
}

void RemoteHostPoller::polled(const QList<RunId> &ids, const QList<quint64> &serials, bool fresh, const QByteArray &out)
{
    const remotescripts::PollReport report = remotescripts::parsePoll(out, int(ids.size()));
    if (!report.complete) {
        qCWarning(lcRemote, "host %s: the poll's answer was cut short (%lld bytes)", qUtf8Printable(m_config.name),
                  static_cast<long long>(out.size()));
        return;
    }
    if (report.gpusAsked) {
        // A run's processes there: its worker, and what is in the session of
        // its waiting sh.
        QHash<qint64, qint64> runs;
        for (const RemoteRun &r : std::as_const(m_runs)) {
            if (r.pid > 0) {
                runs.insert(r.pid, r.pid);
            }
            if (r.wrapper > 0 && r.pid > 0) {
                runs.insert(r.wrapper, r.pid);
            }
        }
        if (report.gpuStatus == 0) {
            Q_EMIT devicesReported(
                m_config.name, remotegpus::parse(m_config.name, report.gpuRows, report.appRows, runs, report.psRows),
                QString());
        } else {
            Q_EMIT devicesReported(
                m_config.name, {},
                tr("nvidia-smi on host %1 said: %2").arg(m_config.name, QString::fromUtf8(report.gpuRows.trimmed())));
        }
    }
    bool again = false;
    for (int i = 0; i < ids.size(); ++i) {
        const auto it = m_runs.find(ids.at(i));
        if (it == m_runs.end() || it->serial != serials.at(i)) {
            continue; // ended, released or started again meanwhile
        }
        again = applyReport(ids.at(i), *it, report.runs.at(i)) || again;
    }
    // The runs' files are up to date: a worker that reconnects now finds
    // every line it wrote while the connection was down.
    if (fresh) {
        m_master.ensureForward({});
    }
    if (again) {
        pollSoon();
    }
}

bool RemoteHostPoller::applyReport(RunId run, RemoteRun &r, const RunReport &report)
{
    QString warning;
    const bool behind = r.mirrorReport(m_config.name, report, &warning);
    if (!warning.isEmpty()) {
        qCWarning(lcRemote, "run %d: %s", run, qUtf8Printable(warning));
    }
    if (!report.metricsTorn && !report.logTorn) {
        r.tornPolls = 0;
    }
    switch (report.state) {
    case RunReport::State::Alive:
        r.endingPolls = 0;
        return behind;
    case RunReport::State::Ending:
        // Its waiting sh ends what is left of the run, then writes the
        // status: the run has ended only then (or once that sh is gone too,
        // State::Gone). Polled soon at first, then at the usual pace.
        return behind || ++r.endingPolls <= 10;
    case RunReport::State::Exited:
    case RunReport::State::Gone:
        break;
    }
    if (behind) {
        return true; // every byte first: its end is read from the mirror
    }
    // A file read short may still hold bytes not mirrored: asked again at
    // the usual pace, a few times, before the run's end is judged.
    if (report.metricsTorn || report.logTorn) {
        if (++r.tornPolls < 3) {
            return false;
        }
        qCWarning(lcRemote, "run %d: its files on host %s read short %d times; ended with what was read", run,
                  qUtf8Printable(m_config.name), r.tornPolls);
    }
    finish(run, report);
    return false;
}

void RemoteHostPoller::finish(RunId run, const RunReport &report)
{
    const RemoteRun r = m_runs.take(run);
    int code = -1;
    int signal = 0;
    if (report.state == RunReport::State::Exited && report.status >= 0) {
        if (report.status > 128) {
            signal = report.status - 128;
        } else {
            code = report.status;
        }
    }
    qCInfo(lcRemote, "run %d on host %s ended: status %d (exit %d, signal %d)", run, qUtf8Printable(m_config.name),
           report.status, code, signal);
    // A full disk there leaves a worker without its files: said plainly.
    if (code != 0 && report.freeKiB >= 0 && report.freeKiB < 16) {
        Q_EMIT endedBecause(run, tr("the disk of host %1 is full: %2 has %3 KiB free (df); the worker could not "
                                    "write its files there")
                                     .arg(m_config.name, r.spec.runDir)
                                     .arg(report.freeKiB));
    }
    Q_EMIT exited(run, code, signal);
}

} // namespace trainyard
