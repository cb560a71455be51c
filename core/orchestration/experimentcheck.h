#pragma once

#include "experiment.h"

#include <QByteArray>
#include <QSet>
#include <QString>
#include <QStringList>

namespace trainyard {

class DeviceInventory;

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

    // Every problem, each naming the run or lane it is about; empty when none.
    QStringList problems(const Experiment &experiment) const;

    // The two halves of problems(): the runs' data, the lanes' devices.
    // `passed`: data sources (dataKey) known to be fine, not checked again;
    // those that pass now are added (the desktop app keeps it per session).
    QStringList dataProblems(const Experiment &experiment, QSet<QByteArray> *passed = nullptr) const;
    QStringList deviceProblems(const Experiment &experiment) const;

    // What identifies a run's data source: its "data" object as compact JSON.
    static QByteArray dataKey(const QJsonObject &spec);
    // A program run's: its folder exists and its program is there (on PATH,
    // or the file argv[0] names relative to its folder); empty when so.
    static QString programProblem(const QJsonObject &spec);

private:
    // SpecCheck on `spec`, waited for: its complaint, empty when none.
    QString checkSpec(const QJsonObject &spec) const;

    QString m_workerProgram;
    const DeviceInventory *m_devices;
    bool m_cpuFallback = false;
    int m_timeoutSeconds = 60;
};

} // namespace trainyard
