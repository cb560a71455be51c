#pragma once

#include "records/runinfo.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

#include <map>

namespace trainyard {

// The run records of one board, by id and by name: value records, RunInfo
// and nothing else (what a run's process, its launch, its stop or its
// ingestion needs lives with the Supervisor and Ingestion, keyed by the
// same id). A record's address is stable from add() to remove(), so the
// parts may keep a reference to it while the run lives. Ids are never
// reused while the registry lives, not even across clear().
//
// Whoever changes a record says so with touch() or setState(): one
// changed(id) per change, which the Scheduler passes on as runChanged.
// Names change only through rename() (the name index).
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
    RunInfo *find(RunId id);
    const RunInfo *find(RunId id) const;
    RunInfo value(RunId id) const; // id 0 when unknown
    RunId findByName(const QString &name) const { return m_byName.value(name, 0); }
    void rename(RunId id, const QString &name);

    int size() const { return int(m_runs.size()); }
    QList<RunId> ids() const; // in id order
    int count(RunState state) const;
    int activeCount() const;
    int pendingCount() const; // active runs waiting in a batch queue (isPendingInQueue)

    // Iteration in id order over the records (for (RunInfo &r : registry)).
    class iterator
    {
    public:
        explicit iterator(std::map<RunId, RunInfo>::iterator it)
            : m_it(it)
        {
        }
        RunInfo &operator*() const { return m_it->second; }
        iterator &operator++()
        {
            ++m_it;
            return *this;
        }
        bool operator!=(const iterator &o) const { return m_it != o.m_it; }

    private:
        std::map<RunId, RunInfo>::iterator m_it;
    };
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
    iterator begin() { return iterator(m_runs.begin()); }
    iterator end() { return iterator(m_runs.end()); }
    const_iterator begin() const { return const_iterator(m_runs.begin()); }
    const_iterator end() const { return const_iterator(m_runs.end()); }

    // Announces a change of the record (emits changed).
    void touch(RunId id) { Q_EMIT changed(id); }
    // Sets the state and, when not empty, the message; emits changed when
    // either is new.
    void setState(RunId id, RunState state, const QString &message = QString());

Q_SIGNALS:
    void changed(trainyard::RunId id);

private:
    std::map<RunId, RunInfo> m_runs; // node-based: stable addresses
    QHash<QString, RunId> m_byName;
    RunId m_nextId = 1;
};

} // namespace trainyard
