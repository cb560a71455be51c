#pragma once

#include <QJsonObject>
#include <QObject>
#include <QString>

#include <memory>

class QTemporaryDir;

namespace trainyard {

class Process;
struct ProcessResult;

// `trainyard-worker --check --spec FILE` on one run spec: what the worker's
// own loaders say about its data (folders and files exist, headers and first
// lines parse) without training. It takes a second or two (the worker loads
// LibTorch), so it runs asynchronously: the run editor checks while the user
// types; ExperimentCheck waits for each.
class SpecCheck : public QObject
{
    Q_OBJECT
public:
    explicit SpecCheck(QString workerProgram, QObject *parent = nullptr);
    ~SpecCheck() override;

    // Starts checking `spec`, abandoning a check still under way. False when
    // the worker could not be started: complaint() says why, and finished()
    // still follows.
    bool start(const QJsonObject &spec);
    // Waits for the check under way; false when it did not answer in `ms`
    // (it is killed, and complaint() says so).
    bool waitForFinished(int ms);
    bool isRunning() const;
    // The spec of the last start().
    QJsonObject spec() const { return m_spec; }
    // The worker's complaint about the last finished check, with the
    // temporary file's path replaced by "spec"; empty when it found none.
    QString complaint() const { return m_complaint; }
    // What the worker said of a KG model's recipe for the last finished
    // check's data: {"recipe": NAME "auto" chooses, "reason": the graph's
    // statistics, "values": …} (worker/base/runcheck.h); empty when it
    // said nothing (another model, a complaint).
    QJsonObject recipe() const { return m_recipe; }

Q_SIGNALS:
    void finished(const QString &complaint);

private:
    void finish(const QString &complaint);
    void readOutcome(const ProcessResult &result);

    QString m_workerProgram;
    QJsonObject m_spec;
    QString m_complaint;
    QJsonObject m_recipe;
    QString m_specPath;
    std::unique_ptr<QTemporaryDir> m_dir;
    Process *m_process = nullptr;
};

} // namespace trainyard
