#pragma once

#include <QColor>
#include <QHash>
#include <QString>

namespace trainyard {

/// Gives every run a colour that stays the same for the whole session and
/// differs from its neighbours': the n-th run seen gets the n-th colour of a
/// palette chosen to be told apart (Tableau 10, then a darker round).
class RunColors
{
public:
    QColor colorFor(const QString &runId);
    static QColor paletteColor(int index);

private:
    QHash<QString, int> m_index;
};

} // namespace trainyard
