#pragma once

#include "orchestration/catalogue/modelcatalogue.h"

#include <QLabel>
#include <QPointer>
#include <QStringList>

namespace trainyard {

class ExperimentDocument;

/// The strip above the board that names what the worker would refuse in the
/// open experiment's run specs (a misspelt key, a value out of range): the
/// worker's catalogue check that `trainyard check` makes, shown as soon as
/// both the experiment and the catalogue are known, and again after each
/// edit. Hidden when there is nothing to say.
class SpecCheckBanner : public QLabel
{
    Q_OBJECT
public:
    explicit SpecCheckBanner(QWidget *parent = nullptr);

    /// The experiment to check (nullptr: none, hidden).
    void setDocument(ExperimentDocument *document);
    /// The worker's catalogue (empty until it is listed: nothing is checked).
    void setCatalogue(const ModelCatalogue &catalogue);
    /// What it shows: each problem with its JSON path, as `trainyard check` words it.
    QStringList problems() const { return m_problems; }

private:
    void refresh();

    QPointer<ExperimentDocument> m_document;
    ModelCatalogue m_catalogue;
    QStringList m_problems;
};

} // namespace trainyard
