#include "ui/common/runcolors.h"

#include <QList>

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainyard {

namespace {

// A palette entry of `palette` for any index: later rounds shift darker.
template <int Count>
QColor entry(const QRgb (&palette)[Count], int index)
{
    const QColor c = QColor::fromRgb(palette[index % Count]);
    const int round = index / Count;
    return round == 0 ? c : c.darker(100 + 35 * round);
}

const QRgb kTableau10[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                           0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
const QRgb kPast[] = {0x262626, 0x5b2d8c, 0xb0006e, 0x7b1e3c, 0x1f3b73, 0x8a6a00, 0x3f5f1a};
// Runs 1 to 40 get colours of their own; later ones repeat them, darker.
constexpr int kOwnColours = 40;

// Tableau 10, then colours picked one by one from a grid of hues and
// tones, each the farthest (CIE76) from all taken so far and from the past
// runs' inks: a darker shade of run 1 for run 11 was hard to tell apart.
const QList<QColor> &runPalette()
{
    static const QList<QColor> palette = [] {
        QList<QColor> taken;
        QList<std::array<double, 3>> labs;
        for (QRgb rgb : kTableau10) {
            taken << QColor::fromRgb(rgb);
            labs << RunColors::toLab(taken.last());
        }
        QList<std::array<double, 3>> avoid = labs;
        for (QRgb rgb : kPast) {
            avoid << RunColors::toLab(QColor::fromRgb(rgb));
        }
        QList<QColor> candidates;
        for (int hue = 0; hue < 360; hue += 6) {
            for (double lightness : {0.4, 0.5, 0.6, 0.7}) {
                for (double saturation : {0.5, 0.7}) {
                    candidates << QColor::fromHslF(hue / 360.0, saturation, lightness).toRgb();
                }
            }
        }
        while (taken.size() < kOwnColours) {
            double best = -1;
            QColor pick;
            for (const QColor &c : std::as_const(candidates)) {
                const std::array<double, 3> lab = RunColors::toLab(c);
                double nearest = std::numeric_limits<double>::max();
                for (const auto &other : std::as_const(avoid)) {
                    nearest = std::min(nearest, RunColors::distance(lab, other));
                }
                if (nearest > best) {
                    best = nearest;
                    pick = c;
                }
            }
            taken << pick;
            avoid << RunColors::toLab(pick);
        }
        return taken;
    }();
    return palette;
}

} // namespace

std::array<double, 3> RunColors::toLab(const QColor &color)
{
    const auto linear = [](double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    const QColor rgb = color.toRgb();
    const double r = linear(rgb.redF()), g = linear(rgb.greenF()), b = linear(rgb.blueF());
    // sRGB to XYZ, relative to the D65 white.
    const double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    const double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    const auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

double RunColors::distance(const std::array<double, 3> &a, const std::array<double, 3> &b)
{
    return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

double RunColors::distance(const QColor &a, const QColor &b)
{
    return distance(toLab(a), toLab(b));
}

QColor RunColors::paletteColor(int index)
{
    const QList<QColor> &palette = runPalette();
    const QColor c = palette.at(index % palette.size());
    const int round = index / int(palette.size());
    return round == 0 ? c : c.darker(100 + 35 * round);
}

QColor RunColors::pastPaletteColor(int index)
{
    // Ink, violet, magenta, wine, navy, ochre, olive: darker than the board's
    // ten mid tones (HSL lightness below 0.37, theirs above 0.47) and at
    // least 27 CIE76 units from each of them.
    return entry(kPast, index);
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
