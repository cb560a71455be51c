#include "orchestration/check/speccheck.h"

#include "orchestration/logcategories.h"
#include "orchestration/process/processrunner.h"
#include "orchestration/runspec/runspecview.h"

#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTimer>

namespace trainyard {

SpecCheck::SpecCheck(QString workerProgram, QObject *parent)
    : QObject(parent)
    , m_workerProgram(std::move(workerProgram))
{
}

SpecCheck::~SpecCheck()
{
    if (m_process) { // before the temporary folder goes
        m_process->cancel();
    }
}

bool SpecCheck::isRunning() const
{
    return m_process != nullptr;
}

bool SpecCheck::start(const QJsonObject &spec)
{
    if (m_process) {
        // The user changed the spec meanwhile: its answer no longer matters.
        m_process->cancel();
        m_process->deleteLater();
        m_process = nullptr;
    }
    m_spec = spec;
    m_recipe = {};
    const auto failLater = [this](const QString &complaint) {
        m_complaint = complaint;
        QTimer::singleShot(0, this, [this, complaint] { Q_EMIT finished(complaint); });
        return false;
    };
    if (m_workerProgram.isEmpty()) {
        return failLater(QStringLiteral("trainyard-worker not found (set TRAINYARD_WORKER or install it beside "
                                        "trainyard): the data was not checked"));
    }
    m_dir = std::make_unique<QTemporaryDir>();
    if (!m_dir->isValid()) {
        return failLater(QStringLiteral("cannot create a temporary folder to check the spec in"));
    }
    m_specPath = m_dir->filePath(QStringLiteral("spec.json"));
    QFile file(m_specPath);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(spec).toJson()) < 0) {
        return failLater(QStringLiteral("%1: cannot write the spec to check").arg(m_specPath));
    }
    file.close();

    m_process = new Process(this);
    connect(m_process, &Process::done, this, &SpecCheck::readOutcome);
    m_process->start({m_workerProgram, {QStringLiteral("--check"), QStringLiteral("--spec"), m_specPath}, {}, {}, {}});
    return true;
}

bool SpecCheck::waitForFinished(int ms)
{
    if (!m_process) {
        return true;
    }
    // Answered (or failed to start) while waiting: finish() ran and cleared m_process.
    if (m_process->waitForFinished(ms) || !m_process) {
        return true;
    }
    m_process->cancel();
    finish(QStringLiteral("%1 --check did not answer within %2 s").arg(m_workerProgram).arg(ms / 1000));
    return false;
}

void SpecCheck::readOutcome(const ProcessResult &result)
{
    if (!result.started) {
        finish(QStringLiteral("%1 did not start: %2").arg(m_workerProgram, result.errorString));
        return;
    }
    QString text;
    m_recipe = {};
    if (result.ok()) {
        const QByteArray line = result.out.trimmed();
        if (!line.isEmpty()) {
            m_recipe = QJsonDocument::fromJson(line).object(); // not JSON: nothing said
        }
    } else {
        text = QString::fromUtf8(result.err).trimmed();
        text.remove(QStringLiteral("trainyard-worker: "));
        qCInfo(lcExperiment).noquote() << "worker check of" << RunSpecView(m_spec).name() << "failed:" << text;
        if (text.isEmpty()) {
            text = QStringLiteral("%1 --check failed (exit %2)").arg(m_workerProgram).arg(result.exitCode);
        }
        // The spec went through a temporary file: name what the user wrote instead.
        text.replace(m_specPath, QStringLiteral("spec"));
    }
    finish(text);
}

void SpecCheck::finish(const QString &complaint)
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->deleteLater();
        m_process = nullptr;
    }
    m_dir.reset();
    m_complaint = complaint;
    Q_EMIT finished(complaint);
}

} // namespace trainyard
