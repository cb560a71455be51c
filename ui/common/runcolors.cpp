#include "common/runcolors.h"

namespace trainyard {

QColor RunColors::paletteColor(int index)
{
    static const QRgb palette[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                   0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
    constexpr int count = int(sizeof(palette) / sizeof(palette[0]));
    QColor c = QColor::fromRgb(palette[index % count]);
    // Later rounds shift darker so run 11 is not run 1's twin.
    const int round = index / count;
    return round == 0 ? c : c.darker(100 + 35 * round);
}

QColor RunColors::colorFor(const QString &runId)
{
    auto it = m_index.constFind(runId);
    if (it == m_index.constEnd()) {
        it = m_index.insert(runId, int(m_index.size()));
    }
    return paletteColor(it.value());
}

} // namespace trainyard
