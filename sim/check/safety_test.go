package check_test

import (
	"strings"
	"testing"
	"time"

	"outboxlab/billing"
	"outboxlab/domain"
	"outboxlab/outbox"
	"outboxlab/sim/check"
	"outboxlab/store"
)

var at0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func commit(seq uint64, owner string, m outbox.Message) store.Commit {
	return store.Commit{Seq: seq, Owner: owner, Changes: []store.Change{{Table: outbox.Table, Key: "1", Value: m}}}
}

// at sets the commit's time by the database's clock.
func at(d time.Duration, c store.Commit) store.Commit {
	c.At = at0.Add(d)
	return c
}

func deletion(seq uint64, owner string) store.Commit {
	return store.Commit{Seq: seq, Owner: owner, Changes: []store.Change{{Table: outbox.Table, Key: "1", Deleted: true}}}
}

func inFlight(owner string, claimed, until time.Duration) outbox.Message {
	return outbox.Message{ID: "e-1", Status: outbox.InFlight, LeaseOwner: owner, ClaimedAt: at0.Add(claimed), LeaseUntil: at0.Add(until)}
}

func TestSafety(t *testing.T) {
	pending := outbox.Message{ID: "e-1", Status: outbox.Pending}
	sentAt := func(d time.Duration) outbox.Message {
		return outbox.Message{ID: "e-1", Status: outbox.Sent, SentAt: at0.Add(d)}
	}
	cases := []struct {
		name string
		log  []store.Commit
		want string // "" for no breach
	}{
		{"claim, send, mark", []store.Commit{commit(1, "service", pending), commit(2, "relay-1", inFlight("relay-1", 0, 30*time.Second)), commit(3, "relay-1", sentAt(time.Second))}, ""},
		{"takeover after the lease", []store.Commit{commit(1, "s", pending), commit(2, "relay-1", inFlight("relay-1", 0, 30*time.Second)), commit(3, "relay-2", inFlight("relay-2", 30*time.Second, time.Minute))}, ""},
		{"two live leases", []store.Commit{commit(1, "s", pending), commit(2, "relay-1", inFlight("relay-1", 0, 30*time.Second)), commit(3, "relay-2", inFlight("relay-2", 29*time.Second, time.Minute))}, "while relay-1's lease ran until"},
		{"marked after the lease", []store.Commit{commit(1, "s", pending), commit(2, "relay-1", inFlight("relay-1", 0, 30*time.Second)), commit(3, "relay-1", sentAt(31*time.Second))}, "marked SENT at"},
		{"marked by another relay", []store.Commit{commit(1, "s", pending), commit(2, "relay-1", inFlight("relay-1", 0, 30*time.Second)), commit(3, "relay-2", sentAt(time.Second))}, "marked SENT at"},
		{"marked without a claim", []store.Commit{commit(1, "s", pending), commit(2, "relay-1", sentAt(time.Second))}, "without a claim"},
		{"SENT left", []store.Commit{commit(1, "s", sentAt(0)), commit(2, "relay-1", pending)}, "left the terminal state SENT"},
		{"SENT written again", []store.Commit{commit(1, "s", sentAt(0)), commit(2, "relay-1", sentAt(time.Second))}, "written again after SENT, a terminal state"},
		{"dead letter left without replay", []store.Commit{commit(1, "s", outbox.Message{ID: "e-1", Status: outbox.DeadLetter}), commit(2, "relay-1", pending)}, "without a replay"},
		{"a live claim released by another relay", []store.Commit{commit(1, "s", pending), commit(2, "relay-2", inFlight("relay-2", 0, 30*time.Second)), at(10*time.Second, commit(3, "relay-1", pending))}, "set PENDING by relay-1 at 00:00:10.000, while relay-2's lease ran until 00:00:30.000"},
		{"an expired claim released by another relay", []store.Commit{commit(1, "s", pending), commit(2, "relay-2", inFlight("relay-2", 0, 30*time.Second)), at(31*time.Second, commit(3, "relay-1", pending))}, ""},
		{"a claim judged by the database's clock", []store.Commit{commit(1, "s", pending), commit(2, "relay-1", inFlight("relay-1", 0, 30*time.Second)), at(20*time.Second, commit(3, "relay-2", inFlight("relay-2", 40*time.Second, time.Minute)))}, "claimed by relay-2 while relay-1's lease ran until"},
		{"SENT deleted", []store.Commit{commit(1, "s", sentAt(0)), deletion(2, "relay-1")}, ""},
		{"dead letter deleted", []store.Commit{commit(1, "s", outbox.Message{ID: "e-1", Status: outbox.DeadLetter}), deletion(2, "relay-1")}, "e-1 deleted while DEAD_LETTER"},
		{"deleted on send by the lease's owner (DeleteOnSend)", []store.Commit{commit(1, "s", pending), commit(2, "relay-1", inFlight("relay-1", 0, 30*time.Second)), at(time.Second, deletion(3, "relay-1"))}, ""},
		// A relay frozen between its lease check and its commit: nobody
		// wrote the row since its claim, so the delete records its send
		// (as a SENT mark is judged by the time its writer checked).
		{"deleted on send after the lease ran out, nobody else wrote the row", []store.Commit{commit(1, "s", pending), commit(2, "relay-1", inFlight("relay-1", 0, 30*time.Second)), at(31*time.Second, deletion(3, "relay-1"))}, ""},
		{"deleted on send after another relay took the row over", []store.Commit{commit(1, "s", pending), commit(2, "relay-1", inFlight("relay-1", 0, 30*time.Second)), at(31*time.Second, commit(3, "relay-2", inFlight("relay-2", 31*time.Second, time.Minute))), at(40*time.Second, deletion(4, "relay-1"))}, "e-1 deleted while IN_FLIGHT"},
		{"deleted while another relay's claim ran", []store.Commit{commit(1, "s", pending), commit(2, "relay-2", inFlight("relay-2", 0, 30*time.Second)), at(time.Second, deletion(3, "relay-1"))}, "e-1 deleted while IN_FLIGHT"},
		{"pending deleted", []store.Commit{commit(1, "s", pending), at(time.Second, deletion(2, "relay-1"))}, "e-1 deleted while PENDING"},
		{"inserted and deleted by one commit (CDC)", []store.Commit{{Seq: 1, Owner: "service", Changes: []store.Change{{Table: outbox.Table, Key: "1", Value: pending}, {Table: outbox.Table, Key: "1", Deleted: true}}}}, ""},
		{"dead letter replayed", []store.Commit{commit(1, "s", outbox.Message{ID: "e-1", Status: outbox.DeadLetter}), commit(2, "relay-1", outbox.Message{ID: "e-1", Status: outbox.Pending, Replays: 1})}, ""},
	}
	for _, c := range cases {
		got := check.Safety(c.log, nil, nil)
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s: breaches %v, want none", c.name, got)
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0].EN, c.want)):
			t.Errorf("%s: breaches %v, want one containing %q", c.name, got, c.want)
		}
	}
}

