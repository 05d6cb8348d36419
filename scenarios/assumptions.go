package scenarios

import (
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/sim"
)

// Assumptions are the rows a grading at depth course plays beside the
// matrix, each to contradict one thing code may assume that no matrix
// row, sweep or exploration contradicts: an order has fewer than ten
// events, a payload has no field its contract does not name, the
// messages ahead of a due one are fewer than a batch, the relay that
// cleans up has the true time, a relay does not restart once a dead
// letter exists. Each runs once, with one relay (the rows
// are not columns of the matrix: its table and the mistakes'
// declarations stay as they are). `labrun scenario ROW` plays one.
func Assumptions() []sim.Point {
	return []sim.Point{elevenEvents(), extraField(), blockedBacklog(), skewedCleanup(), restartsAfterDeadLetter()}
}

// elevenEvents is the eleven-events row: o-1 is placed and amended ten
// times, so that its sequence numbers reach two digits. A consumer that
// compares them as text takes #10 for older than #9 ("10" < "9") and
// drops every event from the tenth on.
func elevenEvents() sim.Point {
	workload := []sim.Command{{At: 0, Command: orders.Command{Kind: orders.Place, OrderID: "o-1", Amount: domain.MustMoney("10.00", "EUR")}}}
	for i := 1; i <= 10; i++ {
		workload = append(workload, sim.Command{At: time.Duration(i) * time.Second, Command: orders.Command{
			Kind: orders.Amend, OrderID: "o-1", Amount: domain.Money{Minor: int64(100 + i), Currency: "EUR"}, Text: fmt.Sprintf("line %d", i)}})
	}
	return sim.Point{ID: "eleven-events", Kind: sim.KindFault, Relays: 1, Workload: workload, Description: lang.Text{
		EN: "o-1 is placed and amended ten times: its sequence numbers reach #11",
		DE: "o-1 wird aufgegeben und zehnmal geändert: ihre Sequenznummern reichen bis #11",
	}}
}

// extraField is the extra-field row: the standard workload, o-1#2 with a
// field billing's code has never heard of, under the same type and
// version (chapter 000 section 9: a compatible change, which a tolerant
// reader ignores; the story compatible-change tells it).
func extraField() sim.Point {
	return sim.Point{ID: "extra-field", Kind: sim.KindFault, Relays: 1, Description: lang.Text{
		EN: "o-1#2 arrives with a field billing does not know yet, type and version unchanged",
		DE: "o-1#2 kommt mit einem Feld an, das Billing noch nicht kennt, Typ und Version unverändert",
	}, Faults: []sim.Fault{{Kind: sim.FaultExtraField, Target: broker.Target{AggregateID: "o-1", Sequence: 2}}}}
}

// blockedBacklog is the blocked-backlog row: the broker refuses o-1#1
// until its cause is fixed, while o-1 is amended a hundred times; then
// o-2 is placed. The hundred and one messages of o-1 wait behind their
// refused head, more than the reference's batch of 100; o-2 is due at
// once. A relay that reads a batch's worth of unsent rows and only then
// looks for due ones (LIMIT before the filter) never reaches o-2 while
// o-1 waits. A variant that fails the rejected row fails here the more
// (Like).
func blockedBacklog() sim.Point {
	workload := []sim.Command{{At: 0, Command: orders.Command{Kind: orders.Place, OrderID: "o-1", Amount: domain.MustMoney("10.00", "EUR")}}}
	for i := 1; i <= 100; i++ {
		workload = append(workload, sim.Command{At: time.Duration(i) * 100 * time.Millisecond, Command: orders.Command{
			Kind: orders.Amend, OrderID: "o-1", Amount: domain.MustMoney("0.01", "EUR"), Text: fmt.Sprintf("l%d", i)}})
	}
	workload = append(workload, sim.Command{At: 20 * time.Second, Command: orders.Command{Kind: orders.Place, OrderID: "o-2", Amount: domain.MustMoney("5.00", "EUR")}})
	return sim.Point{ID: "blocked-backlog", Kind: sim.KindFault, Relays: 1, Like: string(sim.FaultRejected), Workload: workload, Description: lang.Text{
		EN: "the broker refuses o-1#1 until fixed while o-1 is amended a hundred times; then o-2 is placed, due at once behind 101 waiting messages",
		DE: "der Broker weist o-1#1 ab, bis das behoben ist, während o-1 hundertmal geändert wird; dann wird o-2 aufgegeben, sofort fällig hinter 101 wartenden Nachrichten",
	}, Faults: []sim.Fault{{Kind: sim.FaultRejected, Target: broker.Target{AggregateID: "o-1", Sequence: 1}}}}
}

