#include "orchestration/experiment/sshtarget.h"

#include "orchestration/experiment/jsonchecks.h"

#include <QRegularExpression>

namespace trainyard {

using namespace jsonchecks;

SshTarget SshTarget::fromJson(const QJsonObject &o, const QString &path, const QString &hostWhat, QStringList &errors)
{
    static const QRegularExpression absolute(QRegularExpression::anchoredPattern(QStringLiteral("/[^\\x00]*")));
    // A host name, an address (IPv6 bare or in brackets) or an alias of the
    // user's ssh config; a user name of POSIX's portable characters. Never a
    // leading "-": ssh would read the value as an option.
    static const QRegularExpression host(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_:\\[][A-Za-z0-9_.:\\[\\]-]{0,254}")));
    static const QRegularExpression user(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_][A-Za-z0-9._-]{0,63}")));
    SshTarget t;
    if (!o.contains(QStringLiteral("host"))) {
        errors << expected(child(path, QStringLiteral("host")), hostWhat, QJsonValue(QJsonValue::Undefined));
    }
    checkString(
        o, QStringLiteral("host"), path,
        QStringLiteral("a host name, address or ssh config alias (letters, digits, ._:-[], not starting with \"-\")"),
        host, &t.host, errors);
    checkString(o, QStringLiteral("user"), path,
                QStringLiteral("a user name (letters, digits, ._-, not starting with \"-\")"), user, &t.user, errors);
    checkInt(o, QStringLiteral("port"), path, 1, 65535, errors);
    t.port = o.value(QStringLiteral("port")).toInt(22);
    checkString(o, QStringLiteral("ssh_config"), path, QStringLiteral("an absolute path to an ssh config file"),
                absolute, &t.sshConfig, errors);
    return t;
}

void SshTarget::insertInto(QJsonObject &o) const
{
    o.insert(QStringLiteral("host"), host);
    if (!user.isEmpty()) {
        o.insert(QStringLiteral("user"), user);
    }
    if (port != 22) {
        o.insert(QStringLiteral("port"), port);
    }
    if (!sshConfig.isEmpty()) {
        o.insert(QStringLiteral("ssh_config"), sshConfig);
    }
}

QStringList SshTarget::arguments() const
{
    // Options first, then "--", then the destination alone: ssh reads no value
    // of the file as an option, even one that validation let through. (No
    // second "--" after the host: ssh stops reading options at the first
    // "--", and would send a second one as the remote command.)
    QStringList args;
    if (port != 22) {
        args << QStringLiteral("-p") << QString::number(port);
    }
    if (!sshConfig.isEmpty()) {
        args << QStringLiteral("-F") << sshConfig;
    }
    if (!user.isEmpty()) {
        args << QStringLiteral("-l") << user;
    }
    args << QStringLiteral("--") << host;
    return args;
}

} // namespace trainyard