// byProcess is commit with the process that committed it, as the
// database recorded it, beside the owner name the writer chose.
func byProcess(seq uint64, process, owner string, m outbox.Message) store.Commit {
	c := commit(seq, owner, m)
	c.Process = process
	return c
}

// TestSafetyJudgesLeasesByTheCommittingProcess: two relays that write one
// owner name ("relay") are two processes to the database. A lease belongs
// to the process that committed the claim: another process that releases
// or marks it while it runs breaks it, whatever name it wrote; the process
// itself may. (Judged by the names, each of these was no breach: the
// names are equal.)
func TestSafetyJudgesLeasesByTheCommittingProcess(t *testing.T) {
	pending := outbox.Message{ID: "e-1", Status: outbox.Pending}
	sent := outbox.Message{ID: "e-1", Status: outbox.Sent, SentAt: at0.Add(time.Second)}
	claimedBy2 := byProcess(2, "relay-2", "relay", inFlight("relay", 0, 30*time.Second))
	cases := []struct {
		name string
		log  []store.Commit
		want string
	}{
		{"released by another process under the holder's name", []store.Commit{commit(1, "s", pending), claimedBy2,
			at(10*time.Second, byProcess(3, "relay-1", "relay", pending))}, "set PENDING by relay-1 at 00:00:10.000, while relay-2's lease ran until 00:00:30.000"},
		{"marked SENT by another process under the holder's name", []store.Commit{commit(1, "s", pending), claimedBy2,
			at(time.Second, byProcess(3, "relay-1", "relay", sent))}, "by relay-1, but relay-2's lease ran until"},
		{"claimed by another process under the holder's name", []store.Commit{commit(1, "s", pending), claimedBy2,
			at(10*time.Second, byProcess(3, "relay-1", "relay", inFlight("relay", 10*time.Second, 40*time.Second)))}, "claimed by relay-1 while relay-2's lease ran until"},
		{"marked SENT by the holder under another name", []store.Commit{commit(1, "s", pending), claimedBy2,
			at(time.Second, byProcess(3, "relay-2", "relay-9", sent))}, ""},
		{"released by the holder", []store.Commit{commit(1, "s", pending), claimedBy2,
			at(time.Second, byProcess(3, "relay-2", "relay", pending))}, ""},
	}
	for _, c := range cases {
		got := check.Safety(c.log, nil, nil)
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s: breaches %v, want none", c.name, got)
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0].EN, c.want)):
			t.Errorf("%s: breaches %v, want one containing %q", c.name, got, c.want)
		}
	}
}

func TestSafetyChargesNeverExceedTheOrder(t *testing.T) {
	eur := func(s string) domain.Money { return domain.MustMoney(s, "EUR") }
	orders := []domain.Order{{ID: "o-1", Total: eur("12.00"), Version: 2}}
	ok := []billing.Entry{{Key: "1", OrderID: "o-1", Sequence: 1, Amount: eur("10.00")}, {Key: "2", OrderID: "o-1", Sequence: 2, Amount: eur("2.00")}}
	if got := check.Safety(nil, ok, orders); len(got) != 0 {
		t.Fatalf("breaches %v, want none", got)
	}
	twice := append(ok, billing.Entry{Key: "3", OrderID: "o-1", Sequence: 2, Amount: eur("2.00")})
	if got := check.Safety(nil, twice, orders); len(got) != 1 || !strings.Contains(got[0].EN, "charged 14.00 EUR after #2, more than its total 12.00 EUR") {
		t.Fatalf("breaches %v", got)
	}
}
