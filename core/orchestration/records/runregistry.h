#pragma once

#include "orchestration/records/runinfo.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

#include <map>

namespace trainyard {

// The run records of one board, by id and by name: value records, RunInfo
// and nothing else (what a run's process, its launch, its stop or its
// ingestion needs lives with the Supervisor and Ingestion, keyed by the
// same id). Ids are never reused while the registry lives, not even across
// clear().
//
// The registry is the only writer of its records: the parts read them
// (find(), value(), iteration) and change them through update(), setState()
// or rename(), each change said once by changed(id), which the Orchestrator
// passes on as runChanged. Every state change is checked against the one
// table beside RunState (isAllowedTransition).
class RunRegistry : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    // Adds `info` under a fresh id (info.id is overwritten); returns the id.
    RunId add(RunInfo info);
    // Puts a removed run back under its own id (an undo: its colour, curves
    // and plot keys are keyed by it): an id this registry gave out and no
    // run holds now. Otherwise as add(). Returns the id.
    RunId restore(RunInfo info);
    void remove(RunId id);
    void clear();

    bool contains(RunId id) const { return m_runs.count(id) != 0; }
    const RunInfo *find(RunId id) const; // to read; valid until the next change of the registry's runs
    RunInfo value(RunId id) const;       // id 0 when unknown
    RunId findByName(const QString &name) const { return m_byName.value(name, 0); }
    void rename(RunId id, const QString &name);

    int size() const { return int(m_runs.size()); }
    QList<RunId> ids() const; // in id order
    int count(RunState state) const;
    int activeCount() const;
    int pendingCount() const; // active runs waiting in a batch queue (isPendingInQueue)

    // Iteration in id order over the records, to read (for (const RunInfo &r : registry)).
    class const_iterator
    {
    public:
        explicit const_iterator(std::map<RunId, RunInfo>::const_iterator it)
            : m_it(it)
        {
        }
        const RunInfo &operator*() const { return m_it->second; }
        const_iterator &operator++()
        {
            ++m_it;
            return *this;
        }
        bool operator!=(const const_iterator &o) const { return m_it != o.m_it; }

    private:
        std::map<RunId, RunInfo>::const_iterator m_it;
    };
    const_iterator begin() const { return const_iterator(m_runs.begin()); }
    const_iterator end() const { return const_iterator(m_runs.end()); }

    enum class Notify {
        Changed, // one changed(id)
        // None: a progress update at line rate (Ingestion announces those
        // batched, progressChanged), a lane renumbering (the Board's signals).
        Quiet,
    };
    // Changes the record of `id` through fn(RunInfo &), then says so once.
    // fn leaves id and name alone (rename() keeps the name index); a state it
    // sets is checked as setState() checks it, and refused (the old state
    // kept, a warning) when the table does not allow it. False when there is
    // no such run.
    template <typename Fn>
    bool update(RunId id, Fn &&fn, Notify notify = Notify::Changed)
    {
        const auto it = m_runs.find(id);
        if (it == m_runs.end()) {
            return false;
        }
        RunInfo &r = it->second;
        const RunState before = r.state;
        const QString name = r.name;
        fn(r);
        if (r.state != before || r.id != id || r.name != name) {
            settle(r, id, before, name);
        }
        if (notify == Notify::Changed) {
            Q_EMIT changed(id);
        }
        return true;
    }
    // Says changes made with Notify::Quiet now (emits changed).
    void touch(RunId id) { Q_EMIT changed(id); }
    // Sets the state and, when not empty, the message; emits changed when
    // either is new. False (nothing changed, a warning) when the transition
    // table does not allow it, or there is no such run.
    bool setState(RunId id, RunState state, const QString &message = QString());

Q_SIGNALS:
    void changed(trainyard::RunId id);

private:
    // After update's fn: id and name put back, the state checked.
    void settle(RunInfo &r, RunId id, RunState before, const QString &name);

    std::map<RunId, RunInfo> m_runs; // node-based: stable addresses
    QHash<QString, RunId> m_byName;
    RunId m_nextId = 1;
};

} // namespace trainyard
