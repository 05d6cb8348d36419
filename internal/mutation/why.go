package mutation

import (
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"
)

// Reason explains a mutant the lab does not catch.
type Reason struct {
	// Kind is "equivalent" (the change cannot alter what the system does),
	// or "blind spot" (it can, and the lab does not see it: a gap, noted).
	Kind string
	Why  string
}

// Analysis is the mutants and what the lab said about each.
type Analysis struct {
	Mutants []Mutant
	Results map[int]Result
	Took    time.Duration
}

// NewAnalysis puts mutants and their results together.
func NewAnalysis(ms []Mutant, rs []Result, took time.Duration) Analysis {
	a := Analysis{Mutants: ms, Results: map[int]Result{}, Took: took}
	for _, r := range rs {
		a.Results[r.ID] = r
	}
	return a
}

// Score counts a group of mutants.
type Score struct {
	Group   string
	Mutants int
	Killed  int
	// Equivalent counts the survivors that cannot change what the system
	// does, or only its metrics: they are not counted against the lab.
	Equivalent int
	// Gap counts the other survivors: blind spots, named or not.
	Gap int
}

// Percent is the share of mutants killed among those not equivalent.
func (s Score) Percent() float64 {
	if s.Mutants == s.Equivalent {
		return 100
	}
	return 100 * float64(s.Killed) / float64(s.Mutants-s.Equivalent)
}

// Scores returns the score per package and overall (last).
func (a Analysis) Scores() []Score {
	byPkg := map[string]*Score{}
	var pkgs []string
	total := &Score{Group: "overall"}
	for _, m := range a.Mutants {
		p := path.Dir(m.File)
		s := byPkg[p]
		if s == nil {
			s = &Score{Group: p}
			byPkg[p] = s
			pkgs = append(pkgs, p)
		}
		for _, t := range []*Score{s, total} {
			t.Mutants++
			switch {
			case a.caught(m):
				t.Killed++
			case Explain(m).Kind == "equivalent" || Explain(m).Kind == "metrics":
				t.Equivalent++
			default:
				t.Gap++
			}
		}
	}
	sort.Strings(pkgs)
	var out []Score
	for _, p := range pkgs {
		out = append(out, *byPkg[p])
	}
	return append(out, *total)
}

// caught reports whether the lab caught m: a row went red without it,
// and not only because the row's own setup did not happen (Unearned).
func (a Analysis) caught(m Mutant) bool {
	_, unearned := Unearned[m.Key]
	return a.Results[m.ID].Killed() && !unearned
}

// survivors returns the mutants the lab did not catch, in order.
func (a Analysis) survivors() []Mutant {
	var out []Mutant
	for _, m := range a.Mutants {
		if !a.caught(m) {
			out = append(out, m)
		}
	}
	return out
}

// Unexplained counts the survivors that neither Survivors, Unearned nor
// a rule explains.
func (a Analysis) Unexplained() int {
	n := 0
	for _, m := range a.survivors() {
		if Explain(m).Kind == "" {
			n++
		}
	}
	return n
}

// WriteSummary prints the score and the survivors.
func (a Analysis) WriteSummary(w io.Writer) {
	fmt.Fprintf(w, "%d mutants of the reference path", len(a.Mutants))
	if a.Took > 0 {
		fmt.Fprintf(w, ", graded in %v", a.Took.Round(time.Second))
	}
	fmt.Fprint(w, "\n\n")
	writeScores(w, a.Scores())
	surv := a.survivors()
	if len(surv) == 0 {
		fmt.Fprintln(w, "\nNo survivors.")
		return
	}
	fmt.Fprintf(w, "\nSurvivors (%d):\n", len(surv))
	for _, m := range surv {
		reason := Explain(m)
		if reason.Kind == "" {
			reason = Reason{"unexplained", "the lab does not catch it, and nobody said why"}
		}
		fmt.Fprintf(w, "  %s:%d %s: %s\n    %s: %s\n    key: %s\n", m.File, m.Line, m.Func, m.Change, reason.Kind, reason.Why, m.Key)
	}
}

