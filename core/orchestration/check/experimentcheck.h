#pragma once

#include "orchestration/experiment/experiment.h"

#include <QByteArray>
#include <QSet>
#include <QString>
#include <QStringList>

namespace trainyard {

class DeviceInventory;
class ModelCatalogue;

// What would make an experiment's runs fail before their first step, found
// without starting one: every run's data (folders and files exist, first
// lines and headers parse: the worker's own loaders, through
// `trainyard-worker --check`, once per distinct data source) and the lanes'
// devices. Keys, types, ranges and model types are checked when the
// experiment is loaded against the worker's catalogue (Experiment::load);
// this adds what needs the files and the machine. Used by `trainyard check`.
class ExperimentCheck
{
public:
    // `workerProgram` empty: the data is not checked (a problem says so).
    ExperimentCheck(QString workerProgram, const DeviceInventory *devices);

    // Lanes naming a GPU this machine lacks are problems unless they fall back to the CPU.
    void setCpuFallback(bool on) { m_cpuFallback = on; }
    // Seconds one worker check may take (it only opens files).
    void setTimeout(int seconds) { m_timeoutSeconds = seconds; }
    // The worker's catalogue: with it the data of a run whose spec has
    // problems (Experiment::load's `partial`) is checked too.
    void setCatalogue(const ModelCatalogue *catalogue) { m_catalogue = catalogue; }
    // The file is trusted (TrustList): a cluster whose keys are commands
    // (ExperimentCluster::commandLines: ssh, its config, extra sbatch
    // arguments, the worker) is asked only then; asking runs them.
    void setTrusted(bool on) { m_trusted = on; }

    // Every problem (data, devices, clusters, program requirements), each starting with the JSON path it is about
    // ("lanes[0].runs[1].data.path: ..."); empty when none. The experiment
    // may be load()'s `partial`: its invalid runs' data is still checked.
    QStringList problems(const Experiment &experiment, QStringList *notes = nullptr) const;

    // The parts of problems(): the runs' data (here), the lanes' devices, the clusters, the hosts.
    // `passed`: data sources (dataKey) known to be fine, not checked again;
    // those that pass now are added (the desktop app keeps it per session).
    QStringList dataProblems(const Experiment &experiment, QSet<QByteArray> *passed = nullptr) const;
    // Local lanes only: a Slurm lane's GPUs are the cluster's, never this machine's.
    QStringList deviceProblems(const Experiment &experiment) const;
    // Each Slurm lane, asked of its cluster (SlurmLaneCheck): the
    // partition, sbatch --test-only with the lane's first run's job, the
    // cluster's worker; blocking, each command bounded; a cluster that does
    // not answer is one problem.
    // `notes` gets what was not asked and why (an untrusted file's cluster).
    QStringList clusterProblems(const Experiment &experiment, QStringList *notes = nullptr) const;
    // Each host that lanes name, asked over ssh (RemoteHostCheck): reached,
    // its worker runs, its runs_root can be written, its GPUs cover the
    // lanes' cuda:N, and the data of its lanes' runs, by the worker there.
    // Only for a trusted file (asking runs ssh with the file's settings).
    QStringList hostProblems(const Experiment &experiment, QStringList *notes = nullptr) const;

    // Each program run's program.requires (ProgramRequirements), asked of
    // its interpreter: once per distinct interpreter, folder, env and
    // modules. Only for a trusted file (starting its interpreter runs its
    // command); `notes` gets why not, or which interpreter answered.
    QStringList requirementProblems(const Experiment &experiment, QStringList *notes = nullptr) const;

    // What identifies a run's data source: its "data" object as compact JSON.
    static QByteArray dataKey(const QJsonObject &spec);
    // A program run's: its folder exists and its program is there (on PATH,
    // or the file argv[0] names relative to its folder); empty when so.
    static QString programProblem(const QJsonObject &spec);

private:
    // SpecCheck on `spec`, waited for: its complaint, empty when none.
    QString checkSpec(const QJsonObject &spec) const;
    // What the worker is given to look at the data of a run whose spec has
    // problems: its "data" with a model of that data's task; empty when
    // there is none to make (no catalogue, an unknown kind, a bad data object).
    QJsonObject dataProbe(const QJsonObject &spec, const QString &path) const;

    QString m_workerProgram;
    const DeviceInventory *m_devices;
    const ModelCatalogue *m_catalogue = nullptr;
    bool m_cpuFallback = false;
    bool m_trusted = false;
    int m_timeoutSeconds = 60;
};

} // namespace trainyard
