#pragma once

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace trainyard {

// One run as its dependencies see it: the names others may use for it and
// the names it runs after.
struct DependencyNode
{
    QString name;
    QString group;  // its repeat group (== name for a run of its own)
    QString rounds; // the rounds it is a member of, else empty
    int round = 0;  // its round, from 1
    bool aggregate = false;
    QString sweep; // the sweep it is a trial of, else empty
    QStringList after;
};

// Which runs each run runs after, by the names in its `after`
// (docs/experiment-format.md#after): a run's own name first, else a repeat
// group's name (all its runs), else rounds' name (their last aggregate,
// which runs after all the rest), else a sweep's name (its trials). Pure:
// the board's runs (Dependencies) and an experiment file's
// (checkDependencies) are given as nodes.
class DependencyGraph
{
public:
    enum class Kind {
        None, // no such name
        Run,
        Group,
        Rounds,
        Sweep,
    };

    // `sweeps`: the sweeps' names (a sweep may have no trial yet).
    explicit DependencyGraph(QList<DependencyNode> nodes, const QStringList &sweeps = {});

    const QList<DependencyNode> &nodes() const { return m_nodes; }
    int indexOf(const QString &name) const { return m_byName.value(name, -1); }
    // What `name` stands for, with its runs (node indices, board order) in `members`.
    Kind resolve(const QString &name, QList<int> *members = nullptr) const;
    // The runs `node` runs after: every name resolved, each run once, unknown names left out.
    QList<int> predecessors(int node) const;
    // The runs that run after `node` (directly).
    QList<int> dependents(int node) const;
    // Every cycle: for each set of runs that wait for one another, one
    // path through them that ends where it began ([a, b, a]).
    QList<QList<int>> cycles() const;
    // Whether `node` would wait for itself if it ran after `after`.
    bool wouldCycle(int node, const QStringList &after) const;

private:
    QList<DependencyNode> m_nodes;
    QHash<QString, int> m_byName;
    QHash<QString, QList<int>> m_groups; // repeat groups of more than one run
    QHash<QString, int> m_lastAggregate; // rounds -> its last aggregate
    QHash<QString, QList<int>> m_sweeps;
};

} // namespace trainyard
