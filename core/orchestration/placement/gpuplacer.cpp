#include "orchestration/placement/gpuplacer.h"

#include <QRegularExpression>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <functional>

namespace trainyard {

GpuPlacer::GpuPlacer(const QList<GpuRoom> &rooms, const QString &devicePrefix)
    : m_rooms(rooms)
    , m_prefix(devicePrefix)
{
}

const GpuRoom *GpuPlacer::room(int index) const
{
    for (const GpuRoom &r : m_rooms) {
        if (r.index == index) {
            return &r;
        }
    }
    return nullptr;
}

QString GpuPlacer::name(int index) const
{
    return QStringLiteral("%1cuda:%2").arg(m_prefix).arg(index);
}

qint64 GpuPlacer::freeFor(const GpuRoom &room, BusyPolicy busy) const
{
    if (room.freeBytes < 0) {
        return -1;
    }
    // Ignore: others' memory is not looked at, as if it were free.
    const qint64 free = busy == BusyPolicy::Ignore ? room.freeBytes + room.othersBytes : room.freeBytes;
    return std::max<qint64>(0, free - room.promisedBytes);
}

bool GpuPlacer::fits(const GpuRoom &room, const GpuRequest &request) const
{
    if (!request.allowed.contains(room.index) || keptFromOthers(room.index, request)) {
        return false;
    }
    if (room.runs >= std::max(1, request.slotsPerGpu)) {
        return false;
    }
    if (request.busy == BusyPolicy::Wait && !room.busyWith.isEmpty()) {
        return false;
    }
    const qint64 free = freeFor(room, request.busy);
    return request.memoryBytes < 0 || free < 0 || free >= request.memoryBytes;
}

// The GPUs of the lane, best first: the fewest runs, then the most free
// memory, then the lowest index. `roomOnly`: those the request fits.
QList<GpuRoom *> GpuPlacer::ranked(const GpuRequest &request, bool roomOnly)
{
    QList<GpuRoom *> list;
    for (GpuRoom &r : m_rooms) {
        if (!request.allowed.contains(r.index)) {
            continue;
        }
        if (roomOnly
                ? fits(r, request)
                : !keptFromOthers(r.index, request) && !(request.busy == BusyPolicy::Wait && !r.busyWith.isEmpty())) {
            list << &r;
        }
    }
    std::stable_sort(list.begin(), list.end(), [this, &request](const GpuRoom *a, const GpuRoom *b) {
        if (a->runs != b->runs) {
            return a->runs < b->runs;
        }
        const qint64 fa = freeFor(*a, request.busy);
        const qint64 fb = freeFor(*b, request.busy);
        if (fa != fb) {
            return fa > fb;
        }
        return a->index < b->index;
    });
    return list;
}

QString GpuPlacer::impossible(const GpuRequest &request) const
{
    QList<qint64> totals;
    for (int index : request.allowed) {
        if (const GpuRoom *r = room(index)) {
            totals << r->totalBytes;
        }
    }
    if (request.gpus > totals.size()) {
        return QStringLiteral("needs %1 GPU%2; the lane has %3")
            .arg(request.gpus)
            .arg(request.gpus == 1 ? QString() : QStringLiteral("s"))
            .arg(totals.size());
    }
    // Each of its N GPUs must hold its need: the N-th largest must.
    std::sort(totals.begin(), totals.end(), std::greater<qint64>());
    const qint64 nth = totals.at(std::max(1, request.gpus) - 1);
    if (request.memoryBytes <= 0 || nth <= 0 || request.memoryBytes <= nth) {
        return {};
    }
    if (request.gpus > 1) {
        const auto enough =
            std::count_if(totals.begin(), totals.end(), [&](qint64 t) { return t >= request.memoryBytes; });
        return QStringLiteral("needs %1 on each of %2 GPUs; %3 of the lane's GPUs %4 that much")
            .arg(formatMemory(request.memoryBytes))
            .arg(request.gpus)
            .arg(enough)
            .arg(enough == 1 ? QStringLiteral("has") : QStringLiteral("have"));
    }
    return QStringLiteral("needs %1 on a GPU; the lane's largest has %2")
        .arg(formatMemory(request.memoryBytes), formatMemory(nth));
}

// Why a request that could fit waits now: the first reason that holds of
// busy GPUs, memory, GPUs kept for an earlier run, full slots.
QString GpuPlacer::waitReason(const GpuRequest &request) const
{
    const int slots = std::max(1, request.slotsPerGpu);
    QStringList busy;
    const GpuRoom *roomiest = nullptr;
    bool memoryLimits = false;
    QStringList kept;
    for (int index : request.allowed) {
        const GpuRoom *r = room(index);
        if (!r) {
            continue;
        }
        if (keptFromOthers(index, request)) {
            kept << QStringLiteral("%1 kept for %2").arg(name(index), m_reservedFor.value(index));
        } else if (request.busy == BusyPolicy::Wait && !r->busyWith.isEmpty()) {
            busy << QStringLiteral("%1 busy — %2").arg(name(index), r->busyWith);
        } else if (r->runs < slots && request.memoryBytes >= 0 && freeFor(*r, request.busy) >= 0) {
            memoryLimits = true;
            if (!roomiest || freeFor(*r, request.busy) > freeFor(*roomiest, request.busy)) {
                roomiest = r;
            }
        }
    }
    if (!busy.isEmpty() && busy.size() + kept.size() == request.allowed.size()) {
        return busy.join(QStringLiteral("; "));
    }
    if (memoryLimits && roomiest) {
        return QStringLiteral("needs %1%2; most free: %3 with %4")
            .arg(formatMemory(request.memoryBytes),
                 request.gpus > 1 ? QStringLiteral(" on each of %1 GPUs").arg(request.gpus) : QString(),
                 name(roomiest->index), formatMemory(freeFor(*roomiest, request.busy)));
    }
    if (!kept.isEmpty()) {
        return kept.join(QStringLiteral("; "));
    }
    if (!busy.isEmpty()) {
        return busy.join(QStringLiteral("; "));
    }
    if (request.gpus > 1) {
        return QStringLiteral("needs %1 GPUs with a free slot").arg(request.gpus);
    }
    return QStringLiteral("every GPU of the lane has its %1 run%2")
        .arg(slots)
        .arg(slots == 1 ? QString() : QStringLiteral("s"));
}

bool GpuPlacer::keptFromOthers(int index, const GpuRequest &request) const
{
    return m_reserved.contains(index) && m_reservedFor.value(index) != request.label;
}

void GpuPlacer::hold(const GpuRequest &request)
{
    if (impossible(request).isEmpty()) {
        reserve(request);
    }
}

void GpuPlacer::reserve(const GpuRequest &request)
{
    if (m_queuesReserving.contains(request.queue)) {
        return; // its queue's first waiting run holds the reservation
    }
    m_queuesReserving << request.queue;
    const QList<GpuRoom *> candidates = ranked(request, false);
    for (int i = 0; i < request.gpus && i < candidates.size(); ++i) {
        m_reserved << candidates.at(i)->index;
        m_reservedFor.insert(candidates.at(i)->index,
                             request.label.isEmpty() ? QStringLiteral("an earlier run") : request.label);
    }
}

GpuPlacement GpuPlacer::place(const GpuRequest &request)
{
    GpuPlacement placement;
    if (const QString why = impossible(request); !why.isEmpty()) {
        placement.waitReason = why;
        placement.impossible = true;
        return placement;
    }
    const QList<GpuRoom *> candidates = ranked(request, true);
    if (candidates.size() < request.gpus) {
        placement.waitReason = waitReason(request);
        reserve(request);
        return placement;
    }
    for (int i = 0; i < request.gpus; ++i) {
        GpuRoom *r = candidates.at(i);
        ++r->runs;
        if (request.memoryBytes > 0) {
            r->promisedBytes += request.memoryBytes;
        }
        placement.gpus << r->index;
    }
    std::sort(placement.gpus.begin(), placement.gpus.end());
    // What it held and did not take is free for the others again.
    for (auto it = m_reservedFor.begin(); it != m_reservedFor.end();) {
        if (it.value() == request.label && !request.label.isEmpty()) {
            m_reserved.removeAll(it.key());
            m_queuesReserving.removeAll(request.queue);
            it = m_reservedFor.erase(it);
        } else {
            ++it;
        }
    }
    return placement;
}

qint64 parseMemory(const QString &text)
{
    static const QRegularExpression re(QRegularExpression::anchoredPattern(
        QStringLiteral(R"(\s*([0-9]+(?:\.[0-9]+)?)\s*(B|KiB|MiB|GiB|TiB|KB|MB|GB|TB)?\s*)")));
    const QRegularExpressionMatch m = re.match(text);
    if (!m.hasMatch()) {
        return -1;
    }
    const QString unit = m.captured(2);
    double factor = 1;
    if (unit.endsWith(QLatin1String("iB"))) {
        factor = std::pow(1024.0, QStringLiteral("KMGT").indexOf(unit.at(0)) + 1);
    } else if (unit.size() == 2) {
        factor = std::pow(1000.0, QStringLiteral("KMGT").indexOf(unit.at(0)) + 1);
    }
    const double bytes = m.captured(1).toDouble() * factor;
    if (!std::isfinite(bytes) || bytes > 9.0e18) {
        return -1;
    }
    return static_cast<qint64>(std::llround(bytes));
}

QString formatMemory(qint64 bytes)
{
    const double gib = double(bytes) / (1024.0 * 1024 * 1024);
    if (gib >= 1.0) {
        return QStringLiteral("%1 GiB").arg(gib, 0, 'f', 1);
    }
    return QStringLiteral("%1 MiB").arg(double(bytes) / (1024.0 * 1024), 0, 'f', 0);
}

} // namespace trainyard
