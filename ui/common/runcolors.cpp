#include "ui/common/runcolors.h"

namespace trainyard {

namespace {

// A palette entry of `palette` for any index: later rounds shift darker so
// run 11 is not run 1's twin.
template <int Count>
QColor entry(const QRgb (&palette)[Count], int index)
{
    const QColor c = QColor::fromRgb(palette[index % Count]);
    const int round = index / Count;
    return round == 0 ? c : c.darker(100 + 35 * round);
}

} // namespace

QColor RunColors::paletteColor(int index)
{
    static const QRgb palette[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                   0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
    return entry(palette, index);
}

QColor RunColors::pastPaletteColor(int index)
{
    // Ink, violet, magenta, wine, navy, ochre, olive: darker than the board's
    // ten mid tones (HSL lightness below 0.37, theirs above 0.47) and at
    // least 27 CIE76 units from each of them.
    static const QRgb palette[] = {0x262626, 0x5b2d8c, 0xb0006e, 0x7b1e3c, 0x1f3b73, 0x8a6a00, 0x3f5f1a};
    return entry(palette, index);
}

QColor RunColors::colorFor(const QString &runId)
{
    bool isId = false;
    const int id = runId.toInt(&isId);
    if (isId && id >= 1) {
        return paletteColor(id - 1);
    }
    auto it = m_index.constFind(runId);
    if (it == m_index.constEnd()) {
        it = m_index.insert(runId, int(m_index.size()));
    }
    return paletteColor(it.value());
}

QColor RunColors::pastColorFor(const QString &key)
{
    auto it = m_pastIndex.constFind(key);
    if (it == m_pastIndex.constEnd()) {
        it = m_pastIndex.insert(key, int(m_pastIndex.size()));
    }
    return pastPaletteColor(it.value());
}

} // namespace trainyard
