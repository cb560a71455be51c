// qcustomplot.h uses `foreach` in its own templates; our code never does.
#undef QT_NO_FOREACH

#include "ui/plot/plotexporter.h"

#include "metrics/metricscsvwriter.h"
#include "metrics/metricstore.h"
#include "ui/common/uilogcategories.h"

#include <QFileDialog>
#include <QMessageBox>
#include <QPainter>

#include <qcustomplot.h>

#include <algorithm>

namespace trainyard {

PlotExporter::PlotExporter(QCustomPlot *loss, QCustomPlot *eval)
    : m_loss(loss)
    , m_eval(eval)
{
}

bool PlotExporter::writePng(const QString &file, int width, int height) const
{
    // One image with both plots, the way they look on screen (the user may have moved the split).
    const auto [lossSize, evalSize] = pngSizes(width, height);
    const QPixmap lossPixmap = m_loss->toPixmap(lossSize.width(), lossSize.height());
    const QPixmap evalPixmap = m_eval->toPixmap(evalSize.width(), evalSize.height());
    QPixmap both(std::max(lossPixmap.width(), evalPixmap.width()), lossPixmap.height() + evalPixmap.height());
    both.fill(Qt::white);
    QPainter painter(&both);
    painter.drawPixmap(0, 0, lossPixmap);
    painter.drawPixmap(0, lossPixmap.height(), evalPixmap);
    painter.end();
    const bool ok = both.save(file, "PNG");
    qCDebug(lcPlot) << "PNG" << file << both.size() << (ok ? "written" : "failed");
    return ok;
}

std::pair<QSize, QSize> PlotExporter::pngSizes(int width, int height) const
{
    const int lossShare = std::max(1, m_loss->height());
    const int evalShare = std::max(1, m_eval->height());
    const int lossHeight = height ? int(qint64(height) * lossShare / (lossShare + evalShare)) : m_loss->height();
    const int evalHeight = height ? height - lossHeight : m_eval->height();
    return {QSize(width ? width : m_loss->width(), lossHeight), QSize(width ? width : m_eval->width(), evalHeight)};
}

bool PlotExporter::writePdf(const QString &file) const
{
    const bool ok = m_loss->savePdf(file);
    qCDebug(lcPlot) << "PDF" << file << (ok ? "written" : "failed");
    return ok;
}

bool PlotExporter::writeCsv(const QString &file, const QList<std::pair<QString, CurveSource>> &runs, QString *error)
{
    return MetricsCsvWriter::writeFile(
        file,
        [&runs](MetricsCsvWriter &csv) {
            for (const auto &[label, source] : runs) {
                if (source.store) {
                    csv.writeRun(label, *source.store, source.run);
                }
            }
        },
        error);
}

void PlotExporter::exportAs(QWidget *parent, const QString &format,
                            const std::function<bool(const QString &file, QString *error)> &write)
{
    const QString file = askFileName(parent, format);
    if (file.isEmpty()) {
        return;
    }
    QString error;
    if (!write(file, &error)) {
        showFailure(parent, file, error);
        return;
    }
    qCInfo(lcPlot).noquote() << "exported" << format << "to" << file;
}

QString PlotExporter::askFileName(QWidget *parent, const QString &format)
{
    const QString filter = format == QLatin1String("png")   ? QObject::tr("PNG image (*.png)")
                           : format == QLatin1String("pdf") ? QObject::tr("PDF document (*.pdf)")
                                                            : QObject::tr("CSV data (*.csv)");
    QString file =
        QFileDialog::getSaveFileName(parent, QObject::tr("Export plot"), QStringLiteral("loss.") + format, filter);
    if (!file.isEmpty() && !file.endsWith(QLatin1Char('.') + format)) {
        file += QLatin1Char('.') + format;
    }
    return file;
}

void PlotExporter::showFailure(QWidget *parent, const QString &file, const QString &error)
{
    qCWarning(lcPlot).noquote() << "export failed:" << (error.isEmpty() ? file : error);
    QMessageBox::warning(parent, QObject::tr("Export plot"),
                         error.isEmpty() ? QObject::tr("Could not write %1.").arg(file) : error);
}

} // namespace trainyard
