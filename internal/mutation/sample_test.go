package mutation

import (
	"strings"
	"testing"

	"outboxlab/internal/longtest"
)

// sample are mutants of the reference path the lab's matrix must catch,
// one or two per file, with the first cell that goes red (the cells run in
// the matrix's order) and so the check that catches it there: LOST,
// STORM, GAVE_UP, UNSAFE, STUCK, MISMATCH, LATE, an error returned that the
// process should have handled itself. (No mutant of the reference
// path is PHANTOM first: an order the service never stored, which billing
// bills, is first a command answered with success and not committed,
// LOST; publish-first keeps PHANTOM's own check in the matrix.) A check switched off
// moves the first red cell or lets the mutant through, and fails the
// test. A change to the reference that renames or removes one of them
// fails here with its key: pick another (go run ./cmd/labwhy lists them
// all).
var sample = []struct{ key, first string }{
	{"orders/service.go:Decide:delete:tx.Put(Table, o.ID, o)",
		"service.before-commit@1: LOST"},
	{`orders/service.go:Handle:delete:if _, err := outbox.Append(tx, s.IDs.NewID(), event, now); err != nil { return fmt.Errorf("orders: %s: %w", c, err) }`,
		"service.before-commit@1: LOST"},
	{"outbox/message.go:MarkFailed:delete:m.Attempts++",
		"broker-outage: STORM"},
	{"outbox/message.go:MarkFailed:negate:m.Attempts >= maxAttempts",
		"broker-outage: GAVE_UP"},
	{"outbox/message.go:MarkFailed:bound:m.Attempts >= maxAttempts",
		"rejected: STORM"},
	{"outbox/message.go:MarkFailed:delete:m.Status, m.NextAttemptAt = Failed, retryAt",
		"broker-outage: GAVE_UP"},
	{`outbox/message.go:MarkFailed:delete:if err := m.checkLease(owner, now); err != nil { return fmt.Errorf("mark failed: %w", err) }`,
		"stall-outage: UNSAFE"},
	{"outbox/message.go:Release:drop-right:m.LeaseOwner != owner",
		"stall-release: UNSAFE"},
	{`outbox/message.go:Release:delete:m.Status, m.LeaseOwner, m.ClaimedAt, m.LeaseUntil = Pending, "", time.Time{}, time.Time{}`,
		"relay.after-claim@1: LATE"},
	{"outbox/message.go:Replay:negate:m.Status != DeadLetter",
		"rejected: LOST"},
	{"inbox/consumer.go:process:drop-right:errors.Is(err, domain.ErrUnknownVersion)",
		"unknown-contract: STORM"},
	{"inbox/consumer.go:drainParked:delete:tx.Delete(TableParked, key)",
		"reorder: STUCK"},
	{"inbox/consumer.go:countFailure:bound:n >= c.cfg.MaxAttempts",
		"poison: STORM"},
	{"outbox/relay.go:recordFailure:delete:tx.Put(Table, cur.Key, cur) (2)",
		"broker-outage: LATE"},
	{"outbox/relay.go:Step:delete:r.failedSteps = 0",
		"rejected: LATE"},
	{"outbox/relay.go:matches:drop-right:f.AggregateID == m.Event.AggregateID",
		"rejected: STUCK"},
	{"outbox/relay.go:ReplayDeadLetters:drop-right:f.matches(m)",
		"rejected: STORM"},
	{"outbox/relay.go:Step:delete:r.pausedUntil = r.Clock.Now().Add(r.cfg.Pause(r.failedSteps))",
		"outage-backlog: STORM"},
	{"outbox/relay.go:ClaimDue:negate:blocked[agg]",
		"service.before-commit@1: STUCK"},
	{"outbox/relay.go:ClaimDue:delete:tx.Put(Table, m.Key, m)",
		"service.before-commit@1: STUCK"},
	{"outbox/relay.go:recordSent:delete:err = r.Gate.Cross(BoundaryMark, tx.Commit)",
		"service.before-commit@1: STUCK"},
	{"outbox/maintenance.go:Cleanup:negate:m.Status == Sent && m.SentAt.Before(cutoff)",
		"service.before-commit@1: UNSAFE"},
	{"outbox/maintenance.go:Cleanup:delete:tx.Delete(Table, key)",
		"rejected: never reached [cleaned-up]"},
	{"inbox/consumer.go:process:delete:tx.Put(TableParked, key, Parked{Envelope: env, Reason: fmt.Sprintf(\"waiting for #%d\", applied+1), At: now})",
		"reorder: LOST"},
	{"inbox/consumer.go:apply:delete:SetApplied(tx, event.AggregateID(), event.Seq())",
		"service.before-commit@1: LOST"},
	{"inbox/consumer.go:handle:delete:err = c.Gate.Cross(BoundaryCommit, tx.Commit)",
		"service.before-commit@1: LOST"},
	{"inbox/consumer.go:handle:negate:done",
		"service.before-commit@1: LOST"},
	{"inbox/consumer.go:drainParked:delete:err = c.apply(tx, p.Envelope.ID, event, now)",
		"reorder: LOST"},
	{"inbox/consumer.go:ReplayDeadLetters:delete:tx.Delete(TableDead, key)",
		"poison: LOST"},
	{"billing/ledger.go:ApplyEffect:delete:entry.Kind, entry.Amount = Invoice, ev.Total",
		"service.before-commit@1: MISMATCH"},
	{"billing/ledger.go:ApplyEffect:delete:acc.Billed = ev.Total",
		"service.before-commit@1: MISMATCH"},
	{"inbox/consumer.go:Step:negate:!parked",
		"poison: LOST"},
	{"inbox/consumer.go:drainParked:delete:tx.Put(TableDead, p.Envelope.ID, Parked{Envelope: p.Envelope, Reason: err.Error(), At: now})",
		"wrong-currency: LOST"},
	{`billing/ledger.go:ApplyEffect:delete:if err != nil { return fmt.Errorf("billing: %s#%d: %w", entry.OrderID, entry.Sequence, err) }`,
		"wrong-currency: MISMATCH"},
	{"inbox/consumer.go:countFailure:negate:n >= c.cfg.MaxAttempts",
		"corrupt-once: GAVE_UP"},
	{"outbox/relay.go:Recover:negate:errors.Is(err, store.ErrConflict)",
		"recover-conflict: unhandled error relay-1: outbox: recover: store orders: commit: outbox/000000000002: write conflict: another transaction committed this row first"},
}

