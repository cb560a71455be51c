#pragma once

#include "orchestration/slots/slotprobe.h"

#include <QList>
#include <QString>

#include <optional>

namespace trainyard {

// The slot probes measured on this machine, remembered per (device name,
// model type) in a small JSON file (default: <GenericDataLocation>/trainyard/
// slot-probes.json), so the board can show a measured recommendation
// without probing again. A missing file is empty; a corrupt one is treated
// as empty with a warning, never fatal.
class SlotAdvice
{
public:
    explicit SlotAdvice(const QString &path = defaultPath());
    static QString defaultPath();
    QString path() const { return m_path; }

    // Reads the file; returns false with `*warning` when it exists but cannot
    // be used (the store is then empty). Entries that are broken are skipped
    // with a warning naming them; the others are kept.
    bool load(QString *warning = nullptr);
    // Adds or replaces the entry for (deviceName, model) and writes the file
    // atomically (re-reading it first, so another process's entries stay).
    bool record(const SlotProbeResult &result, QString *error = nullptr);

    std::optional<SlotProbeResult> find(const QString &deviceName, const QString &model) const;
    QList<SlotProbeResult> entries() const { return m_entries; }

    // "recommended: 4 slots for transe (measured 2026-11-30: 2.3×)"
    static QString summary(const SlotProbeResult &result);

private:
    QString m_path;
    QList<SlotProbeResult> m_entries;
};

} // namespace trainyard
