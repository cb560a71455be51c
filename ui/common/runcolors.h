#pragma once

#include <QColor>
#include <QHash>
#include <QString>

#include <array>

namespace trainyard {

/// Gives every run a colour that stays the same for the whole life of the
/// app, whatever order runs are shown or selected in, and differs from its
/// neighbours'. A run of the open experiment (its key a RunId, as the board
/// and the plots name it) takes the palette entry of its id: run 1 the
/// first, run 2 the second, ... (Tableau 10, then 30 more colours each far
/// from all before it, then darker rounds), so
/// repeats queued together get neighbouring, distinct colours; any other
/// key (a tool's) takes the next entry in the order it is first seen. Past
/// runs pinned beside them have a palette of their own, dark inks far from
/// the board's first ten colours, so a past curve never passes for a live one.
class RunColors
{
public:
    QColor colorFor(const QString &runId);
    QColor pastColorFor(const QString &key);
    static QColor paletteColor(int index);
    static QColor pastPaletteColor(int index);
    /// CIE L*a*b* of an sRGB colour, and the CIE76 distance of two (about 2
    /// is a difference one just sees; the first 40 run colours keep 19 apart).
    static std::array<double, 3> toLab(const QColor &color);
    static double distance(const std::array<double, 3> &a, const std::array<double, 3> &b);
    static double distance(const QColor &a, const QColor &b);

private:
    QHash<QString, int> m_index;     ///< Keys that are no run id
    QHash<QString, int> m_pastIndex; ///< Past runs, in the order first seen
};

} // namespace trainyard
