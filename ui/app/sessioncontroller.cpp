#include "ui/app/sessioncontroller.h"

#include "orchestration/document/experimentdocument.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/trustlist.h"
#include "orchestration/records/endnotice.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/session.h"
#include "ui/app/appsettings.h"
#include "ui/app/autosave.h"
#include "ui/board/boardcontroller.h"
#include "ui/common/uilogcategories.h"

#include <QDateTime>
#include <QEventLoopLocker>
#include <QFile>
#include <QFileInfo>

namespace trainyard {

SessionController::SessionController(BoardController *board, QObject *parent)
    : QObject(parent)
    , m_board(board)
{
}

Session *SessionController::session() const
{
    return m_document ? m_document->session() : nullptr;
}

SessionController::~SessionController()
{
    if (m_document) {
        endSession(false);
    }
}

bool SessionController::openDemo()
{
    if (!closeSession()) {
        return false;
    }
    auto session = std::make_unique<Session>();
    QStringList errors;
    if (!session->loadDemo(&errors)) {
        return install(nullptr, errors);
    }
    return install(std::move(session), errors);
}

bool SessionController::openFile(const QString &path)
{
    if (!closeSession()) {
        return false;
    }
    if (const auto recovered = offerRecovery(Autosave::recoverable(path), path)) {
        return *recovered;
    }
    QStringList errors;
    const auto ex = Experiment::load(path, &errors);
    if (!ex || !mayRunPrograms(*ex, &errors)) {
        return install(nullptr, errors);
    }
    auto session = std::make_unique<Session>();
    if (!session->open(*ex, QFileInfo(path).absoluteFilePath(), &errors)) {
        return install(nullptr, errors);
    }
    Q_EMIT fileUsed(QFileInfo(path).absoluteFilePath());
    return install(std::move(session), errors);
}

bool SessionController::openRecovered(const QString &copyPath, const QString &filePath)
{
    // Read first: closing the open board may take its copy.
    QStringList errors;
    const auto ex = Experiment::load(copyPath, &errors);
    if (!closeSession()) {
        return false;
    }
    auto session = std::make_unique<Session>();
    // The copy's relative runs root means what it meant beside the file.
    if (!ex || !mayRunPrograms(*ex, &errors)
        || !session->open(*ex, filePath.isEmpty() ? QString() : QFileInfo(filePath).absoluteFilePath(), &errors)) {
        return install(nullptr, errors);
    }
    if (!filePath.isEmpty()) {
        Q_EMIT fileUsed(QFileInfo(filePath).absoluteFilePath());
    }
    if (!install(std::move(session), errors)) {
        return false;
    }
    m_document->markUnsaved();
    qCInfo(lcUi).noquote() << "recovered the autosaved board" << copyPath;
    return true;
}

bool SessionController::mayRunPrograms(const Experiment &experiment, QStringList *errors)
{
    TrustList trust;
    const QString refusal = trust.refusal(experiment);
    if (refusal.isEmpty()) {
        return true;
    }
    QString why;
    trust.isTrusted(experiment, &why);
    if (m_prompts
        && m_prompts->trust(experiment.sourcePath, experiment.commandLines(),
                            (why.isEmpty() ? QString() : why + QStringLiteral(".\n"))
                                + TrustList::coverage(experiment))) {
        QString error;
        if (!trust.trust(experiment, &error)) {
            qCWarning(lcUi).noquote() << error; // trusted for this opening, asked again next time
        }
        return true;
    }
    *errors = QStringList{refusal, tr("Not opened: nothing was started.")};
    return false;
}

std::optional<bool> SessionController::offerRecovery(const QString &copy, const QString &filePath)
{
    if (copy.isEmpty() || !m_prompts) {
        return std::nullopt; // nothing to offer, or nobody to ask: the copy stays
    }
    const auto ex = Experiment::load(copy, nullptr);
    if (ex && m_prompts->recover(ex->name, QFileInfo(copy).lastModified())) {
        return openRecovered(copy, filePath);
    }
    QFile::remove(copy);
    return std::nullopt;
}

bool SessionController::openAtStart()
{
    // A board that never had a file, edited when Trainyard went down.
    if (const auto recovered = offerRecovery(Autosave::newestUnsavedCopy(), QString()); recovered && *recovered) {
        return true;
    }
    const QString file = startupFile();
    if (!file.isEmpty() && openFile(file)) {
        return true;
    }
    return openDemo();
}

QString SessionController::startupFile()
{
    QSettings settings = appSettings();
    for (const QString &key : {QStringLiteral("session/leftRunning"), QStringLiteral("session/last")}) {
        const QString path = settings.value(key).toString();
        if (!path.isEmpty() && QFileInfo::exists(path)) {
            return path;
        }
    }
    return {};
}

bool SessionController::newExperiment()
{
    if (!closeSession()) {
        return false;
    }
    Experiment experiment;
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    experiment.name = QStringLiteral("untitled-%1").arg(stamp);
    ExperimentLane lane;
    lane.device = Device::cpu();
    experiment.lanes.append(lane);
    auto session = std::make_unique<Session>();
    QStringList errors;
    if (!session->open(experiment, QString(), &errors)) {
        return install(nullptr, errors);
    }
    return install(std::move(session), errors);
}

bool SessionController::install(std::unique_ptr<Session> opened, const QStringList &errors)
{
    if (!opened) {
        qCWarning(lcUi).noquote() << "cannot open the experiment:" << errors.join(QLatin1String("; "));
        Q_EMIT openFailed(tr("The experiment could not be opened:\n\n%1").arg(errors.join(QLatin1Char('\n'))));
        updateTitle();
        return false;
    }
    m_document = std::make_unique<ExperimentDocument>(std::move(opened));
    Session *session = m_document->session();
    connect(m_document.get(), &ExperimentDocument::cleanChanged, this, &SessionController::updateTitle);
    m_board->setDocument(m_document.get());
    // What the next start opens: this one (an empty path is the demo or a new board).
    QSettings settings = appSettings();
    settings.setValue(QStringLiteral("session/last"), session->filePath());
    if (settings.value(QStringLiteral("session/leftRunning")).toString() == session->filePath()) {
        settings.remove(QStringLiteral("session/leftRunning")); // back, reattached
    }
    connect(session, &Session::nameChanged, this, &SessionController::updateTitle);
    qCInfo(lcUi).noquote() << "opened" << session->name() << "with" << m_document->totalCount() << "runs"
                           << (session->filePath().isEmpty() ? QString() : session->filePath());
    Q_EMIT sessionOpened(m_document.get(), errors);
    updateTitle();
    return true;
}

bool SessionController::closeSession()
{
    if (!m_document) {
        return true;
    }
    if (!m_document->isClean() && m_prompts) {
        const UnsavedChoice choice = m_prompts->unsavedEdits(session()->name());
        if (choice == UnsavedChoice::Cancel || (choice == UnsavedChoice::Save && !m_document->isClean())) {
            return false;
        }
    }
    bool leave = false;
    if (m_document->activeCount() > 0) {
        const CloseChoice choice =
            m_prompts ? m_prompts->howToClose(session()->name(), m_document->activeCount()) : CloseChoice::StopRuns;
        if (choice == CloseChoice::Cancel) {
            return false;
        }
        leave = choice == CloseChoice::LeaveRunning;
    }
    endSession(leave);
    return true;
}

void SessionController::closeWithoutAsking()
{
    if (m_document) {
        endSession(false);
    }
}

void SessionController::endSession(bool leaveRunning)
{
    // Views first: they watch the session's objects.
    Q_EMIT sessionAboutToClose(m_document.get());
    m_board->setDocument(nullptr);
    qCInfo(lcUi).noquote() << "closing" << session()->name()
                           << (leaveRunning ? QStringLiteral("and leaving its runs running")
                                            : QStringLiteral("and stopping its runs"));
    // Stopping runs ends later (Session::closed), so the session lives on,
    // out of every view's sight, until its runs have ended and then deletes
    // itself; meanwhile the application does not quit. Were this controller
    // destroyed first, the session would go with it, killing what still runs.
    if (leaveRunning && !session()->filePath().isEmpty()) {
        appSettings().setValue(QStringLiteral("session/leftRunning"), session()->filePath());
    }
    Session *closing = m_document->takeSession().release();
    m_document.reset(); // the board's history goes before its board
    closing->disconnect(this);
    closing->setParent(this);
    auto *keepRunning = new QEventLoopLocker;
    ++m_closing;
    connect(closing, &QObject::destroyed, this, [this] { --m_closing; });
    connect(closing, &QObject::destroyed, [keepRunning] { delete keepRunning; });
    connect(closing, &Session::closed, closing, &QObject::deleteLater);
    closing->close(leaveRunning);
    Q_EMIT sessionClosed();
}

bool SessionController::rename(const QString &name)
{
    if (!m_document) {
        return false;
    }
    QString error;
    if (!session()->rename(name.trimmed(), &error)) {
        qCWarning(lcUi).noquote() << "cannot rename:" << error;
        Q_EMIT renameFailed(error);
        return false;
    }
    qCInfo(lcUi).noquote() << "renamed to" << session()->name() << "runs in" << session()->runsRoot();
    return true;
}

bool SessionController::saveTo(const QString &path)
{
    if (!m_document) {
        return false;
    }
    const QString base = QFileInfo(path).completeBaseName();
    if (session()->name().startsWith(QLatin1String("untitled-")) && isSafeRunName(base)) {
        QString ignored;
        session()->rename(base, &ignored); // a name is a nicety, not a reason not to save
    }
    QString error;
    if (!session()->save(path, &error)) {
        qCWarning(lcUi).noquote() << "cannot save:" << error;
        Q_EMIT saveFailed(error);
        return false;
    }
    m_document->markSaved();
    appSettings().setValue(QStringLiteral("session/last"), session()->filePath());
    Q_EMIT fileUsed(QFileInfo(path).absoluteFilePath());
    updateTitle();
    Q_EMIT saved(path);
    return true;
}

QString SessionController::title() const
{
    const QString name = m_document ? session()->name() : tr("no experiment");
    const QString file =
        m_document && !session()->filePath().isEmpty() ? QFileInfo(session()->filePath()).fileName() : tr("not saved");
    const QString unsaved = !m_document || m_document->isClean() ? QString() : QStringLiteral("*");
    return QStringLiteral("%1%2 (%3) — Trainyard").arg(name, unsaved, file);
}

void SessionController::updateTitle()
{
    Q_EMIT titleChanged(title());
}

QString SessionController::finishCountText() const
{
    const RunRegistry *runs = m_document ? m_document->runRecords() : nullptr;
    return runs ? endnotice::finishCountText(*runs) : QString();
}

} // namespace trainyard
