#include "orchestration/experiment/programrequires.h"

#include "orchestration/experiment/jsonchecks.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>

namespace trainyard::programrequires {

namespace {

constexpr qsizetype kMaxModules = 100;

bool isModuleName(const QString &name)
{
    static const QRegularExpression re(QRegularExpression::anchoredPattern(
        QStringLiteral("[A-Za-z_][A-Za-z0-9_]{0,99}(\\.[A-Za-z_][A-Za-z0-9_]{0,99}){0,9}")));
    return re.match(name).hasMatch();
}

} // namespace

bool isPythonInterpreter(const QString &program)
{
    static const QRegularExpression re(QRegularExpression::anchoredPattern(QStringLiteral("python(\\d+(\\.\\d+)?)?")));
    return re.match(QFileInfo(program).fileName()).hasMatch();
}

QStringList validate(const QJsonObject &program, const QString &programPath)
{
    using namespace jsonchecks;
    const QJsonValue requires_ = program.value(QStringLiteral("requires"));
    if (requires_.isUndefined()) {
        return {};
    }
    const QString path = child(programPath, QStringLiteral("requires"));
    const QString what = QStringLiteral("a list of Python module names (\"torch\", \"torchvision.models\")");
    if (!requires_.isArray() || requires_.toArray().isEmpty() || requires_.toArray().size() > kMaxModules) {
        return {expected(path, what, requires_)};
    }
    QStringList errors;
    const QJsonArray modules = requires_.toArray();
    for (qsizetype i = 0; i < modules.size(); ++i) {
        if (!modules.at(i).isString() || !isModuleName(modules.at(i).toString())) {
            errors << expected(QStringLiteral("%1[%2]").arg(path).arg(i), QStringLiteral("a Python module name"),
                               modules.at(i));
        }
    }
    const QString program0 = program.value(QStringLiteral("argv")).toArray().first().toString();
    if (!program0.isEmpty() && !isPythonInterpreter(program0)) {
        errors << QStringLiteral("%1: needs a Python interpreter as program.argv[0] (python, python3 or python3.N, "
                                 "by name or path), got \"%2\"")
                      .arg(path, program0);
    }
    return errors;
}

} // namespace trainyard::programrequires