func writeScores(w io.Writer, scores []Score) {
	fmt.Fprintf(w, "%-10s %8s %8s %11s %10s %7s\n", "package", "mutants", "killed", "equivalent", "survivors", "score")
	for _, s := range scores {
		fmt.Fprintf(w, "%-10s %8d %8d %11d %10d %6.1f%%\n", s.Group, s.Mutants, s.Killed, s.Equivalent, s.Gap, s.Percent())
	}
}

// maxRows bounds the rows a note lists.
const maxRows = 4

// notes say, for the mutants of one line, which rows need it, and which
// changes the lab does not catch.
func (a Analysis) notes(ms []Mutant) []string {
	var rows []string
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		r := a.Results[m.ID]
		if !a.caught(m) {
			reason := Explain(m)
			if reason.Kind == "" {
				reason.Kind = "unexplained survivor"
			}
			out = append(out, fmt.Sprintf("%s: not caught (%s)", oneLine(m.Change), reason.Kind))
			continue
		}
		failed := r.Failed
		if r.Crashed != "" {
			failed = append([]string{"the program itself: " + r.Crashed}, failed...)
		}
		for _, f := range failed {
			if !seen[f] {
				seen[f] = true
				rows = append(rows, f)
			}
		}
	}
	if len(rows) > 0 {
		note := "needed by: " + strings.Join(rows[:min(len(rows), maxRows)], "; ")
		if len(rows) > maxRows {
			note += fmt.Sprintf("; +%d more", len(rows)-maxRows)
		}
		out = append([]string{note}, out...)
	}
	return out
}

// Unearned are mutants a row flags only because its own setup did not
// happen, by Key, with why they are equivalent: the score counts them as
// survivors, with their reason, not as caught.
var Unearned = map[string]Reason{
	"outbox/relay.go:Recover:delete:if released == 0 { return 0, nil }": {"equivalent",
		"a recovery with nothing to release then commits an empty transaction, which changes nothing; the recover-conflict row flags it only because its freeze, planned for the restart's recovery, strikes at this empty commit of the relay's first start"},
}

