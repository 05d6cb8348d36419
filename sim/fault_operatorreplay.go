package sim

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"outboxlab/lang"
)

// FaultOperatorReplay is an operator who replays the dead letters during
// the run, at From, before any cause is fixed: alerted by the first dead
// letter ("perhaps it was transient"), while the relay may still be
// retrying other messages. The replay must put back the dead letters and
// nothing else: a FAILED message is not a dead letter, and its count of
// failed sends and its next attempt are its retry history; a replay that
// resets them has the relay send it again at once, beyond its policy
// (STORM: World.ReplayResets).
const FaultOperatorReplay FaultKind = "operator-replay"

var operatorReplay = FaultSpec{
	Kind: FaultOperatorReplay, Form: "AT",
	Text: lang.Text{
		EN: "at AT, during the run, the operator replays the dead letters, their causes not fixed, while the relay may be retrying other messages",
		DE: "um AT, während des Laufs, spielt der Operator die Dead Letters wieder ein, ihre Ursachen nicht behoben, während das Relay vielleicht andere Nachrichten wiederholt",
	},
	parse: func(f *Fault, args []string, _ Known) error {
		if err := argsWant(FaultOperatorReplay, args, 1, "AT"); err != nil {
			return err
		}
		return durations(args, &f.From)
	},
	validate: func(f Fault, _ Config) error {
		if f.From < 0 {
			return fmt.Errorf("sim: %s: From = %s, want >= 0", f.Kind, f.From)
		}
		return nil
	},
	install: func(w *world, f Fault) {
		i, _ := slices.BinarySearch(w.replaysAt, f.From)
		w.replaysAt = slices.Insert(w.replaysAt, i, f.From)
	},
	describe: func(f Fault) string { return fmt.Sprintf("%s at %s", f.Kind, f.From) },
	NotDrawn: "the restarts-after-dead-letter row has it; exploration's operator replays once the run is quiet",
}

// replayDuringRun is the operator's replay of FaultOperatorReplay: every
// dead letter, by every live process, as after quiesce; each process's
// activity in progress ends first.
func (w *world) replayDuringRun() error {
	if len(w.deadLetters(w.unsentMessages())) == 0 {
		return nil
	}
	w.operator(lang.Text{EN: "replay the dead letters during the run, causes not fixed", DE: "die Dead Letters während des Laufs wieder einspielen, Ursachen nicht behoben"})
	if err := w.replayDeadLetters(); err != nil && !errors.As(err, new(replayError)) {
		return err
	}
	w.ops.unfixedReplays++
	w.ops.duringRun++
	return nil
}

// replayAt reports when the next replay of FaultOperatorReplay is due.
func (w *world) replayAt() (time.Time, bool) {
	if len(w.replaysAt) == 0 {
		return time.Time{}, false
	}
	return Epoch.Add(w.replaysAt[0]), true
}
