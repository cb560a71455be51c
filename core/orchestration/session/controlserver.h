#pragma once

#include <QJsonArray>
#include <QObject>
#include <QString>

#include <functional>

class QLocalServer;
class QLocalSocket;

namespace trainyard {

// Requests to stop, pause or resume one run, from `trainyard stop|pause|
// resume FILE RUN`, and for the runs' status, from `trainyard status FILE`,
// to the orchestrator that holds the experiment (the
// desktop app or `trainyard run`), which stays the one owner of the run:
// it carries the request out as its own Stop, Pause or Resume would
// (docs/experiment-format.md, "One run from the command line").
//
// The wire: a QLocalServer on the metrics socket's path with ".control" in
// place of ".sock" (the same 0700 folder; mode 0600). One request per
// connection: one JSON line, at most 4 KiB, within 5 s,
//   {"run": "NAME", "token": "HEX", "action": "stop" | "pause" | "resume"}
// answered by one line, {"ok": true|false, "message": "..."}, then closed.
// A read-only {"action": "status"} needs no run nor token (it acts on
// nothing; who may connect is the socket's mode, as for every request):
// answered {"ok": true, "message": EXPERIMENT, "runs": [RunStatusRow...]}.
// Anything else is answered {"ok": false, ...} and closed. Whether a
// request may act is the handler's (Session: the token must be the run's
// own, as the runs root's state file holds it). ask() is the client's side.
class ControlServer : public QObject
{
    Q_OBJECT
public:
    struct Request
    {
        QString run;
        QString token;
        QString action; // "stop", "pause", "resume" or "status"
    };
    struct Reply
    {
        Reply(bool ok_ = false, QString message_ = {}, QJsonArray runs_ = {})
            : ok(ok_)
            , message(std::move(message_))
            , runs(std::move(runs_))
        {
        }
        bool ok = false;
        QString message;
        QJsonArray runs; // a status request's answer: RunStatusRow::toJson, one per run
    };
    using Handler = std::function<Reply(const Request &request)>;

    explicit ControlServer(QObject *parent = nullptr);
    ~ControlServer() override;

    // The control socket that goes with a metrics socket (MetricsServer::defaultSocketPath).
    static QString socketPathFor(const QString &metricsSocketPath);
    // Listens on `path` (its folder must exist: the metrics socket's);
    // a stale socket file is replaced.
    bool listen(const QString &path, QString *error = nullptr);
    void close();
    QString socketPath() const;
    void setHandler(Handler handler) { m_handler = std::move(handler); }

    // The client: sends `request` to the server on `path` and waits (at most
    // `timeoutMs`) for its answer. Not ok, with a message naming `path`,
    // when nothing listens there or it does not answer.
    static Reply ask(const QString &path, const Request &request, int timeoutMs = 10000);

private:
    void adopt(QLocalSocket *socket);
    Reply answer(const QByteArray &line) const;

    QLocalServer *m_server = nullptr;
    Handler m_handler;
};

} // namespace trainyard
