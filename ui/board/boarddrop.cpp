#include "ui/board/boarddrop.h"

#include "ui/common/mimetypes.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QMimeData>
#include <QUrl>

#include <algorithm>

namespace trainyard {

BoardDrop::BoardDrop(const void *board)
    : m_board(QString::number(quintptr(board)))
{
}

QStringList BoardDrop::mimeTypes()
{
    return {runCardsMimeType(), runSpecMimeType(), QStringLiteral("text/uri-list")};
}

BoardDrop::Kind BoardDrop::kind(const QMimeData *data)
{
    if (!data) {
        return Kind::None;
    }
    if (data->hasFormat(runSpecMimeType())) {
        return Kind::Spec;
    }
    if (data->hasFormat(runCardsMimeType())) {
        return Kind::Cards;
    }
    return scripts(data).isEmpty() ? Kind::None : Kind::Scripts;
}

QStringList BoardDrop::scripts(const QMimeData *data)
{
    QStringList scripts;
    if (!data || !data->hasUrls()) {
        return scripts;
    }
    for (const QUrl &url : data->urls()) {
        if (!url.isLocalFile() || !url.toLocalFile().endsWith(QLatin1String(".py"))) {
            return {}; // all Python scripts, or nothing
        }
        scripts << url.toLocalFile();
    }
    return scripts;
}

BoardDrop::SpecDrop BoardDrop::spec(const QMimeData *data)
{
    SpecDrop drop;
    if (!data || !data->hasFormat(runSpecMimeType())) {
        return drop;
    }
    const QJsonObject payload = QJsonDocument::fromJson(data->data(runSpecMimeType())).object();
    drop.spec = payload.value(QLatin1String("spec")).toObject();
    drop.repeat = std::max(1, payload.value(QLatin1String("repeat")).toInt(1));
    return drop;
}

QMimeData *BoardDrop::encodeCards(const QList<RunId> &ids) const
{
    QJsonArray runs;
    for (RunId id : ids) {
        if (id && !runs.contains(id)) {
            runs.append(id);
        }
    }
    if (runs.isEmpty()) {
        return nullptr;
    }
    const QJsonObject payload{{QLatin1String("board"), m_board}, {QLatin1String("runs"), runs}};
    auto *mime = new QMimeData;
    mime->setData(runCardsMimeType(), QJsonDocument(payload).toJson(QJsonDocument::Compact));
    return mime;
}

bool BoardDrop::cards(const QMimeData *data, QList<RunId> *ids) const
{
    if (!data || !data->hasFormat(runCardsMimeType())) {
        return false;
    }
    const QJsonObject payload = QJsonDocument::fromJson(data->data(runCardsMimeType())).object();
    if (payload.value(QLatin1String("board")).toString() != m_board) {
        return false;
    }
    ids->clear();
    for (const QJsonValue &v : payload.value(QLatin1String("runs")).toArray()) {
        ids->append(v.toInt());
    }
    return true;
}

} // namespace trainyard
