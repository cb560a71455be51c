#pragma once

#include "orchestration/records/runinfo.h"

#include <QJsonObject>
#include <QList>
#include <QStringList>

class QMimeData;

namespace trainyard {

/// What a drag from the board carries and what a drop on it brings, in the
/// formats of common/mimetypes.h: a run spec from the palette (with its repeat
/// count), local .py files from a file manager, or board cards. Cards name the
/// board they come from (its address), so a drop from another window is told
/// apart from one of this window.
class BoardDrop
{
public:
    enum class Kind {
        None,
        Spec,    ///< a run spec from the palette
        Scripts, ///< local .py files
        Cards,   ///< cards of a board
    };

    /// Drags and drops of the board at `board` (only its address is used).
    explicit BoardDrop(const void *board);

    /// The formats a board accepts.
    static QStringList mimeTypes();
    /// What `data` carries, from its formats and URLs only (cheap enough for
    /// every drag move); a spec wins over cards, cards over scripts.
    static Kind kind(const QMimeData *data);
    /// The local .py files `data` carries; empty unless every URL is one.
    static QStringList scripts(const QMimeData *data);

    struct SpecDrop
    {
        QJsonObject spec; ///< empty when the drop carries none
        int repeat = 1;   ///< at least 1
    };
    /// The run spec of a palette drop.
    static SpecDrop spec(const QMimeData *data);

    /// Cards `ids` of this board as drag data; nullptr for none (duplicates
    /// are dropped, the order kept).
    QMimeData *encodeCards(const QList<RunId> &ids) const;
    /// The runs of a cards drop; false when `data` carries no cards or cards
    /// of another board.
    bool cards(const QMimeData *data, QList<RunId> *ids) const;

private:
    QString m_board;
};

} // namespace trainyard
