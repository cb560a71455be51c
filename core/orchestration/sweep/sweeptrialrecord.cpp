#include "orchestration/sweep/sweeptrialrecord.h"

#include "orchestration/experiment/experiment.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/runstore/specidentity.h"
#include "orchestration/sweep/sweepsearch.h"

#include <QSet>

namespace trainyard {

SweepTrialRecord::SweepTrialRecord(const QString &runsRoot)
    : m_root(runsRoot)
{
}

void SweepTrialRecord::save(const SweepSearch &s) const
{
    if (m_root.isEmpty()) {
        return;
    }
    SweepState state;
    state.specHash = SweepStateFile::specHash(s.spec);
    state.paused = s.paused;
    state.stopped = s.stopped;
    for (const auto &[index, t] : s.placed()) {
        if (t.name.isEmpty()) {
            continue; // never placed: nothing on disk to come back to
        }
        state.trials << SweepState::Trial{index, t.name, t.lane, t.paused, t.stopped, t.reason};
    }
    QString error;
    if (!SweepStateFile::write(SweepStateFile::path(m_root, s.spec.name), state, &error)) {
        qWarning("sweep %s: %s", qUtf8Printable(s.spec.name), qUtf8Printable(error));
    }
}

bool SweepTrialRecord::isTrialFolder(const SweepSearch &s, int index, const QString &run, QString *why) const
{
    // The state file (or a folder's name) only claims it: the trial's run is
    // named for it (the board adds "-N" when a run took the name first), and
    // a folder already there must hold this trial's spec. Otherwise its
    // history would be read as the trial's, and a promotion would resume
    // into another run's folder.
    const QString name = SweepSpec::trialName(s.spec.name, index);
    if (!SweepSpec::isTrialRunName(s.spec.name, index, run)) {
        *why = QStringLiteral("its run \"%1\" is not named for it (\"%2\")").arg(run, name);
        return false;
    }
    const RunStore store(m_root);
    if (!store.runNames().contains(run)) {
        return true; // placed, never started: no history to mix up
    }
    QJsonObject expected = withDefaults(s.trialRunSpec(index));
    expected.insert(QStringLiteral("name"), run);
    if (const QJsonObject held = store.readSpec(run);
        held.isEmpty() || !specidentity::difference(held, expected).isEmpty()) {
        *why = QStringLiteral("the folder %1 holds another run's spec").arg(store.runDir(run));
        return false;
    }
    return true;
}

SweepState SweepTrialRecord::load(const SweepSearch &s, int firstLane, QStringList *warnings) const
{
    const QString path = SweepStateFile::path(m_root, s.spec.name);
    QString error;
    std::optional<SweepState> state = m_root.isEmpty() ? std::nullopt : SweepStateFile::read(path, &error);
    if (!error.isEmpty() || !state) {
        if (!error.isEmpty()) {
            *warnings
                << QStringLiteral("sweep %1: %2; it starts from what its run folders say").arg(s.spec.name, error);
        }
        state = SweepState{};
        // Each trial's folder that exists is a placed trial, on its first
        // lane (whether it really is the trial's is checked below).
        const QStringList folders = RunStore(m_root).runNames();
        for (int i = 0; i < s.spec.trialCount() && !m_root.isEmpty(); ++i) {
            const QString name = SweepSpec::trialName(s.spec.name, i);
            if (folders.contains(name)) {
                state->trials << SweepState::Trial{i, name, firstLane, false, false, QString()};
            }
        }
    } else if (state->specHash != SweepStateFile::specHash(s.spec)) {
        *warnings << QStringLiteral("sweep %1: its saved trials were made by another version of its spec; those "
                                    "whose folders hold this version's trial are kept, new trials follow it")
                         .arg(s.spec.name);
    }
    QList<SweepState::Trial> kept;
    QSet<int> seen;
    for (const SweepState::Trial &saved : std::as_const(state->trials)) {
        if (saved.index < 0 || saved.index >= s.spec.trialCount() || seen.contains(saved.index)) {
            *warnings << QStringLiteral("sweep %1: %2: trial %3 is not one of its trials; left out")
                             .arg(s.spec.name, path)
                             .arg(saved.index + 1);
            continue;
        }
        QString why;
        if (!isTrialFolder(s, saved.index, saved.run, &why)) {
            *warnings << QStringLiteral("sweep %1: trial %2: %3; it starts again as a new trial")
                             .arg(s.spec.name)
                             .arg(saved.index + 1)
                             .arg(why);
            continue;
        }
        seen.insert(saved.index);
        kept << saved;
    }
    state->trials = kept;
    return *state;
}

} // namespace trainyard
