#include "ui/app/autosave.h"

#include "orchestration/document/experimentdocument.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/trustlist.h"
#include "ui/app/sessioncontroller.h"
#include "ui/board/boardcontroller.h"
#include "ui/common/uilogcategories.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTimer>
#include <QUndoStack>

namespace trainyard {

namespace {
constexpr char unsavedPrefix[] = "unsaved-";
}

Autosave::Autosave(SessionController *sessions, BoardController *board, QObject *parent)
    : QObject(parent)
    , m_sessions(sessions)
    , m_board(board)
    , m_timer(new QTimer(this))
{
    // Soon enough that little is lost, late enough not to write at every drag.
    m_timer->setSingleShot(true);
    m_timer->setInterval(2000);
    connect(m_timer, &QTimer::timeout, this, &Autosave::writeNow);
    connect(m_board, &BoardController::edited, this, &Autosave::boardChanged);
    connect(m_sessions, &SessionController::sessionOpened, this, [this] {
        ExperimentDocument *document = m_sessions->document();
        m_path = pathFor(document->filePath(), document->name());
        connect(document, &ExperimentDocument::cleanChanged, this, [this](bool clean) {
            if (clean) {
                forget(); // saved, or undone back to the file
            } else {
                boardChanged(); // a recovered board is unsaved before any edit
            }
        });
    });
    // Closing asked about unsaved edits first: they were saved or discarded.
    connect(m_sessions, &SessionController::sessionAboutToClose, this, [this] {
        forget();
        m_path.clear();
    });
    connect(m_sessions, &SessionController::saved, this, [this] {
        forget();
        if (const ExperimentDocument *document = m_sessions->document()) {
            m_path = pathFor(document->filePath(), document->name()); // Save As: a new key
        }
    });
}

QString Autosave::folder()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/autosave");
}

QString Autosave::pathFor(const QString &filePath, const QString &name)
{
    // Copies of boards without a file are found by their prefix at start.
    const QString key = filePath.isEmpty() ? name : QFileInfo(filePath).absoluteFilePath();
    const QByteArray hash = QCryptographicHash::hash(key.toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
    const QString prefix = filePath.isEmpty() ? QString::fromLatin1(unsavedPrefix) : QStringLiteral("file-");
    return folder() + QLatin1Char('/') + prefix + QString::fromLatin1(hash) + QStringLiteral(".json");
}

QString Autosave::newestUnsavedCopy()
{
    const QFileInfoList copies =
        QDir(folder()).entryInfoList({QString::fromLatin1(unsavedPrefix) + QLatin1Char('*')}, QDir::Files, QDir::Time);
    return copies.isEmpty() ? QString() : copies.first().filePath();
}

QString Autosave::recoverable(const QString &filePath)
{
    const QFileInfo copy(pathFor(filePath, QString()));
    const QFileInfo file(filePath);
    return copy.exists() && (!file.exists() || copy.lastModified() > file.lastModified()) ? copy.filePath() : QString();
}

void Autosave::remove(const QString &filePath, const QString &name)
{
    QFile::remove(pathFor(filePath, name));
}

void Autosave::boardChanged()
{
    if (m_sessions->document() && !m_sessions->document()->isClean()) {
        m_timer->start();
    }
}

void Autosave::writeNow()
{
    m_timer->stop();
    const ExperimentDocument *document = m_sessions->document();
    if (!document || document->isClean()) {
        return;
    }
    // A board without a file is keyed by its name, which may have changed.
    const QString path = pathFor(document->filePath(), document->name());
    if (path != m_path) {
        forget();
        m_path = path;
    }
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    QString error;
    if (!saveOwnExperiment(document->experiment(), m_path, &error)) {
        qCWarning(lcUi).noquote() << "autosave failed:" << error;
        return;
    }
    qCDebug(lcUi).noquote() << "autosaved" << document->name() << "to" << m_path;
}

void Autosave::forget()
{
    m_timer->stop();
    if (!m_path.isEmpty()) {
        QFile::remove(m_path);
    }
}

} // namespace trainyard
