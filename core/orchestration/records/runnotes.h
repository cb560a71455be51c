#pragma once

#include <QString>
#include <QStringList>

namespace trainyard {

// What the user says about one run, kept beside what the run produced: the
// run folder's notes.json (RunStore::readNotes / writeNotes), which a fresh
// start or a retry keeps, so the words outlive the metrics they describe.
struct RunNotes
{
    QStringList tags; // trimmed, non-empty, each once, in the user's order
    QString note;     // free text

    bool isEmpty() const { return tags.isEmpty() && note.trimmed().isEmpty(); }
    bool operator==(const RunNotes &other) const { return tags == other.tags && note == other.note; }
    bool operator!=(const RunNotes &other) const { return !(*this == other); }

    // "baseline, lr sweep ,, baseline" -> {"baseline", "lr sweep"}: commas
    // separate, so a tag may hold spaces.
    static QStringList parseTags(const QString &text);
    // The tags as the user types them: "baseline, lr sweep".
    QString tagsText() const;
};

} // namespace trainyard