// skewedCleanup is the skewed-cleanup row: the standard workload with
// relay-1's own clock two hours ahead (a host whose time zone is set
// wrong), relay-1 the relay the operator's retention cleanups run on.
// The operator's cleanup an hour before the retention period ends must
// delete nothing: a cleanup that takes its cutoff from the host's clock
// instead of the database's deletes SENT messages an hour early.
func skewedCleanup() sim.Point {
	return sim.Point{ID: "skewed-cleanup", Kind: sim.KindFault, Relays: 1, Description: lang.Text{
		EN: "relay-1's own clock runs two hours ahead, and the retention cleanups run on relay-1",
		DE: "die eigene Uhr von relay-1 geht zwei Stunden vor, und die Aufbewahrungsbereinigungen laufen auf relay-1",
	}, Faults: []sim.Fault{{Kind: sim.FaultClockSkew, Process: "relay-1", Skew: 2 * time.Hour}}}
}

// restartsAfterDeadLetter is the restarts-after-dead-letter row: the
// broker refuses o-1#1 for good, the relay gives it up as a dead letter
// (after about 13 minutes with the course's policy), and then relay-1 is
// killed and restarts three times, half an hour apart (a crash loop). A
// dead letter waits for the operator's decision: a relay that replays its
// dead letters at every start takes it from the operator and sends the
// refused message again and again (STORM). Each order has one event,
// so that none waits behind a dead letter. The broker refuses o-2#1 (o-2
// placed ten minutes in) for good too, and at 14 minutes, o-1#1 a dead
// letter, o-2#1 still retried, the operator replays the dead letters
// (sim.FaultOperatorReplay): a replay that resets FAILED rows too erases
// o-2#1's retry history (STORM, sim/check.ReplayReset). A variant that
// fails the rejected row fails here the more (Like).
func restartsAfterDeadLetter() sim.Point {
	faults := []sim.Fault{
		{Kind: sim.FaultRejected, Target: broker.Target{AggregateID: "o-1", Sequence: 1}},
		{Kind: sim.FaultRejected, Target: broker.Target{AggregateID: "o-2", Sequence: 1}},
		{Kind: sim.FaultOperatorReplay, From: 14 * time.Minute},
	}
	for _, at := range []time.Duration{30 * time.Minute, 60 * time.Minute, 90 * time.Minute} {
		faults = append(faults, sim.Fault{Kind: sim.FaultKill, Process: "relay-1", From: at})
	}
	workload := []sim.Command{
		{At: 0, Command: orders.Command{Kind: orders.Place, OrderID: "o-1", Amount: domain.MustMoney("10.00", "EUR")}},
		{At: 10 * time.Minute, Command: orders.Command{Kind: orders.Place, OrderID: "o-2", Amount: domain.MustMoney("5.00", "EUR")}},
	}
	return sim.Point{ID: "restarts-after-dead-letter", Kind: sim.KindFault, Relays: 1, Like: string(sim.FaultRejected), Workload: workload, Description: lang.Text{
		EN: "the broker refuses o-1#1 and o-2#1 for good; the operator replays the dead letters while o-2#1 is still retried; relay-1 is killed and restarts three times, half an hour apart",
		DE: "der Broker weist o-1#1 und o-2#1 dauerhaft ab; der Operator spielt die Dead Letters wieder ein, während o-2#1 noch wiederholt wird; relay-1 wird dreimal im Abstand einer halben Stunde beendet und neu gestartet",
	}, Faults: faults}
}

// findAssumption returns the Assumptions row with that id.
func findAssumption(id string) (sim.Point, bool) {
	for _, p := range Assumptions() {
		if p.ID == id {
			return p, true
		}
	}
	return sim.Point{}, false
}
