package sim

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/effect"
	"outboxlab/insurance"
	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

// OperationKind names one thing the operator does after quiesce.
type OperationKind string

// The operator's work. Every run ends with it, in the order of
// Config.Operations.
const (
	// OpCleanup: the operator waits (Operation.Wait), then the relay's
	// retention cleanup runs. It may delete SENT messages only, and only
	// those sent longer ago than the retention period.
	OpCleanup OperationKind = "cleanup"
	// OpReplayUnfixed: the operator replays every dead letter before any
	// cause is fixed ("perhaps it was transient"): each must become a
	// dead letter again, not vanish.
	OpReplayUnfixed OperationKind = "replay-unfixed"
	// OpFix: the operator fixes the rejected messages' causes one at a
	// time and replays each, then fixes every other cause and replays
	// what is left until the system settles. With Operation.Outage the
	// broker is down that long from the moment the operator begins: the
	// replay meets a broker error, and the message must get through after
	// it. Every run has one.
	OpFix OperationKind = "fix"
	// OpReplayAgain: the operator runs the replays made so far once more,
	// as they were made (a second click, a script run twice): a replay
	// must change nothing the first one settled.
	OpReplayAgain OperationKind = "replay-again"
)

// Operation is one step of the operator's work after quiesce.
type Operation struct {
	Kind OperationKind
	// Retentions, Thousandths and Wait say how long the operator waits
	// before a cleanup: Retentions times the relay's retention period
	// (its declared one), Thousandths thousandths of it, and Wait more;
	// Wait may be negative ("an hour before the period ends"), and a
	// total below zero is no wait. (Exploration draws Thousandths, 0 to
	// 999, for cleanups at any age.)
	Retentions  int
	Thousandths int
	Wait        time.Duration
	// Outage is how long the broker is down from the start of a fix.
	Outage time.Duration
}

func (o Operation) String() string {
	switch {
	case o.Kind == OpCleanup && o.Thousandths > 0:
		s := fmt.Sprintf("%s after %d.%03d retention period(s)", o.Kind, o.Retentions+o.Thousandths/1000, o.Thousandths%1000)
		if o.Wait != 0 {
			s += fmt.Sprintf(" %+v", o.Wait)
		}
		return s
	case o.Kind == OpCleanup && o.Retentions != 0 && o.Wait != 0:
		return fmt.Sprintf("%s after %d retention period(s) %+v", o.Kind, o.Retentions, o.Wait)
	case o.Kind == OpCleanup && o.Retentions != 0:
		return fmt.Sprintf("%s after %d retention period(s)", o.Kind, o.Retentions)
	case o.Kind == OpCleanup:
		return fmt.Sprintf("%s after %s", o.Kind, o.Wait)
	case o.Kind == OpFix && o.Outage > 0:
		return fmt.Sprintf("%s, the broker down for %s", o.Kind, o.Outage)
	}
	return string(o.Kind)
}

// wait returns how long o waits, for a retention period of retention.
func (o Operation) wait(retention time.Duration) time.Duration {
	return max(0, time.Duration(o.Retentions)*retention+time.Duration(o.Thousandths)*retention/1000+o.Wait)
}

// DefaultOperations are the operator's work in the matrix and the
// stories: cleanups at once, hours later, just under and just over the
// retention period and weeks later, while the dead letters wait; a replay
// before the causes are fixed; the fix, its replay meeting a minute's
// outage; cleanups of what the replay sent, hours later, then just under
// and just over the retention period from its send, with the replay run
// once more between them. Every path is a situation the reference reaches
// in the matrix (OperatorSituations).
func DefaultOperations() []Operation {
	return []Operation{
		{Kind: OpCleanup},
		{Kind: OpCleanup, Wait: 2 * time.Hour},
		{Kind: OpReplayUnfixed},
		{Kind: OpCleanup, Retentions: 1, Wait: -3 * time.Hour},
		{Kind: OpCleanup, Wait: 2 * time.Hour},
		{Kind: OpCleanup, Retentions: 4},
		{Kind: OpFix, Outage: time.Minute},
		{Kind: OpCleanup, Wait: 2 * time.Hour},
		{Kind: OpReplayAgain},
		{Kind: OpCleanup, Retentions: 1, Wait: -3 * time.Hour},
		{Kind: OpCleanup, Wait: 2 * time.Hour},
	}
}

