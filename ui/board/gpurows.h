#pragma once

#include <QRectF>
#include <QString>
#include <QVariantList>

class QFont;
class QPainter;
class QPalette;

namespace trainyard {

class RunColors;

/// A pool lane's GPUs in its header, a row each (BoardModel::GpuRowsRole,
/// LaneStatus::gpuRows): the GPU, its utilization, temperature and memory,
/// a bar of its memory with each run's share in the run's colour (its
/// card's mark) and others' in grey, and the runs on it and who else holds it.
namespace gpurows {

/// The height of `count` rows in `small`'s lines.
double height(const QFont &small, int count);
/// Paints `rows` top down in `area`; `withNames`: each GPU's name too (the
/// pool's GPUs differ). `colors` may be nullptr (the runs' palette entries).
void paint(QPainter *painter, const QRectF &area, const QVariantList &rows, bool withNames, const QFont &small,
           const QPalette &palette, RunColors *colors);
/// One row as text: "GPU 2 · 37% · 52°C · 14.2/80.0 GiB · a, b · others: user bob, python, 14.2 GiB".
QString text(const QVariantMap &row);
/// Whether the rows' GPUs have more than one name.
bool namesDiffer(const QVariantList &rows);

} // namespace gpurows

} // namespace trainyard
