// Two runs side by side ("no way to compare two runs' specs"):
// their results and resolved specs a key a row with what differs marked,
// and both runs' curves read from the store they are kept in.

#undef QT_NO_FOREACH

#include "metrics/metricstore.h"
#include "ui/common/runcolors.h"
#include "ui/plot/plotwidget.h"
#include "ui/runs/comparedialog.h"

#include <QCheckBox>
#include <QLabel>
#include <QTest>
#include <QTreeWidget>

using namespace trainyard;

namespace {

CompareDialog::Side side(const QString &name, double lr, double loss, MetricStore *store, RunId id)
{
    CompareDialog::Side s;
    s.row.name = name;
    s.row.experiment = QStringLiteral("exp1");
    s.row.model = QStringLiteral("transe");
    s.row.state = QStringLiteral("finished");
    s.row.loss = loss;
    s.row.id = id;
    s.row.params.insert(QStringLiteral("model.dim"), 100);
    s.row.params.insert(QStringLiteral("train.lr"), lr);
    s.plotKey = QString::number(id);
    s.curves = CurveSource{store, id};
    for (int step = 1; step <= 50; ++step) {
        store->add(id, QStringLiteral("loss"), step, step * 0.1, loss + 1.0 / step);
    }
    return s;
}

} // namespace

class TestCompareDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void specsSideBySideWithTheDifferencesMarked()
    {
        MetricStore store;
        RunColors colors;
        CompareDialog dialog(side(QStringLiteral("fast"), 0.01, 0.25, &store, 1),
                             side(QStringLiteral("slow"), 0.001, 0.5, &store, 2), &colors);
        QCOMPARE(dialog.differingKeys(), (QStringList{QStringLiteral("Loss"), QStringLiteral("train.lr")}));
        QCOMPARE(dialog.valueText(QStringLiteral("train.lr"), 0), QStringLiteral("0.01"));
        QCOMPARE(dialog.valueText(QStringLiteral("train.lr"), 1), QStringLiteral("0.001"));
        QCOMPARE(dialog.valueText(QStringLiteral("model.dim"), 1), QStringLiteral("100"));
        QCOMPARE(dialog.valueText(QStringLiteral("Model"), 0), QStringLiteral("transe"));
        QCOMPARE(dialog.findChild<QLabel *>(QStringLiteral("differenceCount"))->text(),
                 QStringLiteral("2 keys differ (marked)."));
        QCOMPARE(dialog.windowTitle(), QStringLiteral("Compare fast and slow"));

        // Marked: bold; only they remain with "Only what differs".
        QTreeWidget *table = dialog.table();
        const auto rowOf = [table](const QString &key) -> QTreeWidgetItem * {
            const QList<QTreeWidgetItem *> found = table->findItems(key, Qt::MatchExactly | Qt::MatchRecursive);
            return found.isEmpty() ? nullptr : found.first();
        };
        QVERIFY(rowOf(QStringLiteral("train.lr"))->font(0).bold());
        QVERIFY(!rowOf(QStringLiteral("model.dim"))->font(0).bold());
        dialog.findChild<QCheckBox *>(QStringLiteral("onlyDifferences"))->setChecked(true);
        QVERIFY(rowOf(QStringLiteral("model.dim"))->isHidden());
        QVERIFY(!rowOf(QStringLiteral("train.lr"))->isHidden());
        dialog.setOnlyDifferences(false);
        QVERIFY(!rowOf(QStringLiteral("model.dim"))->isHidden());

        // Both curves, read where they are: every point of the store, no copy.
        dialog.plot()->refreshNow();
        for (const QString &key : {QStringLiteral("1"), QStringLiteral("2")}) {
            QVERIFY(dialog.plot()->curve(key));
            QCOMPARE(dialog.plot()->curve(key)->size(), qsizetype(50));
        }
        QCOMPARE(dialog.plot()->selectedRuns(), (QStringList{QStringLiteral("1"), QStringLiteral("2")}));
    }
};

QTEST_MAIN(TestCompareDialog)
#include "tst_comparedialog.moc"
