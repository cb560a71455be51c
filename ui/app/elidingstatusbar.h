#pragma once

#include <QStatusBar>

namespace trainyard {

/// A status bar whose temporary message ends in "…" where it would reach
/// the permanent widgets on its right (QStatusBar cuts it off mid-letter
/// against them); the whole message is its tooltip.
class ElidingStatusBar : public QStatusBar
{
    Q_OBJECT
public:
    explicit ElidingStatusBar(QWidget *parent = nullptr);

    /// The message as it is drawn now (elided to the room there is).
    QString shownMessage() const;

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    QRect messageRect() const;
    void updateTip();
};

} // namespace trainyard
