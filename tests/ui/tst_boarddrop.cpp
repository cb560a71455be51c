// What the board's drags carry and its drops bring (BoardDrop): the kinds and
// their precedence, cards only from their own board, .py files all or nothing.

#include "ui/board/boarddrop.h"
#include "ui/common/mimetypes.h"

#include <QJsonDocument>
#include <QMimeData>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <memory>

using namespace trainyard;

namespace {
std::unique_ptr<QMimeData> specData(const QJsonObject &payload)
{
    auto data = std::make_unique<QMimeData>();
    data->setData(runSpecMimeType(), QJsonDocument(payload).toJson());
    return data;
}
} // namespace

class TestBoardDrop : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cardsComeBackOnlyToTheirBoard()
    {
        int board = 0;
        int other = 0;
        const BoardDrop drop(&board);
        QCOMPARE(drop.encodeCards({}), nullptr);
        QCOMPARE(drop.encodeCards({0}), nullptr); // 0 is no run (a lane)
        std::unique_ptr<QMimeData> data(drop.encodeCards({3, 0, 1, 3}));
        QVERIFY(data);
        QCOMPARE(BoardDrop::kind(data.get()), BoardDrop::Kind::Cards);
        QList<RunId> ids{99};
        QVERIFY(drop.cards(data.get(), &ids));
        QCOMPARE(ids, (QList<RunId>{3, 1})); // once each, in order
        QVERIFY(!BoardDrop(&other).cards(data.get(), &ids));

        QMimeData broken;
        broken.setData(runCardsMimeType(), "not json");
        QCOMPARE(BoardDrop::kind(&broken), BoardDrop::Kind::Cards);
        QVERIFY(!drop.cards(&broken, &ids));
        QVERIFY(!drop.cards(nullptr, &ids));
    }

    void specCarriesItsRepeatCount()
    {
        const QJsonObject spec{{QStringLiteral("name"), QStringLiteral("a")}};
        auto data = specData({{QStringLiteral("spec"), spec}, {QStringLiteral("repeat"), 3}});
        QCOMPARE(BoardDrop::kind(data.get()), BoardDrop::Kind::Spec);
        QCOMPARE(BoardDrop::spec(data.get()).spec, spec);
        QCOMPARE(BoardDrop::spec(data.get()).repeat, 3);
        QCOMPARE(BoardDrop::spec(specData({{QStringLiteral("spec"), spec}}).get()).repeat, 1);
        QCOMPARE(
            BoardDrop::spec(specData({{QStringLiteral("spec"), spec}, {QStringLiteral("repeat"), 0}}).get()).repeat, 1);
        QVERIFY(BoardDrop::spec(specData({}).get()).spec.isEmpty());
        QMimeData none;
        QVERIFY(BoardDrop::spec(&none).spec.isEmpty());
    }

    void scriptsAreLocalPythonFilesOnly()
    {
        QMimeData data;
        data.setUrls(
            {QUrl::fromLocalFile(QStringLiteral("/tmp/a.py")), QUrl::fromLocalFile(QStringLiteral("/tmp/b.py"))});
        QCOMPARE(BoardDrop::kind(&data), BoardDrop::Kind::Scripts);
        QCOMPARE(BoardDrop::scripts(&data), (QStringList{QStringLiteral("/tmp/a.py"), QStringLiteral("/tmp/b.py")}));

        data.setUrls(
            {QUrl::fromLocalFile(QStringLiteral("/tmp/a.py")), QUrl::fromLocalFile(QStringLiteral("/tmp/b.txt"))});
        QVERIFY(BoardDrop::scripts(&data).isEmpty());
        QCOMPARE(BoardDrop::kind(&data), BoardDrop::Kind::None);
        data.setUrls({QUrl(QStringLiteral("https://example.org/a.py"))});
        QVERIFY(BoardDrop::scripts(&data).isEmpty());
        QCOMPARE(BoardDrop::kind(nullptr), BoardDrop::Kind::None);
    }

    void aSpecWinsOverCardsAndCardsOverScripts()
    {
        int board = 0;
        std::unique_ptr<QMimeData> data(BoardDrop(&board).encodeCards({1}));
        data->setUrls({QUrl::fromLocalFile(QStringLiteral("/tmp/a.py"))});
        QCOMPARE(BoardDrop::kind(data.get()), BoardDrop::Kind::Cards);
        data->setData(runSpecMimeType(), "{}");
        QCOMPARE(BoardDrop::kind(data.get()), BoardDrop::Kind::Spec);
        QCOMPARE(BoardDrop::mimeTypes(),
                 (QStringList{runCardsMimeType(), runSpecMimeType(), QStringLiteral("text/uri-list")}));
    }
};

QTEST_MAIN(TestBoardDrop)
#include "tst_boarddrop.moc"
