#pragma once

#include "ui/plot/metriccurve.h"

#include <QList>
#include <QSize>
#include <QString>

#include <functional>
#include <utility>

class QCustomPlot;
class QWidget;

namespace trainyard {

/// Writes the plots to files as they look on screen: both plots in one PNG
/// (the loss above the evaluation, 3:2), or the loss plot as a PDF; and the
/// "Export" menu's questions (where to, and what went wrong); and the data as
/// CSV, from the store through the writer `trainyard export` uses.
class PlotExporter
{
public:
    PlotExporter(QCustomPlot *loss, QCustomPlot *eval);

    /// 0 for a size: the plots' size on screen.
    bool writePng(const QString &file, int width = 0, int height = 0) const;
    /// The sizes the loss and the evaluation plot are drawn at in a PNG of
    /// `width` × `height` (0: as on screen), one above the other.
    std::pair<QSize, QSize> pngSizes(int width, int height) const;
    bool writePdf(const QString &file) const;
    /// Every metric of each (label, source) run as its store holds it
    /// (MetricsCsvWriter::writeRun: doubles, the epoch of each step).
    static bool writeCsv(const QString &file, const QList<std::pair<QString, CurveSource>> &runs, QString *error);

    /// The "Export" menu's path for a "png", "pdf" or "csv": asks where to,
    /// writes with `write` (false, with an error when known, on failure) and
    /// tells the user when it failed.
    static void exportAs(QWidget *parent, const QString &format,
                         const std::function<bool(const QString &file, QString *error)> &write);
    /// Asks where to write a "png", "pdf" or "csv" file (with that extension
    /// added when missing); empty when the user cancels.
    static QString askFileName(QWidget *parent, const QString &format);
    /// Tells the user that `file` could not be written (`error` when known).
    static void showFailure(QWidget *parent, const QString &file, const QString &error);

private:
    QCustomPlot *m_loss;
    QCustomPlot *m_eval;
};

} // namespace trainyard