// Survivors are mutants the lab does not catch, by Key, with why: what
// the rules of Explain do not cover.
var Survivors = map[string]Reason{
	"outbox/message.go:Claim:swap:if !ok || now.Before(at) { return fmt.Errorf(\"claim %s: %w: %s\", m.String(), ErrIllegalTransition, m.why(now)) } m.Status, m.LeaseOwner, m.ClaimedAt, m.LeaseUntil = InFlight, owner, now, leaseUntil": {"equivalent",
		"a refused claim changes a copy nobody writes: ClaimDue writes only the messages it claimed"},
	"outbox/message.go:checkLease:delete:if m.Status != InFlight { return fmt.Errorf(\"%s: %w: status %s\", m.String(), ErrIllegalTransition, m.Status) }": {"equivalent",
		"no state but IN_FLIGHT has a lease owner (a message starts without one; MarkSent, MarkFailed and Release clear it), so the owner check below refuses the same writes"},
	"outbox/message.go:checkLease:swap:if m.Status != InFlight { return fmt.Errorf(\"%s: %w: status %s\", m.String(), ErrIllegalTransition, m.Status) } if m.LeaseOwner != owner || !now.Before(m.LeaseUntil) { return fmt.Errorf(\"%s: %w: %s holds it until %s, %s asked at %s\", m.String(), ErrLeaseLost, m.LeaseOwner, m.LeaseUntil.Format(time.RFC3339), owner, now.Format(time.RFC3339)) }": {"equivalent",
		"either check refuses; the only difference is which error, and every caller treats ErrLeaseLost and ErrIllegalTransition alike"},
	"outbox/message.go:MarkSent:delete:m.LeaseOwner, m.ClaimedAt, m.LeaseUntil = \"\", time.Time{}, time.Time{}": {"equivalent",
		"a SENT message is never written again (the status check refuses; Claim, Release and Recover skip it), so its stale lease fields are never read"},
	"outbox/message.go:MarkFailed:swap:if err := m.checkLease(owner, now); err != nil { return fmt.Errorf(\"mark failed: %w\", err) } m.Attempts++": {"equivalent",
		"a refused mark changes a copy nobody writes: recordFailure writes the message only when MarkFailed succeeded"},
	"outbox/message.go:MarkFailed:delete:m.LastError = cause": {"metrics",
		"the error text is what an operator reads (a dead letter's reason); the lab does not check it"},
	"outbox/message.go:MarkFailed:swap:m.LastError = cause m.LeaseOwner, m.ClaimedAt, m.LeaseUntil = \"\", time.Time{}, time.Time{}": {"equivalent",
		"two writes of different fields, neither reading the other: in either order the same"},
	"outbox/message.go:MarkFailed:delete:m.LeaseOwner, m.ClaimedAt, m.LeaseUntil = \"\", time.Time{}, time.Time{}": {"equivalent",
		"a FAILED or DEAD_LETTER message is claimed again (which sets the lease anew) or replayed, never marked or released, so its stale lease fields are never read"},
	"outbox/message.go:MarkFailed:swap:if m.Attempts >= maxAttempts { m.Status, m.NextAttemptAt = DeadLetter, time.Time{} return nil } m.Status, m.NextAttemptAt = Failed, retryAt": {"equivalent",
		"the dead-letter branch sets status and next attempt itself: in either order the result is the same"},
	"outbox/message.go:MarkFailed:swap:m.LeaseOwner, m.ClaimedAt, m.LeaseUntil = \"\", time.Time{}, time.Time{} if m.Attempts >= maxAttempts { m.Status, m.NextAttemptAt = DeadLetter, time.Time{} return nil }": {"equivalent",
		"a dead letter then keeps its stale lease fields, which nobody reads (a replay sets PENDING, a claim sets them anew)"},
	"outbox/message.go:Replay:delete:if m.Status != DeadLetter { return fmt.Errorf(\"replay %s: %w: only dead letters are replayed\", m.String(), ErrIllegalTransition) }": {"equivalent",
		"ReplayDeadLetters calls Replay only on dead letters"},
	"outbox/relay.go:ClaimDue:swap:if blocked[agg] { return true } if err := m.Claim(r.cfg.Owner, now, now.Add(r.cfg.Lease)); err != nil { blocked[agg] = true return true }": {"equivalent",
		"claiming first changes a copy that a blocked order's message never writes: the check that follows skips it before the write"},
	"outbox/relay.go:ClaimDue:swap:tx.Put(Table, m.Key, m) batch = append(batch, m)": {"equivalent",
		"the write and the local batch touch nothing of each other's"},
	"outbox/relay.go:ClaimDue:delete:if len(batch) == 0 { return nil, nil }": {"equivalent",
		"a claim of nothing then commits an empty transaction, which changes nothing"},
	"outbox/relay.go:ClaimDue:bound:len(batch) < r.cfg.BatchSize": {"blind spot",
		"a batch one larger than configured: no workload of the lab's has more than a hundred messages (BatchSize) due at once, so a batch never fills"},
	"outbox/relay.go:ClaimDue:delete:if blocked[agg] { return true }": {"blind spot",
		"the relay then publishes an order's later events before an earlier one is sent; billing parks them until it arrives, so no effect goes wrong. A consumer that relies on the broker's order per key would apply them out of order: a check of the publish order was tried and also flags cdc (it skips a dead letter) and several mistakes, and waits for a decision"},
	"outbox/relay.go:ClaimDue:delete:blocked[agg] = true": {"blind spot",
		"the relay then publishes an order's later events before an earlier one is sent; billing parks them until it arrives, so no effect goes wrong. A consumer that relies on the broker's order per key would apply them out of order: a check of the publish order was tried and also flags cdc (it skips a dead letter) and several mistakes, and waits for a decision"},
	"outbox/relay.go:recordSent:delete:if !ok { return true, nil }": {"equivalent",
		"a message that is gone reads as the zero message, which the lease check refuses the same way"},
	"outbox/maintenance.go:Cleanup:swap:tx.Delete(Table, key) n++": {"equivalent",
		"the count and the delete touch nothing of each other's: in either order the same"},
	"outbox/maintenance.go:Cleanup:delete:if n == 0 { return 0, nil }": {"equivalent",
		"a cleanup that found nothing then commits an empty transaction, which changes nothing"},
	"outbox/maintenance.go:Cleanup:swap:if n == 0 { return 0, nil } if err := r.Gate.Cross(BoundaryCleanup, tx.Commit); err != nil { return 0, fmt.Errorf(\"outbox: cleanup: %w\", err) }": {"equivalent",
		"the commit then comes first, of nothing when nothing was found: the same rows are deleted, and the count returned is the same"},
	"outbox/relay.go:recordFailure:bound:r.cfg.Jitter > 0": {"equivalent",
		"the two differ only at Jitter 0, where Backoff multiplies the draw by zero: the retry time is the same"},
	"orders/service.go:Decide:delete:if err != nil { return nil, fmt.Errorf(\"orders: %w\", err) }": {"equivalent",
		"a refused command (an amendment of a cancelled order, drawn in exploration) then goes on with no event, and Handle's encoding refuses it: the command fails all the same, with another message, and nothing is committed"},
	"orders/service.go:Decide:swap:if err != nil { return nil, fmt.Errorf(\"orders: %w\", err) } tx.Put(Table, o.ID, o)": {"equivalent",
		"the order written before the return is written into a transaction that Handle rolls back on the error"},
	"outbox/relay.go:Step:swap:if err != nil { return rep, err } rep.Claimed = len(batch)": {"equivalent",
		"when the claim failed the batch is empty: the report's count is 0 either way"},
	"outbox/relay.go:Step:delete:if errors.Is(err, effect.ErrCrashed) { return rep, fmt.Errorf(\"outbox: send %s: %w\", m.ID, err) }": {"equivalent",
		"a crashed process's next boundary refuses everything: recordFailure's commit returns ErrCrashed too and writes nothing (the production gate never crashes)"},
	"outbox/relay.go:Step:swap:if err != nil { return rep, err } rep.Failed++": {"metrics",
		"it changes only the step's report (StepReport), which the caller reads only without an error"},
	"outbox/relay.go:Step:swap:if err != nil { return rep, err } if lost { rep.LeaseLost++ } else { rep.Sent++ }": {"metrics",
		"it changes only the step's report (StepReport), which the caller reads only without an error"},
	"outbox/relay.go:recordSent:swap:if !ok { return true, nil } if err := cur.MarkSent(r.cfg.Owner, now); err != nil { if errors.Is(err, ErrLeaseLost) || errors.Is(err, ErrIllegalTransition) { return true, nil } return false, fmt.Errorf(\"outbox: %w\", err) }": {"equivalent",
		"a message that is gone reads as the zero message, which MarkSent refuses as an illegal transition: the same lost=true"},
	"inbox/consumer.go:handBack:delete:if errors.Is(err, effect.ErrCrashed) { return err }": {"equivalent",
		"a crashed consumer's Nack finds its deliveries already given back by the broker, and the error returned still says it crashed"},
	"inbox/consumer.go:handle:drop-left:err != nil": {"equivalent",
		"process reports a change only without an error (drainParked returns nil), so !changed alone covers every error"},
	"inbox/consumer.go:handle:swap:err = c.Gate.Cross(BoundaryCommit, tx.Commit) if errors.Is(err, store.ErrDuplicateKey) { return nil // another consumer instance applied it first }": {"blind spot",
		"a duplicate inbox row needs two billing instances applying one message at once; the lab runs one billing consumer, as a broker that partitions by order gives each order one. Two competing instances would also race on one order (a write conflict on its account, which the consumer returns as an error; a successor parked by one while the other applies its predecessor, never drained): a limit of the consumer's design, noted, not yet a row"},
	"inbox/consumer.go:handle:delete:if errors.Is(err, store.ErrDuplicateKey) { return nil // another consumer instance applied it first }": {"blind spot",
		"a duplicate inbox row needs two billing instances applying one message at once; the lab runs one billing consumer, as a broker that partitions by order gives each order one. Two competing instances would also race on one order (a write conflict on its account, which the consumer returns as an error; a successor parked by one while the other applies its predecessor, never drained): a limit of the consumer's design, noted, not yet a row"},
	"inbox/consumer.go:handle:swap:if errors.Is(err, store.ErrDuplicateKey) { return nil // another consumer instance applied it first } if err != nil { return fmt.Errorf(\"inbox: commit %s: %w\", env.ID, err) }": {"blind spot",
		"a duplicate inbox row needs two billing instances applying one message at once; the lab runs one billing consumer, as a broker that partitions by order gives each order one. Two competing instances would also race on one order (a write conflict on its account, which the consumer returns as an error; a successor parked by one while the other applies its predecessor, never drained): a limit of the consumer's design, noted, not yet a row"},
	"inbox/consumer.go:ReplayDeadLetters:swap:if len(ids) == 0 { return 0, nil } if err := c.Gate.Cross(BoundaryReplay, tx.Commit); err != nil { return 0, fmt.Errorf(\"inbox: replay: %w\", err) }": {"equivalent",
		"a replay of nothing then commits an empty transaction"},
	"inbox/consumer.go:ReplayDeadLetters:swap:if err := c.Gate.Cross(BoundaryReplay, tx.Commit); err != nil { return 0, fmt.Errorf(\"inbox: replay: %w\", err) } for _, id := range ids { if err := c.Broker.Redeliver(c.cfg.Subscription, id); err != nil { return 0, fmt.Errorf(\"inbox: replay: %w\", err) } }": {"blind spot",
		"the replay runs after the faults end, so its commit never fails in the lab; in this order a failed commit would leave a redelivered message a dead letter, which billing skips"},
	"billing/ledger.go:ApplyEffect:swap:if err != nil { return fmt.Errorf(\"billing: %s#%d: %w\", entry.OrderID, entry.Sequence, err) } billed = sum": {"equivalent",
		"billed is a local: when the sum failed the function returns the error before anything reads it"},
	"billing/ledger.go:ApplyEffect:swap:if err := tx.Insert(TableLedger, entry.Key, entry); err != nil { return fmt.Errorf(\"billing: %w\", err) } tx.Put(TableAccounts, acc.OrderID, acc)": {"equivalent",
		"the ledger insert fails only on a key drawn twice, and then the whole transaction, the account's write with it, is rolled back"},
	"outbox/relay.go:recordFailure:drop-left:ok": {"equivalent",
		"Get reports a row missing only when it is gone, and then cur is the zero message, which Release refuses (it is not IN_FLIGHT): the check only spares the call"},
	"inbox/consumer.go:handle:delete:if _, done := tx.Get(TableProcessed, env.ID); done { return nil // a redelivery: the effect is already there }": {"equivalent",
		"a redelivered message is stale by its sequence (the aggregate's applied sequence is written in the same transaction as the inbox row) and is skipped just the same: the inbox row is the second guard here"},
	"inbox/consumer.go:handle:swap:if _, done := tx.Get(TableProcessed, env.ID); done { return nil // a redelivery: the effect is already there } if _, dead := tx.Get(TableDead, env.ID); dead { return nil // already a visible dead letter }": {"equivalent",
		"both checks only return nil: in either order the same"},
	"inbox/consumer.go:handle:drop-right:!changed": {"equivalent",
		"a transaction with no change then commits empty, which changes nothing"},
	"inbox/consumer.go:process:bound:event.Seq() <= applied": {"equivalent",
		"an event of the applied sequence comes only as a redelivery, which the inbox row stops before it gets here (under another message id it would break the message contract, which the checker reports)"},
	"inbox/consumer.go:process:delete:if _, ok := tx.Get(TableParked, key); ok { return false, nil }": {"equivalent",
		"parking a parked message again writes the same row"},
	"inbox/consumer.go:countFailure:delete:tx.Delete(TableFailures, env.ID)": {"equivalent",
		"the replay deletes the count as well"},
	"inbox/consumer.go:countFailure:swap:tx.Delete(TableFailures, env.ID) tx.Put(TableDead, env.ID, Parked{Envelope: env, Reason: fmt.Sprintf(\"failed %d times: %v\", n, f.err), At: now})": {"equivalent",
		"writes of two tables in one transaction: in either order the same"},
	"inbox/consumer.go:countFailure:swap:tx.Put(TableDead, env.ID, Parked{Envelope: env, Reason: fmt.Sprintf(\"failed %d times: %v\", n, f.err), At: now}) b, parked = BoundaryCommit, true": {"equivalent",
		"a write and two local variables that touch nothing of each other's"},
	"inbox/consumer.go:ReplayDeadLetters:swap:tx.Delete(TableDead, key) tx.Delete(TableFailures, key)": {"equivalent",
		"deletes of two tables in one transaction: in either order the same"},
	"inbox/consumer.go:ReplayDeadLetters:swap:tx.Delete(TableFailures, key) ids = append(ids, key)": {"equivalent",
		"a delete and a local list that touch nothing of each other's"},
	"inbox/consumer.go:ReplayDeadLetters:delete:tx.Delete(TableFailures, key)": {"blind spot",
		"a replayed message then starts with its old failure count; but countFailure deletes the count in the transaction that parks a message, so a dead letter keeps one only when it failed processing first and was parked another way later (corrupted once, then parked behind a gap, then refused when its turn came), and the cause is fixed before the replay, so the message does not fail again and the old count is never read"},
	"inbox/consumer.go:ReplayDeadLetters:delete:if len(ids) == 0 { return 0, nil }": {"equivalent",
		"a replay of nothing then commits an empty transaction"},
	"billing/ledger.go:ApplyEffect:swap:tx.Put(tableMeta, keyLedgerN, n+1) entry.Key = store.SeqKey(\"\", n)": {"equivalent",
		"a write and a field of a local entry that touch nothing of each other's"},
	"outbox/message.go:Release:drop-left:m.Status != InFlight": {"equivalent",
		"no state but IN_FLIGHT has a lease owner, so the owner check alone refuses the same"},
	"outbox/relay.go:Step:swap:if dead { rep.DeadLettered++ } r.failedSteps++": {"equivalent",
		"the report's count and the relay's count of failed steps touch nothing of each other's: in either order the same"},
	"outbox/relay.go:matches:drop-right:(f.EventType == \"\" || f.EventType == m.Event.Type)": {"equivalent",
		"the filter then selects by order alone, and an order has at most one dead letter at a time: its later messages wait behind it (ClaimDue's hold) and are never sent, so never given up, until it is replayed"},
	"outbox/relay.go:ReplayDeadLetters:drop-left:m.Status == DeadLetter": {"equivalent",
		"Replay refuses a message that is not a dead letter itself"},
	"outbox/relay.go:ReplayDeadLetters:swap:tx.Put(Table, m.Key, m) n++": {"equivalent",
		"a write and a local counter that touch nothing of each other's"},
	"outbox/relay.go:ReplayDeadLetters:delete:if n == 0 { return 0, nil }": {"equivalent",
		"a replay of nothing then commits an empty transaction"},
	"outbox/relay.go:ReplayDeadLetters:swap:if n == 0 { return 0, nil } if err := r.Gate.Cross(BoundaryReplay, tx.Commit); err != nil { return 0, fmt.Errorf(\"outbox: replay: %w\", err) }": {"equivalent",
		"a replay of nothing then commits an empty transaction before it returns"},
	"outbox/relay.go:Recover:drop-left:m.Status == InFlight": {"equivalent",
		"Release refuses a message that is not IN_FLIGHT itself, so the guard only spares a call"},
	"outbox/relay.go:Recover:drop-right:m.LeaseOwner == r.cfg.Owner": {"equivalent",
		"Release refuses a message another relay owns itself (the guard only spares a call); without both checks Recover steals live claims, as the mistake recover-all shows"},
	"outbox/relay.go:Recover:swap:tx.Put(Table, m.Key, m) released++": {"equivalent",
		"the counter is local and the write does not read it: in either order they do the same"},
}

