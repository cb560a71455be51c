// trainyard-plot: draws run folders' metrics.jsonl with the app's own plot
// code (PlotWidget, offscreen) into a PNG: the loss on top, one evaluation
// metric below, against wall-clock time. The benchmarks' time-to-quality
// figure comes from here.
//
//   trainyard-plot [--metric mrr] [--x wall|step|epoch] --output FILE.png RUN_DIR...

#include "metrics/metricslogreader.h"
#include "metrics/metricstore.h"
#include "protocol/metricrecord.h"
#include "ui/common/runcolors.h"
#include "ui/plot/plotwidget.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>

#include <cstdio>

using namespace trainyard;

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Draws runs' metrics.jsonl into a PNG with Trainyard's plots."));
    parser.addHelpOption();
    const QCommandLineOption metric(QStringLiteral("metric"), QStringLiteral("Evaluation metric to draw."),
                                    QStringLiteral("NAME"), QStringLiteral("mrr"));
    const QCommandLineOption xAxis(QStringLiteral("x"), QStringLiteral("x axis: wall, step or epoch."),
                                   QStringLiteral("AXIS"), QStringLiteral("wall"));
    const QCommandLineOption output(QStringLiteral("output"), QStringLiteral("The PNG to write."),
                                    QStringLiteral("FILE"));
    parser.addOptions({metric, xAxis, output});
    parser.addPositionalArgument(QStringLiteral("runs"), QStringLiteral("Run folders (each with metrics.jsonl)."),
                                 QStringLiteral("RUN_DIR..."));
    parser.process(app);
    if (!parser.isSet(output) || parser.positionalArguments().isEmpty()) {
        std::fprintf(stderr, "trainyard-plot: give --output FILE.png and at least one run folder\n");
        return 2;
    }
    const QString axis = parser.value(xAxis);
    if (axis != QLatin1String("wall") && axis != QLatin1String("step") && axis != QLatin1String("epoch")) {
        std::fprintf(stderr, "trainyard-plot: --x: expected wall, step or epoch, got %s\n", qPrintable(axis));
        return 2;
    }

    // The runs are read into a store as the app keeps them (the same rules:
    // a re-reported step replaces the older point); the plot draws from it.
    MetricStore metrics;
    RunColors colors;
    PlotWidget plot(&colors);
    plot.resize(1000, 700);
    QStringList ids;
    for (const QString &dir : parser.positionalArguments()) {
        const QFileInfo info(dir);
        if (!QFileInfo::exists(info.filePath() + QStringLiteral("/metrics.jsonl"))) {
            std::fprintf(stderr, "trainyard-plot: %s: no metrics.jsonl\n", qPrintable(dir));
            return 2;
        }
        const QString id = info.fileName();
        const RunId run = RunId(ids.size() + 1);
        MetricsLogReader().read(info.absoluteFilePath() + QStringLiteral("/metrics.jsonl"), 0,
                                [&](const MetricRecord &r) { metrics.add(run, r); });
        plot.addRun(id, id, id, CurveSource{&metrics, run});
        ids << id;
    }
    plot.setXAxis(axis == QLatin1String("wall")   ? XAxis::Wall
                  : axis == QLatin1String("step") ? XAxis::Step
                                                  : XAxis::Epoch);
    plot.setSelectedRuns(ids);
    plot.setEvalMetric(parser.value(metric));
    if (!plot.exportPng(parser.value(output), 1000, 700)) {
        std::fprintf(stderr, "trainyard-plot: cannot write %s\n", qPrintable(parser.value(output)));
        return 1;
    }
    return 0;
}