// operations returns the run's operations: Operations, or the default.
func (c Config) operations() []Operation {
	if c.Operations == nil {
		return DefaultOperations()
	}
	return c.Operations
}

// operatorLog is what the operator's work leaves for the checks.
type operatorLog struct {
	// selective are the targets replayed one at a time, in order, and
	// full how many times everything was replayed (for OpReplayAgain).
	selective []selectiveReplay
	full      int
	// unfixedReplays counts the replays before a fix that put dead
	// letters back: each gives them another round of attempts; duringRun
	// those of them during the run (FaultOperatorReplay), before the
	// operator's work after quiesce.
	unfixedReplays, duringRun int
	// putBacks counts, for each message, the operator's replay commands
	// that put it back from DEAD_LETTER in the outbox: each gives it
	// another round of attempts, however many the operator needed.
	putBacks map[string]int
	// vanished are the dead letters a replay put back that then were
	// neither dead letters again, nor delivered, nor waiting.
	vanished []variant.DeadLetter
	// resets are the rows a replay changed that were no dead letters.
	resets []check.ReplayReset
	// outages are the broker's outages during the operator's fixes.
	outages []time.Duration
	// situations are what the operator's work went through.
	situations map[Situation]int
}

// operate does the operator's work.
func (w *world) operate(ops []Operation) error {
	w.phase("operate")
	for _, op := range ops {
		var err error
		switch op.Kind {
		case OpCleanup:
			w.clock.Set(w.clock.Now().Add(op.wait(w.relayPolicy.Retention)))
			err = w.cleanup()
		case OpReplayUnfixed:
			err = w.replayUnfixed()
		case OpFix:
			err = w.fix(op.Outage)
		case OpReplayAgain:
			err = w.replayAgain()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// note counts a situation of the operator's work.
func (w *world) note(s Situation, n int) {
	if n <= 0 {
		return
	}
	if w.ops.situations == nil {
		w.ops.situations = map[Situation]int{}
	}
	w.ops.situations[s] += n
}

// operator records what the operator does in the trace: action in
// English, says in both languages.
func (w *world) operator(says lang.Text) {
	if w.cfg.Trace {
		w.record(Event{Process: "operator", Kind: EventCommand, Action: says.EN, Says: says})
	}
}

// replayUnfixed is the operator who replays every dead letter before
// fixing anything: each must be a dead letter again once the system is
// quiet (ReplayedBeforeFix), or delivered, or still on its way; one that
// is none of these vanished.
func (w *world) replayUnfixed() error {
	before := w.deadLetters(w.unsentMessages())
	if len(before) == 0 {
		return nil
	}
	w.phase("replay-unfixed")
	w.operator(lang.Text{EN: "replay the dead letters, causes not fixed", DE: "Dead Letters wieder einspielen, Ursachen nicht behoben"})
	if err := w.replayDeadLetters(); err != nil && !errors.As(err, new(replayError)) {
		return err // a replay's error is what the operator expects here: the cause is not fixed
	}
	w.ops.unfixedReplays++
	if _, _, err := w.runUntilQuiet(w.clock.Now().Add(w.cfg.Horizon)); err != nil {
		return err
	}
	again := w.deadLetterIDs()
	for _, d := range before {
		if again[d.MessageID] {
			w.note(ReplayedBeforeFix, 1)
		}
	}
	w.checkVanished(before, again)
	return nil
}

// putBack runs one of the operator's replay commands and counts, for each
// outbox dead letter the command was for, that it put it back
// (ops.putBacks): a command for every dead letter (target's zero value),
// or for one order's of one event type. A message put back that the
// command was not for is not counted: its extra attempts are the
// command's fault (an operator's replay that selects by event type alone
// republishes other orders' messages whose causes are not fixed).
func (w *world) putBack(target selectiveReplay, command func()) {
	before := w.outboxDeadLetters(target)
	others := w.notDeadLetters()
	command()
	w.checkResets(others)
	if len(before) == 0 {
		return
	}
	after := w.outboxDeadLetters(target)
	for _, id := range before {
		if !slices.Contains(after, id) {
			if w.ops.putBacks == nil {
				w.ops.putBacks = map[string]int{}
			}
			w.ops.putBacks[id]++
		}
	}
}

// notDeadLetters returns the outbox's unsent rows that are no dead
// letters, what an operator's replay must leave as they are.
func (w *world) notDeadLetters() []outbox.Message {
	var out []outbox.Message
	w.eachUnsent(func(m outbox.Message) {
		if m.Status != outbox.DeadLetter {
			out = append(out, m)
		}
	})
	return out
}

// checkResets notes each row of before, none a dead letter, that an
// operator's replay command changed (ops.resets): its state, attempts,
// next attempt or count of replays.
func (w *world) checkResets(before []outbox.Message) {
	if len(before) == 0 {
		return
	}
	tx := w.orderDB.Begin("operator")
	defer tx.Rollback()
	for _, b := range before {
		m, ok := outbox.Get(tx, b.Key)
		if ok && (m.Status != b.Status || m.Attempts != b.Attempts || !m.NextAttemptAt.Equal(b.NextAttemptAt) || m.Replays != b.Replays) {
			w.ops.resets = append(w.ops.resets, check.ReplayReset{At: w.clock.Now(), Before: b, After: m})
		}
	}
}

// outboxDeadLetters returns the ids of the outbox's dead letters now that
// target is for: every one (its zero value), or those of its order and
// event type.
func (w *world) outboxDeadLetters(target selectiveReplay) []string {
	var out []string
	for _, m := range w.unsentMessages() {
		if m.Status == outbox.DeadLetter && (target == selectiveReplay{} || m.Event.AggregateID == target.AggregateID && m.Event.Type == target.Type) {
			out = append(out, m.ID)
		}
	}
	return out
}

// deadLetterIDs returns the message ids of every dead letter now.
func (w *world) deadLetterIDs() map[string]bool {
	out := map[string]bool{}
	for _, d := range w.deadLetters(w.unsentMessages()) {
		out[d.MessageID] = true
	}
	return out
}

// checkVanished notes the dead letters of before that a replay put back
// and that are now neither dead letters (dead), nor applied by billing,
// nor held by it, nor waiting in the outbox: they vanished.
func (w *world) checkVanished(before []variant.DeadLetter, dead map[string]bool) {
	if len(before) == 0 {
		return // nothing was put back: nothing can have vanished
	}
	accounted := map[broker.Target]bool{}
	for _, e := range w.ledger() {
		accounted[broker.Target{AggregateID: e.OrderID, Sequence: e.Sequence}] = true
	}
	for _, p := range w.held() {
		accounted[broker.Target{AggregateID: p.Envelope.Event.AggregateID, Sequence: p.Envelope.Event.Sequence}] = true
	}
	for _, m := range w.unsentMessages() {
		accounted[broker.Target{AggregateID: m.Event.AggregateID, Sequence: m.Event.Sequence}] = true
	}
	for _, d := range before {
		if !dead[d.MessageID] && !accounted[broker.Target{AggregateID: d.AggregateID, Sequence: d.Sequence}] {
			w.ops.vanished = append(w.ops.vanished, d)
		}
	}
}

// fix is the operator who fixes every cause and replays the dead letters
// (see OpFix), the broker down for outage from the start.
func (w *world) fix(outage time.Duration) error {
	w.phase("replay")
	if outage > 0 && (len(w.broker.Rejections()) > 0 || len(w.deadLetters(w.unsentMessages())) > 0) {
		now := w.clock.Now()
		w.broker.Outage(now, now.Add(outage))
		w.ops.outages = append(w.ops.outages, outage)
		w.operator(lang.Textf(lang.Text{EN: "fix the causes (the broker is down until %s)", DE: "die Ursachen beheben (der Broker ist bis %s nicht erreichbar)"}, TimeText(now.Add(outage).Sub(Epoch))))
	}
	_, refused := w.broker.Publishes()
	if err := w.replayEachCause(w.cfg.Horizon); err != nil {
		return err
	}
	w.broker.FixRejections()
	w.broker.FixPoison()
	if err := w.replayUntilSettled(w.cfg.Horizon); err != nil {
		return err
	}
	if _, after := w.broker.Publishes(); w.ops.full+len(w.ops.selective) > 0 && outage > 0 {
		w.note(ReplayRefused, after-refused)
	}
	return nil
}

// replayAgain is the operator who runs the replays made so far once more:
// the selective ones, then everything.
func (w *world) replayAgain() error {
	if w.ops.full+len(w.ops.selective) == 0 {
		return nil
	}
	w.phase("replay-again")
	w.operator(lang.Text{EN: "replay once more, as before", DE: "noch einmal wieder einspielen, wie zuvor"})
	relayProc, selective := w.selectiveReplayer()
	for _, t := range w.ops.selective {
		if relayProc == nil {
			break
		}
		_, refused := w.broker.Publishes()
		var err error
		w.putBack(t, func() {
			w.on(relayProc, func() { _, err = selective.ReplayDeadLettersOf(t.AggregateID, t.Type) })
		})
		if err != nil && !errors.Is(err, effect.ErrCrashed) {
			w.replayFailed(relayProc, err, refused)
		}
	}
	if w.ops.full > 0 {
		if err := w.replayDeadLetters(); err != nil && !errors.As(err, new(replayError)) {
			return err
		}
	}
	w.note(ReplayedTwice, 1)
	_, _, err := w.runUntilQuiet(w.clock.Now().Add(w.cfg.Horizon))
	return err
}

// Cleaner is a relay with a retention cleanup (the reference relay has
// one: outbox.Relay.Cleanup).
type Cleaner interface {
	Cleanup() (int, error)
}

// cleanup runs the retention cleanup on the first live relay that has one,
// and notes what it kept that it had to keep (see keptSituations).
func (w *world) cleanup() error {
	for _, p := range w.procs {
		c, ok := p.relay.(Cleaner)
		if !p.alive || !ok {
			continue
		}
		w.settle(p)
		if w.cfg.Trace {
			w.record(Event{Process: p.name, Kind: EventCommand, Action: "retention cleanup", Says: lang.Text{EN: "retention cleanup", DE: "Aufbewahrungsbereinigung"}})
		}
		w.follow() // the rows before the cleanup, for keptSituations
		from := w.orderDB.LastSeq()
		var err error
		w.on(p, func() { _, err = c.Cleanup() })
		if err != nil && !errors.Is(err, effect.ErrCrashed) {
			return fmt.Errorf("sim: cleanup on %s: %w", p.name, err)
		}
		w.keptSituations(from)
		return nil
	}
	return nil
}

// ledger returns billing's ledger, as books reads it.
func (w *world) ledger() []billing.Entry {
	if !w.orderDB.HasTable(insurance.TableClaims) {
		return w.billingLedger() // without the orders and accounts books reads too
	}
	_, ledger, _ := w.books()
	return ledger
}

// keptSituations notes, of the rows a cleanup kept (as they were before
// it, when the order database's last commit was from), the SENT messages
// within two hours of the end of their retention period (RetentionKept),
// those sent within it but created before it (ReplayedKept: a cleanup by
// creation age deletes them), and the dead letters older than it
// (DeadLetterKept). The rows before it are the ones the reader of the
// commit log holds, which follow fed up to from before the cleanup began.
func (w *world) keptSituations(from uint64) {
	if !w.orderDB.HasTable(outbox.Table) {
		return
	}
	// A row the cleanup kept is one still there; one it did not write
	// is, so a cleanup that committed nothing kept every row.
	committed := len(w.orderDB.Log(from)) > 0
	// A row is as old as the retention period when it is from old or
	// before, and within two hours of its end when it is from soon or
	// before (now less the period, and less two hours less).
	now, retention := w.clock.Now(), w.relayPolicy.Retention
	old, soon := now.Add(-retention), now.Add(2*time.Hour-retention)
	var retentionKept, replayedKept, deadLetterKept int
	w.log.reader.Outbox(func(key string, m *outbox.Message) { // counted in any order: a sum
		if committed {
			if _, kept := w.orderDB.Get(outbox.Table, key); !kept {
				return
			}
		}
		switch m.Status {
		case outbox.Sent:
			switch {
			case !m.SentAt.After(old):
			case !m.SentAt.After(soon):
				retentionKept++
			case !m.CreatedAt.After(old):
				replayedKept++
			}
		case outbox.DeadLetter:
			if !m.CreatedAt.After(old) {
				deadLetterKept++
			}
		}
	})
	w.note(RetentionKept, retentionKept)
	w.note(ReplayedKept, replayedKept)
	w.note(DeadLetterKept, deadLetterKept)
}

// selectiveReplayer returns the first live relay that replays
// selectively, if any.
func (w *world) selectiveReplayer() (*proc, variant.SelectiveReplayer) {
	for _, p := range w.procs {
		if r, ok := p.relay.(variant.SelectiveReplayer); ok && p.alive {
			return p, r
		}
	}
	return nil, nil
}
