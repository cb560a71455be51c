#pragma once

#include <QLabel>

namespace trainyard {

class ExperimentDocument;

/// The strip above the board that says which lanes name a GPU this machine
/// does not have, and whether they run on the CPU instead or wait. Hidden
/// when every lane's device exists.
class FallbackBanner : public QLabel
{
    Q_OBJECT
public:
    explicit FallbackBanner(QWidget *parent = nullptr);

    /// Shows the state of `document`'s lanes on its devices (nullptr: hides).
    void refresh(const ExperimentDocument *document);
};

} // namespace trainyard
