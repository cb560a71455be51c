#include "orchestration/sweep/trialparameters.h"

#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/sweepspec.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/sweep/sweepstatefile.h"

#include <algorithm>
#include <optional>

namespace trainyard {

QHash<QString, TrialOf> TrialParameters::trialsOf(const Experiment &experiment, const QString &root,
                                                  QStringList *warnings)
{
    QHash<QString, TrialOf> trials;
    for (const SweepSpec &sweep : experiment.sweeps) {
        QString error;
        const std::optional<SweepState> state = SweepStateFile::read(SweepStateFile::path(root, sweep.name), &error);
        if (!error.isEmpty() && warnings) {
            warnings->append(error);
        }
        if (state) {
            for (const SweepState::Trial &t : state->trials) {
                if (t.index < sweep.trialCount() && SweepSpec::isTrialRunName(sweep.name, t.index, t.run)) {
                    trials.insert(t.run, TrialOf{sweep.name, t.index + 1, t.paused});
                }
            }
        } else {
            for (int i = 0; i < sweep.trialCount(); ++i) {
                trials.insert(SweepSpec::trialName(sweep.name, i), TrialOf{sweep.name, i + 1, false});
            }
        }
    }
    return trials;
}

QHash<QString, TrialParameters::Values> TrialParameters::searched(const Experiment &experiment, const RunStore &store,
                                                                  const QStringList &runs, QStringList *warnings)
{
    QHash<QString, Values> out;
    const QHash<QString, TrialOf> trials = trialsOf(experiment, store.root(), warnings);
    for (const QString &name : runs) {
        const auto trial = trials.constFind(name);
        if (trial == trials.constEnd()) {
            continue;
        }
        const auto sweep = std::find_if(experiment.sweeps.begin(), experiment.sweeps.end(),
                                        [&](const SweepSpec &s) { return s.name == trial->sweep; });
        if (sweep == experiment.sweeps.end()) {
            continue;
        }
        const QList<RunSpecView::Param> params = RunSpecView(store.readSpec(name)).flattened();
        Values values;
        for (const SweepParameter &parameter : sweep->space) {
            for (const RunSpecView::Param &p : params) {
                if (p.key == parameter.key) {
                    values.append({p.key, p.value});
                }
            }
        }
        out.insert(name, values);
    }
    return out;
}

} // namespace trainyard
