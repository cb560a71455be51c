// MetricsCsvWriter, the one CSV writer: its columns, quoting, numbers, the
// epoch of every point, and writing a MetricStore's runs.

#include "metrics/metricscsvwriter.h"
#include "metrics/metricstore.h"

#include <QBuffer>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace trainyard;

namespace {

QStringList linesOf(const QByteArray &csv)
{
    QStringList lines = QString::fromUtf8(csv).split(QLatin1Char('\n'));
    if (!lines.isEmpty() && lines.last().isEmpty()) {
        lines.removeLast();
    }
    return lines;
}

} // namespace

class TestMetricsCsvWriter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void columnsQuotingAndNumbers()
    {
        QBuffer buffer;
        QVERIFY(buffer.open(QIODevice::WriteOnly));
        {
            MetricsCsvWriter csv(&buffer);
            csv.writeValue(QStringLiteral("plain"), 3, 1, 0.5, QStringLiteral("loss"), 0.1);
            csv.writeValue(QStringLiteral("a,b"), 4, MetricsCsvWriter::kNoEpoch, 1e-7, QStringLiteral("valid/mrr"),
                           2.5e20);
            csv.writeValue(QStringLiteral("say \"hi\""), 5, 2, 1, QStringLiteral("odd,metric"), -3);
            csv.writeValue(QStringLiteral("two\nlines"), 6, 2, 1, QStringLiteral("loss"), 1.0 / 3.0);
            csv.writeFloatValue(QStringLiteral("f"), 7, 1.5f, 0.1f, QStringLiteral("loss"), 0.3f);
            QVERIFY(csv.ok());
            QCOMPARE(csv.lineCount(), qint64(5));
        }
        const QByteArray text = buffer.data();
        QVERIFY(text.startsWith("run,step,epoch,wall,metric,value\n"));
        const QStringList lines = linesOf(text);
        QCOMPARE(lines.size(), 7); // the quoted line break splits one record in two here
        QCOMPARE(lines.at(1), QStringLiteral("plain,3,1,0.5,loss,0.1"));
        QCOMPARE(lines.at(2), QStringLiteral("\"a,b\",4,,1e-07,valid/mrr,2.5e+20"));
        QCOMPARE(lines.at(3), QStringLiteral("\"say \"\"hi\"\"\",5,2,1,\"odd,metric\",-3"));
        QCOMPARE(lines.at(4), QStringLiteral("\"two"));
        QCOMPARE(lines.at(5), QStringLiteral("lines\",6,2,1,loss,0.3333333333333333"));
        // Single precision as such: 0.1f is "0.1", not 0.10000000149011612.
        QCOMPARE(lines.at(6), QStringLiteral("f,7,1.5,0.1,loss,0.3"));
        QCOMPARE(MetricsCsvWriter::field(QStringLiteral("plain")), QByteArray("plain"));
        QCOMPARE(MetricsCsvWriter::field(QStringLiteral("x\ry")), QByteArray("\"x\ry\""));
    }

    void epochOfAStep()
    {
        MetricSeries epochs; // metric lines at steps 10, 20 (epoch 1), 30 (epoch 2), 40 (epoch 2)
        epochs.add(10, 1.0, 1);
        epochs.add(20, 2.0, 1);
        epochs.add(30, 3.0, 2);
        epochs.add(40, 4.0, 2);
        QCOMPARE(MetricsCsvWriter::epochOf(&epochs, 10), 1.0); // the metric line's own
        QCOMPARE(MetricsCsvWriter::epochOf(&epochs, 15), 1.0); // between two lines of epoch 1
        QCOMPARE(MetricsCsvWriter::epochOf(&epochs, 35), 2.0);
        QVERIFY(std::isnan(MetricsCsvWriter::epochOf(&epochs, 25))); // epoch 1 or 2: unknown
        QVERIFY(std::isnan(MetricsCsvWriter::epochOf(&epochs, 5)));  // before the first line
        QVERIFY(std::isnan(MetricsCsvWriter::epochOf(&epochs, 45))); // after the last
        QVERIFY(std::isnan(MetricsCsvWriter::epochOf(nullptr, 10)));
        const MetricSeries none;
        QVERIFY(std::isnan(MetricsCsvWriter::epochOf(&none, 10)));
    }

    void writesAStoresRun()
    {
        MetricStore store;
        const RunId run = 3;
        for (int step = 1; step <= 4; ++step) {
            store.add(run, QStringLiteral("epoch"), step, 0.5 * step, step <= 2 ? 1 : 2);
            store.add(run, QStringLiteral("loss"), step, 0.5 * step, 1.0 / step);
        }
        store.add(run, QStringLiteral("valid/mrr"), 2, 1.25, 0.5);
        store.add(run, QStringLiteral("valid/epoch"), 2, 1.25, 1); // epochs completed: no row of its own
        store.add(run, QStringLiteral("valid/mrr"), 5, 2.5, 0.75); // after the last metric line: epoch unknown
        store.add(run, QStringLiteral("test/mrr"), 5, 2.75, 0.7);  // an eval line with its own epoch: kept
        store.add(run, QStringLiteral("test/epoch"), 5, 2.75, 3);
        store.add(run + 1, QStringLiteral("loss"), 1, 0.5, 9); // another run: not written
        QBuffer buffer;
        QVERIFY(buffer.open(QIODevice::WriteOnly));
        MetricsCsvWriter csv(&buffer);
        csv.writeRun(QStringLiteral("r"), store, run);
        QCOMPARE(linesOf(buffer.data()),
                 (QStringList{QStringLiteral("run,step,epoch,wall,metric,value"), QStringLiteral("r,1,1,0.5,loss,1"),
                              QStringLiteral("r,2,1,1,loss,0.5"), QStringLiteral("r,3,2,1.5,loss,0.3333333333333333"),
                              QStringLiteral("r,4,2,2,loss,0.25"), QStringLiteral("r,2,1,1.25,valid/mrr,0.5"),
                              QStringLiteral("r,5,,2.5,valid/mrr,0.75"), QStringLiteral("r,5,3,2.75,test/mrr,0.7")}));
    }

    void writeFileIsAllOrNothing()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("out.csv"));
        QString error;
        QVERIFY2(MetricsCsvWriter::writeFile(
                     path,
                     [](MetricsCsvWriter &csv) {
                         csv.writeValue(QStringLiteral("r"), 1, 1, 0.1, QStringLiteral("loss"), 0.9);
                     },
                     &error),
                 qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("run,step,epoch,wall,metric,value\nr,1,1,0.1,loss,0.9\n"));
        QVERIFY(!MetricsCsvWriter::writeFile(
            QStringLiteral("/nonexistent-dir/x.csv"), [](MetricsCsvWriter &) {}, &error));
        QVERIFY2(error.startsWith(QLatin1String("/nonexistent-dir/x.csv: cannot write")), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestMetricsCsvWriter)
#include "tst_metricscsvwriter.moc"
