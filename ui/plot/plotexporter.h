#pragma once

#include <QString>

class QCustomPlot;
class QWidget;

namespace trainyard {

/// Writes the plots to files as they look on screen: both plots in one PNG
/// (the loss above the evaluation, 3:2), or the loss plot as a PDF; and the
/// "Export" menu's questions (where to, and what went wrong). The data as CSV
/// comes from PlotWidget::exportCsv.
class PlotExporter
{
public:
    PlotExporter(QCustomPlot *loss, QCustomPlot *eval);

    /// 0 for a size: the plots' size on screen.
    bool writePng(const QString &file, int width = 0, int height = 0) const;
    bool writePdf(const QString &file) const;

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
