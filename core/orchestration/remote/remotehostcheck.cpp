#include "orchestration/remote/remotehostcheck.h"

#include "orchestration/process/processrunner.h"
#include "orchestration/remote/remotegpus.h"
#include "orchestration/remote/remotescripts.h"
#include "orchestration/remote/sshmaster.h"

#include <QJsonDocument>
#include <QRegularExpression>

namespace trainyard {

RemoteHostCheck::RemoteHostCheck(RemoteHostConfig config)
    : m_config(std::move(config))
    , m_master(std::make_unique<SshMaster>(m_config))
{
}

RemoteHostCheck::~RemoteHostCheck() = default;

RemoteHostCheck::Result RemoteHostCheck::check()
{
    Result result;
    QString why;
    if (!m_master->ensureNow(m_config.commandTimeoutMs, &why)) {
        result.reachable = false;
        result.host = why;
        return result;
    }
    const ProcessResult r =
        m_master->runNow(remotescripts::hostCheck(m_config.runsRoot, m_config.worker), {}, m_config.commandTimeoutMs);
    if (!r.ok()) {
        result.reachable = false;
        result.host = tr("host %1 (%2) did not answer: %3")
                          .arg(m_config.name, m_config.target.host, r.message(QStringLiteral("ssh")));
        return result;
    }
    QByteArray rows;
    for (const QByteArray &raw : r.out.split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (raw.startsWith("gpu ")) {
            rows += raw.mid(4) + '\n';
        }
        if (line.startsWith(QLatin1String("worker ok "))) {
            result.workerVersion = line.mid(10);
        } else if (line == QLatin1String("worker missing")) {
            result.worker = tr("%1 is not an executable file on host %2").arg(m_config.worker, m_config.name);
        } else if (line.startsWith(QLatin1String("worker fails"))) {
            result.worker = tr("%1 --version failed on host %2: %3").arg(m_config.worker, m_config.name, line.mid(13));
        } else if (line == QLatin1String("root notwritable")) {
            result.runsRoot = tr("%1 cannot be made or written on host %2").arg(m_config.runsRoot, m_config.name);
        } else if (line == QLatin1String("gpus listed")) {
            result.gpus = 0;
        }
    }
    if (result.gpus == 0) {
        result.gpuList = remotegpus::parse(m_config.name, rows, {}, {});
        result.gpus = int(result.gpuList.size());
    }
    return result;
}

QString RemoteHostCheck::checkData(const QJsonObject &spec)
{
    const ProcessResult r =
        m_master->runNow(remotescripts::dataCheck(m_config.runsRoot, m_config.worker),
                         QJsonDocument(spec).toJson(QJsonDocument::Compact), m_config.commandTimeoutMs);
    if (r.ok()) {
        return {};
    }
    QString text = r.message(QStringLiteral("ssh"));
    text.remove(QStringLiteral("trainyard-worker: "));
    // The spec went through a file there: name what the user wrote instead.
    static const QRegularExpression file(QStringLiteral("\\S*/\\.trainyard/check-[0-9]+\\.json"));
    text.replace(file, QStringLiteral("spec"));
    return text;
}

} // namespace trainyard