// TestASampleOfMutantsIsCaught builds the sample's mutants into the grader
// and grades each with the matrix until a cell goes red: every one must. A change that
// blinds the lab to one of them (a check switched off, a row removed)
// fails here, within go test ./... (the build is cached after the first
// run; -short skips it).
func TestASampleOfMutantsIsCaught(t *testing.T) {
	longtest.Only(t, "mutation_weakened", "no case: the mutation job grades every mutant")
	if testing.Short() {
		t.Skip("builds the mutants")
	}
	all, err := Generate("../..", Reference)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]Mutant{}
	for _, m := range all {
		byKey[m.Key] = m
	}
	var ms []Mutant
	first := map[string]string{}
	for _, c := range sample {
		m, ok := byKey[c.key]
		if !ok {
			t.Fatalf("no mutant %q in the reference any more: pick another for the sample", c.key)
		}
		ms = append(ms, m)
		first[c.key] = c.first
	}
	schemata, err := Schemata("../..", ms)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range schemata {
		bin, err := Build(t.TempDir(), "../..", "./cmd/labwhy", s)
		if err != nil {
			t.Fatal(err)
		}
		results, err := Grade(bin, []string{"-quick"}, s.Mutants, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			m := all[r.ID]
			switch {
			case !r.Killed():
				t.Errorf("%s:%d %s: the lab's matrix no longer catches it", m.File, m.Line, m.Change)
			case len(r.Failed) == 0 || r.Failed[0] != first[m.Key]:
				t.Errorf("%s:%d %s: first red %q %s, want %q", m.File, m.Line, m.Change, strings.Join(r.Failed, "; "), r.Crashed, first[m.Key])
			}
		}
	}
}
