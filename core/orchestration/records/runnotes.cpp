#include "orchestration/records/runnotes.h"

namespace trainyard {

QStringList RunNotes::parseTags(const QString &text)
{
    QStringList tags;
    for (const QString &part : text.split(QLatin1Char(','))) {
        const QString tag = part.simplified();
        if (!tag.isEmpty() && !tags.contains(tag)) {
            tags.append(tag);
        }
    }
    return tags;
}

QString RunNotes::tagsText() const
{
    return tags.join(QStringLiteral(", "));
}

} // namespace trainyard
