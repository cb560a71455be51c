// The runs table's hyperparameter columns (ParamColumns): the keys of the
// runs' specs in one order without the fixed columns' ones, which of them
// differ, and what a cell shows and sorts by.

#include "orchestration/catalogue/modelcatalogue.h"
#include "ui/runs/paramcolumns.h"

#include <QTest>

using namespace trainyard;

namespace {

RunRow row(const QJsonObject &model, const QJsonObject &train = {})
{
    RunRow r;
    QJsonObject spec{{QStringLiteral("name"), QStringLiteral("r")}, {QStringLiteral("model"), model}};
    if (!train.isEmpty()) {
        spec.insert(QStringLiteral("train"), train);
    }
    r.setSpec(spec, ModelCatalogue()); // no catalogue: the spec as it is
    return r;
}

QJsonObject transe(int dim)
{
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}, {QStringLiteral("dim"), dim}};
}

} // namespace

class TestParamColumns : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theFixedColumnsKeysAreNoParams()
    {
        QVERIFY(!ParamColumns::isParam(QStringLiteral("name")));
        QVERIFY(!ParamColumns::isParam(QStringLiteral("model.type")));
        QVERIFY(ParamColumns::isParam(QStringLiteral("model.dim")));
        const RunRow r = row(transe(8));
        QCOMPARE(r.params.keys(), QList<QString>{QStringLiteral("model.dim")});
    }

    void keysOfAllRunsAndWhichDiffer()
    {
        const QList<RunRow> live{row(transe(8), {{QStringLiteral("lr"), 0.1}})};
        const QList<RunRow> past{row(transe(8), {{QStringLiteral("lr"), 0.2}}),
                                 row(transe(8), {{QStringLiteral("lr"), 0.1}, {QStringLiteral("epochs"), 3}})};
        const ParamColumns columns = ParamColumns::of(live, past);
        QCOMPARE(
            columns.keys(), // sections in their order, keys sorted in each
            (QStringList{QStringLiteral("model.dim"), QStringLiteral("train.epochs"), QStringLiteral("train.lr")}));
        QVERIFY(!columns.differs(QStringLiteral("model.dim")));
        QVERIFY(columns.differs(QStringLiteral("train.lr")));
        QVERIFY(columns.differs(QStringLiteral("train.epochs"))); // one run has it: missing is a value
        QVERIFY(columns == ParamColumns::of(live, past));
        QVERIFY(columns != ParamColumns::of(live, {}));
        QVERIFY(ParamColumns::of({}, {}).keys().isEmpty());
        const ParamColumns one = ParamColumns::of(live, {});
        QVERIFY(!one.differs(QStringLiteral("train.lr"))); // a single run differs from nobody
    }

    void cellsShowAndSortByTheirValue()
    {
        RunRow r = row(transe(8), {{QStringLiteral("lr"), 0.01},
                                   {QStringLiteral("shuffle"), true},
                                   {QStringLiteral("limit"), QJsonValue::Null},
                                   {QStringLiteral("optimizer"), QStringLiteral("adam")}});
        const QString lr = QStringLiteral("train.lr");
        QCOMPARE(ParamColumns::data(r, lr, Qt::DisplayRole).toString(), QStringLiteral("0.01"));
        QCOMPARE(ParamColumns::data(r, lr, Qt::ToolTipRole).toString(), QStringLiteral("train.lr = 0.01"));
        QCOMPARE(ParamColumns::data(r, lr, Qt::TextAlignmentRole).toInt(), int(Qt::AlignRight | Qt::AlignVCenter));
        QCOMPARE(ParamColumns::sortValue(r, lr), QVariant(0.01));
        QCOMPARE(ParamColumns::sortValue(r, QStringLiteral("model.dim")), QVariant(8.0)); // 8 before 10, as numbers
        QCOMPARE(ParamColumns::sortValue(r, QStringLiteral("train.shuffle")), QVariant(1));
        QVERIFY(!ParamColumns::sortValue(r, QStringLiteral("train.limit")).isValid()); // null sorts last
        QCOMPARE(ParamColumns::sortValue(r, QStringLiteral("train.optimizer")), QVariant(QStringLiteral("adam")));
        QVERIFY(!ParamColumns::data(r, QStringLiteral("train.optimizer"), Qt::TextAlignmentRole).isValid());
        QVERIFY(!ParamColumns::data(r, QStringLiteral("nope"), Qt::DisplayRole).isValid());
        QVERIFY(!ParamColumns::sortValue(r, QStringLiteral("nope")).isValid());
    }
};

QTEST_MAIN(TestParamColumns)
#include "tst_paramcolumns.moc"
