#include "orchestration/experiment/dependencygraph.h"

#include <algorithm>

namespace trainyard {

DependencyGraph::DependencyGraph(QList<DependencyNode> nodes, const QStringList &sweeps)
    : m_nodes(std::move(nodes))
{
    for (const QString &sweep : sweeps) {
        m_sweeps.insert(sweep, {});
    }
    QHash<QString, int> lastRound;
    for (int i = 0; i < m_nodes.size(); ++i) {
        const DependencyNode &n = m_nodes.at(i);
        m_byName.insert(n.name, i);
        if (!n.group.isEmpty() && n.group != n.name) {
            m_groups[n.group] << i;
        }
        if (!n.rounds.isEmpty() && n.aggregate && n.round >= lastRound.value(n.rounds, 0)) {
            lastRound.insert(n.rounds, n.round);
            m_lastAggregate.insert(n.rounds, i);
        }
        if (!n.sweep.isEmpty()) {
            m_sweeps[n.sweep] << i;
        }
    }
}

DependencyGraph::Kind DependencyGraph::resolve(const QString &name, QList<int> *members) const
{
    QList<int> found;
    Kind kind = Kind::None;
    if (const int i = indexOf(name); i >= 0) {
        found = {i};
        kind = Kind::Run;
    } else if (const auto g = m_groups.constFind(name); g != m_groups.constEnd()) {
        found = *g;
        kind = Kind::Group;
    } else if (const auto r = m_lastAggregate.constFind(name); r != m_lastAggregate.constEnd()) {
        found = {*r};
        kind = Kind::Rounds;
    } else if (const auto s = m_sweeps.constFind(name); s != m_sweeps.constEnd()) {
        found = *s;
        kind = Kind::Sweep;
    }
    if (members) {
        *members = found;
    }
    return kind;
}

QList<int> DependencyGraph::predecessors(int node) const
{
    QList<int> out;
    for (const QString &name : m_nodes.at(node).after) {
        QList<int> members;
        resolve(name, &members);
        for (int m : std::as_const(members)) {
            if (!out.contains(m)) {
                out << m;
            }
        }
    }
    return out;
}

QList<int> DependencyGraph::dependents(int node) const
{
    QList<int> out;
    for (int i = 0; i < m_nodes.size(); ++i) {
        if (!m_nodes.at(i).after.isEmpty() && predecessors(i).contains(node)) {
            out << i;
        }
    }
    return out;
}

QList<QList<int>> DependencyGraph::cycles() const
{
    // Tarjan's strongly connected components, without recursion (a file may
    // chain thousands of runs).
    const int n = int(m_nodes.size());
    QList<QList<int>> edges(n);
    for (int i = 0; i < n; ++i) {
        if (!m_nodes.at(i).after.isEmpty()) {
            edges[i] = predecessors(i);
        }
    }
    QList<int> index(n, -1), low(n, 0), stack;
    QList<bool> onStack(n, false);
    int counter = 0;
    QList<QList<int>> out;
    struct Frame
    {
        int node;
        int edge;
    };
    for (int root = 0; root < n; ++root) {
        if (index[root] >= 0) {
            continue;
        }
        QList<Frame> frames{{root, 0}};
        index[root] = low[root] = counter++;
        stack << root;
        onStack[root] = true;
        while (!frames.isEmpty()) {
            Frame &f = frames.last();
            if (f.edge < edges[f.node].size()) {
                const int next = edges[f.node][f.edge++];
                if (index[next] < 0) {
                    index[next] = low[next] = counter++;
                    stack << next;
                    onStack[next] = true;
                    frames << Frame{next, 0};
                } else if (onStack[next]) {
                    low[f.node] = std::min(low[f.node], index[next]);
                }
                continue;
            }
            const int node = f.node;
            frames.removeLast();
            if (!frames.isEmpty()) {
                low[frames.last().node] = std::min(low[frames.last().node], low[node]);
            }
            if (low[node] != index[node]) {
                continue;
            }
            QList<int> component;
            int top = -1;
            do {
                top = stack.takeLast();
                onStack[top] = false;
                component << top;
            } while (top != node);
            if (component.size() == 1 && !edges[node].contains(node)) {
                continue;
            }
            // The shortest way around it, from its first run in board order.
            const int first = *std::min_element(component.begin(), component.end());
            QHash<int, int> parent;
            QList<int> queue{first};
            int last = -1;
            while (!queue.isEmpty() && last < 0) {
                const int at = queue.takeFirst();
                for (int next : std::as_const(edges[at])) {
                    if (next == first) {
                        last = at;
                        break;
                    }
                    if (component.contains(next) && !parent.contains(next)) {
                        parent.insert(next, at);
                        queue << next;
                    }
                }
            }
            QList<int> path{first};
            for (int at = last; at >= 0 && at != first; at = parent.value(at, -1)) {
                path.insert(1, at);
            }
            path << first;
            out << path;
        }
    }
    std::sort(out.begin(), out.end(), [](const QList<int> &a, const QList<int> &b) { return a.first() < b.first(); });
    return out;
}

bool DependencyGraph::wouldCycle(int node, const QStringList &after) const
{
    // Can `node` be reached from what it would run after?
    QList<int> todo;
    for (const QString &name : after) {
        QList<int> members;
        resolve(name, &members);
        todo << members;
    }
    QList<bool> seen(m_nodes.size(), false);
    while (!todo.isEmpty()) {
        const int at = todo.takeLast();
        if (at == node) {
            return true;
        }
        if (seen[at]) {
            continue;
        }
        seen[at] = true;
        todo << predecessors(at);
    }
    return false;
}

} // namespace trainyard
