#pragma once

#include "ui/common/prompts.h"

#include <functional>

class QWidget;

namespace trainyard {

/// The app's questions as dialogs over `parent`. Save in unsavedEdits()
/// calls `save` (the Save action: it asks for a file when the board has
/// none), which says whether the edits are saved now.
class DialogPrompts : public Prompts
{
public:
    DialogPrompts(QWidget *parent, std::function<bool()> save);

    CloseChoice howToClose(const QString &experiment, int training) override;
    UnsavedChoice unsavedEdits(const QString &experiment) override;
    bool recover(const QString &experiment, const QDateTime &savedAt) override;
    bool trust(const QString &file, const QStringList &commands, const QString &about) override;
    bool startAnyway(const QStringList &problems) override;
    bool startNewAttempts(const QString &verb, const QString &question) override;
    void tell(const QString &title, const QString &message) override;

private:
    QWidget *m_parent;
    std::function<bool()> m_save;
};

} // namespace trainyard
