// The runs table's queries (RunQuery) and how a column writes its numbers
// (NumberFormat) ("exp1 transe-nations" found nothing;
// 1e-04 stood next to 0.001).

#include "ui/runs/numberformat.h"
#include "ui/runs/runquery.h"
#include "ui/runs/runrow.h"

#include <QTest>

using namespace trainyard;

namespace {

RunRow row(const QString &experiment, const QString &name, const QString &model, double lr, double mrr,
           const QStringList &tags = {}, const QString &note = {})
{
    RunRow r;
    r.experiment = experiment;
    r.name = name;
    r.model = model;
    r.state = QStringLiteral("finished");
    r.mrr = mrr;
    r.loss = 0.5;
    r.started = QDateTime(QDate(2026, 3, 1), QTime(12, 0), Qt::UTC);
    r.notes.tags = tags;
    r.notes.note = note;
    r.params.insert(QStringLiteral("train.lr"), lr);
    r.params.insert(QStringLiteral("model.dim"), 100);
    r.params.insert(QStringLiteral("train.optimizer"), QStringLiteral("adam"));
    r.params.insert(QStringLiteral("train.max_steps"), QJsonValue::Null);
    r.params.insert(QStringLiteral("checkpoint.every_steps"), 1000);
    r.params.insert(QStringLiteral("report.every_steps"), 10);
    return r;
}

const QStringList keys{QStringLiteral("model.dim"),
                       QStringLiteral("train.lr"),
                       QStringLiteral("train.optimizer"),
                       QStringLiteral("train.max_steps"),
                       QStringLiteral("checkpoint.every_steps"),
                       QStringLiteral("report.every_steps")};

// The names of `rows` that `text` matches.
QStringList matching(const QString &text, const QList<RunRow> &rows)
{
    const RunQuery query = RunQuery::parse(text, keys);
    [&] { QVERIFY2(query.isValid(), qPrintable(text + QStringLiteral(": ") + query.error())); }();
    QStringList names;
    for (const RunRow &r : rows) {
        if (query.matches(r, keys)) {
            names << r.name;
        }
    }
    return names;
}

} // namespace

