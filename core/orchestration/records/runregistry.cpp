#include "orchestration/records/runregistry.h"

#include "orchestration/logcategories.h"

namespace trainyard {

RunId RunRegistry::add(RunInfo info)
{
    info.id = m_nextId++;
    const RunId id = info.id;
    m_byName.insert(info.name, id);
    m_runs.emplace(id, std::move(info));
    return id;
}

RunId RunRegistry::restore(RunInfo info)
{
    if (info.id <= 0 || info.id >= m_nextId || contains(info.id)) {
        return add(std::move(info));
    }
    const RunId id = info.id;
    m_byName.insert(info.name, id);
    m_runs.emplace(id, std::move(info));
    return id;
}

void RunRegistry::remove(RunId id)
{
    const auto it = m_runs.find(id);
    if (it == m_runs.end()) {
        return;
    }
    if (m_byName.value(it->second.name) == id) {
        m_byName.remove(it->second.name);
    }
    m_runs.erase(it);
}

void RunRegistry::clear()
{
    m_runs.clear();
    m_byName.clear();
}

const RunInfo *RunRegistry::find(RunId id) const
{
    const auto it = m_runs.find(id);
    return it == m_runs.end() ? nullptr : &it->second;
}

RunInfo RunRegistry::value(RunId id) const
{
    const RunInfo *r = find(id);
    return r ? *r : RunInfo{};
}

void RunRegistry::rename(RunId id, const QString &name)
{
    const auto it = m_runs.find(id);
    if (it == m_runs.end() || it->second.name == name) {
        return;
    }
    RunInfo &r = it->second;
    if (m_byName.value(r.name) == id) {
        m_byName.remove(r.name);
    }
    r.name = name;
    m_byName.insert(name, id);
}

QList<RunId> RunRegistry::ids() const
{
    QList<RunId> ids;
    ids.reserve(qsizetype(m_runs.size()));
    for (const auto &entry : m_runs) {
        ids << entry.first;
    }
    return ids;
}

int RunRegistry::count(RunState state) const
{
    int n = 0;
    for (const auto &entry : m_runs) {
        if (entry.second.state == state) {
            ++n;
        }
    }
    return n;
}

int RunRegistry::pendingCount() const
{
    int n = 0;
    for (const auto &entry : m_runs) {
        if (isPendingInQueue(entry.second)) {
            ++n;
        }
    }
    return n;
}

int RunRegistry::activeCount() const
{
    int n = 0;
    for (const auto &entry : m_runs) {
        if (isActive(entry.second.state)) {
            ++n;
        }
    }
    return n;
}

bool RunRegistry::setState(RunId id, RunState state, const QString &message)
{
    const auto it = m_runs.find(id);
    if (it == m_runs.end()) {
        return false;
    }
    RunInfo &r = it->second;
    if (!isAllowedTransition(r.state, state)) {
        qCWarning(lcRuns, "%s: %s -> %s refused (not in the transition table)", qUtf8Printable(r.name),
                  qUtf8Printable(runStateName(r.state)), qUtf8Printable(runStateName(state)));
        return false;
    }
    if (!message.isEmpty()) {
        r.message = message;
    }
    if (r.state == state && message.isEmpty()) {
        return true;
    }
    r.state = state;
    Q_EMIT changed(id);
    return true;
}

void RunRegistry::settle(RunInfo &r, RunId id, RunState before, const QString &name)
{
    if (r.id != id || r.name != name) {
        qCWarning(lcRuns, "%s: an update changed the id or the name; put back (rename() renames)",
                  qUtf8Printable(name));
        r.id = id;
        r.name = name;
    }
    if (!isAllowedTransition(before, r.state)) {
        qCWarning(lcRuns, "%s: %s -> %s refused (not in the transition table)", qUtf8Printable(name),
                  qUtf8Printable(runStateName(before)), qUtf8Printable(runStateName(r.state)));
        r.state = before;
    }
}

} // namespace trainyard