// Explain says why the lab does not catch m: its entry in Survivors, or
// the first rule that covers it, or nothing (Kind "").
func Explain(m Mutant) Reason {
	if r, ok := Survivors[m.Key]; ok {
		return r
	}
	if r, ok := Unearned[m.Key]; ok {
		return r
	}
	for _, rule := range rules {
		if rule.covers(m) {
			return rule.Reason
		}
	}
	return Reason{}
}

// rules explain whole kinds of survivor.
var rules = []struct {
	covers func(Mutant) bool
	Reason
}{
	{func(m Mutant) bool { return m.Op == OpSwap && m.Independent },
		Reason{"equivalent", "the two statements assign without calling anything, and neither writes a variable or field the other reads or writes: in either order they compute the same"}},
	{func(m Mutant) bool {
		return m.File == "outbox/relay.go" && m.Func == "Step" && onlyReport(m.Code)
	}, Reason{"metrics", "it changes only the step's report (StepReport counts for metrics and Run's idle wait); the lab reads the tables and the broker, not the report"}},
	{func(m Mutant) bool {
		return m.File == "outbox/relay.go" && m.Func == "recordFailure" && m.Op == OpDelete && m.Code == "released++"
	}, Reason{"metrics", "it changes only the count of released messages that the step reports (StepReport.Released); the release itself is written"}},
	{func(m Mutant) bool {
		return m.File == "outbox/relay.go" && m.Func == "recordFailure" && m.Op == OpSwap && (m.Code == "tx.Put(Table, cur.Key, cur) released++" || strings.HasPrefix(m.Code, "if cur, ok := Get(tx, m.Key); ok {"))
	}, Reason{"equivalent", "a write and a local count, or the mark of the failed message and the release of the rest, rows apart in one transaction: in either order the same commit"}},
	{func(m Mutant) bool {
		return m.File == "outbox/relay.go" && m.Func == "recordFailure" && strings.Contains(strings.ToLower(m.Code), "jitter")
	}, Reason{"blind spot", "timing: jitter spreads the retries of many relays in time; the lab counts attempts, not when they come"}},
	{func(m Mutant) bool {
		return m.File == "outbox/relay.go" && m.Func == "recordFailure" && strings.HasPrefix(strings.TrimPrefix(m.Code, "tx.Put(Table, cur.Key, cur) "), "dead = ")
	}, Reason{"metrics", "it changes only whether the step reports a dead letter (StepReport); the lab reads the tables"}},
	{func(m Mutant) bool {
		return m.File == "outbox/relay.go" && m.Func == "Step" && m.Op == OpSwap && strings.HasPrefix(m.Code, "rep.Claimed = len(batch) for ")
	}, Reason{"metrics", "the count of claims moves after the loop, which a failed send leaves early: such a step then reports no claims (StepReport); the lab reads the tables and the broker, not the report"}},
	{func(m Mutant) bool {
		return m.File == "outbox/relay.go" && m.Func == "Step" && m.Op == OpSwap && strings.HasPrefix(m.Code, "if errors.Is(err, effect.ErrCrashed)")
	}, Reason{"equivalent", "a crashed send then goes to recordFailure first, whose commit the crashed process's gate refuses with ErrCrashed: nothing is written, the pause is not reached, and Step returns an error that wraps ErrCrashed as before"}},
	{func(m Mutant) bool {
		return m.File == "outbox/relay.go" && m.Func == "Step" && strings.Contains(m.Code, "rep.PausedUntil") && !strings.Contains(m.Code, "for ")
	}, Reason{"equivalent", "the step then reports no pause, or the one before: the simulator's adapter (variant.RelayAdapter) wakes the relay inside its pause, where it sends nothing (Step keeps the pause itself), and asks again, as Relay.Run without the report polls it every IdlePoll; the sends come when they came (the polled matrix is the same)"}},
	{func(m Mutant) bool {
		return strings.Contains(m.Code, "err != nil") || strings.Contains(m.Code, "errors.Is(err") || strings.Contains(m.Code, "err == nil")
	}, Reason{"blind spot", "error path: the lab fails every commit of the workload once (the failure sweep) and draws failed commits in exploration, and sees no difference here: either this error does not occur in the lab (a read of the in-memory store, a conflict no schedule arranges), or what the code does after it leaves the tables, the broker and the answers the same (the failed call returned nothing to go on with)"}},
}

// onlyReport reports whether code touches only the step's report.
func onlyReport(code string) bool {
	for _, f := range strings.Fields(strings.NewReplacer("{", " ", "}", " ", ";", " ").Replace(code)) {
		switch {
		case strings.HasPrefix(f, "rep."), f == "if", f == "else", f == "dead", f == "lost", f == "+=", f == "released", f == "=", f == "len(batch)":
		default:
			return false
		}
	}
	return true
}