class TestRunQuery : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void termsMustAllHold()
    {
        const QList<RunRow> rows{
            row(QStringLiteral("exp1"), QStringLiteral("transe-nations"), QStringLiteral("transe"), 0.001, 0.4,
                {QStringLiteral("best")}),
            row(QStringLiteral("exp1"), QStringLiteral("transe-umls"), QStringLiteral("transe"), 0.01, 0.6),
            row(QStringLiteral("exp2"), QStringLiteral("transe-nations-2"), QStringLiteral("transe"), 0.0001, 0.3,
                {QStringLiteral("Best")}),
            row(QStringLiteral("exp1"), QStringLiteral("transh-nations"), QStringLiteral("transh"), 0.001, 0.5,
                {QStringLiteral("best")}),
        };
        // The query: one substring matched nothing.
        QCOMPARE(matching(QStringLiteral("exp1 transe-nations"), rows), QStringList{QStringLiteral("transe-nations")});
        QCOMPARE(matching(QStringLiteral("model=transe lr<0.01 tag:best"), rows),
                 (QStringList{QStringLiteral("transe-nations"), QStringLiteral("transe-nations-2")}));
        QCOMPARE(matching(QStringLiteral("model=transe lr<0.01 tag:best exp1"), rows),
                 QStringList{QStringLiteral("transe-nations")});
        // Words without regard to case, in the name or the experiment.
        QCOMPARE(matching(QStringLiteral("EXP2"), rows), QStringList{QStringLiteral("transe-nations-2")});
        QCOMPARE(matching(QStringLiteral("Model=TRANSH"), rows), QStringList{QStringLiteral("transh-nations")});
        QCOMPARE(matching(QString(), rows).size(), 4);
    }

    void numbersCompareAsNumbers()
    {
        const QList<RunRow> rows{
            row(QStringLiteral("e"), QStringLiteral("a"), QStringLiteral("transe"), 0.001, 0.4),
            row(QStringLiteral("e"), QStringLiteral("b"), QStringLiteral("transe"), 0.01, 0.6),
            row(QStringLiteral("e"), QStringLiteral("c"), QStringLiteral("transe"), 0.1, qQNaN()), // no MRR yet
        };
        QCOMPARE(matching(QStringLiteral("lr<0.01"), rows), QStringList{QStringLiteral("a")});
        QCOMPARE(matching(QStringLiteral("lr<=0.01"), rows), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
        QCOMPARE(matching(QStringLiteral("lr>0.01"), rows), QStringList{QStringLiteral("c")});
        QCOMPARE(matching(QStringLiteral("lr>=1e-2"), rows), (QStringList{QStringLiteral("b"), QStringLiteral("c")}));
        QCOMPARE(matching(QStringLiteral("train.lr=0.001"), rows), QStringList{QStringLiteral("a")});
        QCOMPARE(matching(QStringLiteral("lr!=0.001"), rows), (QStringList{QStringLiteral("b"), QStringLiteral("c")}));
        // A run without a value matches no comparison.
        QCOMPARE(matching(QStringLiteral("mrr>=0"), rows), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
        QCOMPARE(matching(QStringLiteral("MRR!=0.4"), rows), QStringList{QStringLiteral("b")});
        QCOMPARE(matching(QStringLiteral("max_steps=1"), rows), QStringList());
        // Text values, a key's last part, the start as a date.
        QCOMPARE(matching(QStringLiteral("optimizer=ADAM dim=100"), rows).size(), 3);
        QCOMPARE(matching(QStringLiteral("started>2026-02-28 started<2026-03-02"), rows).size(), 3);
        QCOMPARE(matching(QStringLiteral("started>2026-03-02"), rows), QStringList());
    }

    void notesAndQuotes()
    {
        const QList<RunRow> rows{
            row(QStringLiteral("e"), QStringLiteral("a"), QStringLiteral("transe"), 0.001, 0.4, {},
                QStringLiteral("kept for the paper")),
            row(QStringLiteral("my exp"), QStringLiteral("b"), QStringLiteral("transe"), 0.01, 0.6),
        };
        QCOMPARE(matching(QStringLiteral("note:\"for the\""), rows), QStringList{QStringLiteral("a")});
        QCOMPARE(matching(QStringLiteral("\"my exp\""), rows), QStringList{QStringLiteral("b")});
        QCOMPARE(matching(QStringLiteral("experiment=\"my exp\""), rows), QStringList{QStringLiteral("b")});
    }

    void aQueryThatCannotBeReadSaysWhy_data()
    {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QString>("error");
        QTest::newRow("unknown column") << QStringLiteral("speed>3") << QStringLiteral("no column is called \"speed\"");
        QTest::newRow("ambiguous key") << QStringLiteral("every_steps=10")
                                       << QStringLiteral("could be checkpoint.every_steps, report.every_steps");
        QTest::newRow("not a number") << QStringLiteral("lr<abc") << QStringLiteral("abc is not a number");
        QTest::newRow("text column") << QStringLiteral("model<3") << QStringLiteral("Model holds text");
        QTest::newRow("no column") << QStringLiteral("<0.1") << QStringLiteral("name a column before <");
        QTest::newRow("no value") << QStringLiteral("lr>=") << QStringLiteral("a value after >=");
        QTest::newRow("no tag") << QStringLiteral("tag:") << QStringLiteral("which tag?");
        QTest::newRow("open quote") << QStringLiteral("note:\"abc") << QStringLiteral("not closed");
        QTest::newRow("bad date") << QStringLiteral("started>yesterday") << QStringLiteral("a date such as");
    }

    void aQueryThatCannotBeReadSaysWhy()
    {
        QFETCH(QString, query);
        QFETCH(QString, error);
        const RunQuery q = RunQuery::parse(query, keys);
        QVERIFY(!q.isValid());
        QVERIFY2(q.error().contains(error), qPrintable(q.error()));
        // It hides nothing (the box says why instead).
        QVERIFY(q.matches(row(QStringLiteral("e"), QStringLiteral("a"), QStringLiteral("m"), 1, 1), keys));
    }

    void aColumnWritesItsNumbersAlike()
    {
        const auto texts = [](const QList<double> &values) {
            NumberFormat format;
            for (double v : values) {
                format.add(v);
            }
            QStringList out;
            for (double v : values) {
                out << format.text(v);
            }
            return out;
        };
        // The column: never 1e-04 next to 0.001.
        QCOMPARE(texts({0.01, 0.001, 0.0001}),
                 (QStringList{QStringLiteral("0.0100"), QStringLiteral("0.0010"), QStringLiteral("0.0001")}));
        QCOMPARE(texts({0.25, 2}), (QStringList{QStringLiteral("0.25"), QStringLiteral("2.00")}));
        QCOMPARE(texts({100, 32, 1000000}),
                 (QStringList{QStringLiteral("100"), QStringLiteral("32"), QStringLiteral("1000000")}));
        // Four significant digits each; too many decimals: one scientific form.
        QCOMPARE(texts({0.000123456, 0.0412}), (QStringList{QStringLiteral("1.235e-04"), QStringLiteral("4.120e-02")}));
        QCOMPARE(texts({0.693147, 0.0123}), (QStringList{QStringLiteral("0.6931"), QStringLiteral("0.0123")}));
        QCOMPARE(texts({1e12 + 0.5}), QStringList{QStringLiteral("1.000e+12")});
        NumberFormat none;
        none.add(qQNaN());
        QCOMPARE(none.text(qQNaN()), QString());
        QCOMPARE(none.style(), NumberFormat::Style::Integer);
        // Two shares of a column merge to the format of all their numbers.
        NumberFormat past;
        past.add(0.5);
        NumberFormat live;
        live.add(0.0000001);
        past.merge(live);
        QCOMPARE(past.style(), NumberFormat::Style::Scientific);
        QCOMPARE(past.text(0.5), QStringLiteral("5e-01"));
    }
};

QTEST_MAIN(TestRunQuery)
#include "tst_runquery.moc"
