package verify

import (
	"slices"
	"strings"
	"testing"
	"time"

	"outboxlab/billing"
	"outboxlab/domain"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

// billingStory is a hand-made consumer round: o-1 placed at 19.99 EUR
// (e-1) and amended by 0.10 EUR (e-2), published at p0/0 and p0/1; o-2
// placed at 1200 JPY (e-3) and cancelled (e-4), at p1/0 and p1/1; the
// group's offsets past all of them; and whatever a case does to the
// ledger, the dead letters and the offsets.
type billingStory struct {
	e      ConsumerEvidence
	orders map[string]domain.Order
}

func newBillingStory(t *testing.T) *billingStory {
	t.Helper()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &billingStory{orders: map[string]domain.Order{}, e: ConsumerEvidence{Quiesced: true, Offsets: map[int32]int64{0: 2, 1: 2}}}
	add := func(id string, partition int32, o domain.Order, ev domain.Event, kind billing.EffectKind, amount domain.Money) {
		rec, err := domain.Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		s.e.Committed = append(s.e.Committed, Committed{EventID: id, Record: rec})
		s.e.Changes = append(s.e.Changes, check.Change{OrderID: o.ID, Sequence: o.Version, Kind: kind, Amount: amount})
		s.e.Published = append(s.e.Published, Published{Partition: partition, Offset: int64(o.Version - 1), EventID: id, Key: o.ID})
		s.orders[o.ID] = o
	}
	o1, placed, _ := domain.AcceptOrder("o-1", domain.MustMoney("19.99", "EUR"), now)
	add("e-1", 0, o1, placed, billing.Invoice, o1.Total)
	o1, amended, _ := o1.Amend(domain.MustMoney("0.10", "EUR"), "gift wrap", now)
	add("e-2", 0, o1, amended, billing.Line, domain.MustMoney("0.10", "EUR"))
	o2, placed2, _ := domain.AcceptOrder("o-2", domain.MustMoney("1200", "JPY"), now)
	add("e-3", 1, o2, placed2, billing.Invoice, o2.Total)
	o2, cancelled, err := o2.Cancel("changed mind", now)
	if err != nil {
		t.Fatal(err)
	}
	add("e-4", 1, o2, cancelled, billing.Credit, domain.MustMoney("-1200", "JPY"))
	s.e.Orders = []domain.Order{s.orders["o-1"], s.orders["o-2"]}
	return s
}

// apply writes the ledger rows of the changes of events ids, in that
// order, and the accounts they come to.
func (s *billingStory) apply(ids ...string) *billingStory {
	for _, id := range ids {
		i := slices.IndexFunc(s.e.Committed, func(c Committed) bool { return c.EventID == id })
		c := s.e.Changes[i]
		s.e.Ledger = append(s.e.Ledger, billing.Entry{MessageID: id, OrderID: c.OrderID, Sequence: c.Sequence, Kind: c.Kind, Amount: c.Amount})
	}
	s.e.Accounts = nil
	for _, id := range []string{"o-1", "o-2"} {
		var a *billing.Account
		for _, l := range s.e.Ledger {
			if l.OrderID != id {
				continue
			}
			if a == nil {
				a = &billing.Account{OrderID: id, Billed: domain.Money{Currency: l.Amount.Currency}}
			}
			a.Billed.Minor += l.Amount.Minor
			a.Cancelled = a.Cancelled || l.Kind == billing.Credit
		}
		if a != nil {
			s.e.Accounts = append(s.e.Accounts, *a)
		}
	}
	return s
}

func (s *billingStory) judged(t *testing.T, want variant.Outcome, says ...string) {
	t.Helper()
	vs := JudgeConsumer(s.e)
	var all []string
	for _, v := range vs {
		all = append(all, v.String())
	}
	if got := check.Worst(vs); got != want {
		t.Fatalf("%s, want %s:\n%s", got, want, strings.Join(all, "\n"))
	}
	for _, say := range says {
		if !strings.Contains(strings.Join(all, "\n"), say) {
			t.Errorf("no violation says %q:\n%s", say, strings.Join(all, "\n"))
		}
	}
}

func TestAConsumerThatAppliedEachEventOnceInOrderIsOK(t *testing.T) {
	newBillingStory(t).apply("e-1", "e-3", "e-2", "e-4").judged(t, variant.OK)
}

// TestTheCheckersVerdictsReachAConsumersRound: the ledger and accounts go
// to the core's checker, which the simulator's runs have: an effect
// twice, a later one first, a wrong amount, an account off its ledger.
func TestTheCheckersVerdictsReachAConsumersRound(t *testing.T) {
	newBillingStory(t).apply("e-1", "e-1", "e-2", "e-3", "e-4").judged(t, variant.Duplicate, "DUPLICATE o-1#1")
	newBillingStory(t).apply("e-2", "e-1", "e-3", "e-4").judged(t, variant.OutOfOrder, "OUT_OF_ORDER o-1#1")
	s := newBillingStory(t).apply("e-1", "e-2", "e-3", "e-4")
	s.e.Ledger[0].Amount.Minor = 1998 // 19.99 through a float
	s.e.Accounts[0].Billed.Minor = 2008
	s.judged(t, variant.Mismatch, "MISMATCH o-1#1", "19.98 EUR")
	s = newBillingStory(t).apply("e-1", "e-2", "e-3", "e-4")
	s.e.Accounts[1].Cancelled = false
	s.judged(t, variant.Mismatch, "MISMATCH o-2")
}

// TestAnEffectMissingIsLostWhereTheGroupReadPastItAndStuckWhereItDidNot:
// the group's offsets tell a consumer that went on without an effect
// (LOST) from one that never got there (STUCK).
func TestAnEffectMissingIsLostWhereTheGroupReadPastItAndStuckWhereItDidNot(t *testing.T) {
	newBillingStory(t).apply("e-1", "e-3", "e-4").judged(t, variant.Lost, "LOST o-1#2", "the group read past its record (e-2 at p0/1; its offset on p0 is 2)",
		"an offset commit passed it before its effect (rule 4")
	s := newBillingStory(t).apply("e-1", "e-3", "e-4")
	s.e.Offsets[0] = 1
	s.e.Quiesced, s.e.Busy = false, "p0 at 1 of 2"
	s.judged(t, variant.Stuck, "STUCK o-1#2: e-2 at p0/1 is not applied, and the group has not read past it (its offset on p0 is 1)")
	s = newBillingStory(t).apply("e-1", "e-3", "e-4")
	delete(s.e.Offsets, 0)
	s.judged(t, variant.Stuck, "its offset on p0 is not committed")
}

// TestAReadableEventDeadLetteredIsGaveUp: a dead letter of a committed
// event is GAVE_UP (every fault of a round is transient to a readable
// record), not LOST, and so are the events of its order behind it.
func TestAReadableEventDeadLetteredIsGaveUp(t *testing.T) {
	s := newBillingStory(t).apply("e-3", "e-4")
	s.e.DeadLetters = []DeadLetterRow{{EventID: "e-1", Partition: 0, Offset: 0, Reason: "terminating connection due to administrator command"}}
	s.judged(t, variant.GaveUp, "GAVE_UP o-1#1: e-1 (OrderAccepted, p0/0) was dead-lettered")
	for _, v := range JudgeConsumer(s.e) {
		if v.Outcome == variant.Lost {
			t.Errorf("%s: the dead letter explains it", v)
		}
	}
}

// TestARecordNoConsumerCanReadMustBeADeadLetter: the poison record and
// the unknown version are dead letters; one read past without a trace is
// LOST, one the group does not get past is STUCK, an unknown version
// applied is the checker's PHANTOM.
func TestARecordNoConsumerCanReadMustBeADeadLetter(t *testing.T) {
	poisoned := func() *billingStory {
		s := newBillingStory(t).apply("e-1", "e-2", "e-3", "e-4")
		s.e.Published = append(s.e.Published, Published{Partition: 0, Offset: 2, EventID: "x-poison-2", Key: "o-1", Planned: PlannedPoison})
		s.e.Offsets[0] = 3
		return s
	}
	s := poisoned()
	s.e.DeadLetters = []DeadLetterRow{{EventID: "x-poison-2", Partition: 0, Offset: 2, Reason: "unexpected end of JSON input"}}
	s.judged(t, variant.OK)
	poisoned().judged(t, variant.Lost, "x-poison-2 at p0/2", "vanished without a trace")
	s = poisoned()
	s.e.Offsets[0] = 2
	s.judged(t, variant.Stuck, "holds its partition up")

	s = newBillingStory(t).apply("e-1", "e-2", "e-3", "e-4")
	s.e.Published = append(s.e.Published, Published{Partition: 2, Offset: 0, EventID: "x-version-3", Key: "o-future-3", Planned: PlannedVersion})
	s.e.Offsets[2] = 1
	s.e.Ledger = append(s.e.Ledger, billing.Entry{MessageID: "x-version-3", OrderID: "o-future-3", Sequence: 1, Kind: billing.Invoice, Amount: domain.MustMoney("42.00", "EUR")})
	s.e.Accounts = append(s.e.Accounts, billing.Account{OrderID: "o-future-3", Billed: domain.MustMoney("42.00", "EUR")})
	s.judged(t, variant.Phantom, "PHANTOM o-future-3#1")
}

// TestADeadLetterNamesItsRecordByPlaceAndID: a dead letter explains the
// record at its partition and offset only if it carries that record's
// event-id; one with the key for its id, or the next offset, names no
// record (MISMATCH), and the record it meant is not dead-lettered (LOST).
func TestADeadLetterNamesItsRecordByPlaceAndID(t *testing.T) {
	poisoned := func(d DeadLetterRow) *billingStory {
		s := newBillingStory(t).apply("e-1", "e-2", "e-3", "e-4")
		s.e.Published = append(s.e.Published, Published{Partition: 0, Offset: 2, EventID: "x-poison-2", Key: "o-1", Planned: PlannedPoison},
			Published{Partition: 0, Offset: 3, EventID: "e-5", Key: "o-1"})
		s.e.Offsets[0] = 4
		s.e.DeadLetters = []DeadLetterRow{d}
		return s
	}
	poisoned(DeadLetterRow{EventID: "o-1", Partition: 0, Offset: 2, Reason: "cut off"}).judged(t, variant.Lost,
		`the dead letter (event_id "o-1", p0/2, "cut off") names no record the broker holds: p0/2 holds o-1, event-id "x-poison-2"`,
		"x-poison-2 at p0/2, a record no consumer can read (poison), was read past")
	poisoned(DeadLetterRow{EventID: "x-poison-2", Partition: 0, Offset: 3, Reason: "cut off"}).judged(t, variant.Lost,
		`p0/3 holds o-1, event-id "e-5"`)
	poisoned(DeadLetterRow{EventID: "x-poison-2", Partition: 9, Offset: 99, Reason: "cut off"}).judged(t, variant.Lost, "p9/99 holds no record")
	poisoned(DeadLetterRow{Partition: 0, Offset: 2, Reason: "cut off"}).judged(t, variant.Lost, "event_id NULL")
}

// TestEveryRecordTheGroupReadPastIsAppliedOrADeadLetter: rule 4 judged at
// the round's end, record by record: an event read past without its
// effect is LOST once, however many copies of it were read past; its
// copy applied, or a dead letter of it, is enough.
func TestEveryRecordTheGroupReadPastIsAppliedOrADeadLetter(t *testing.T) {
	s := newBillingStory(t).apply("e-1", "e-3", "e-4")
	s.e.Published = append(s.e.Published, Published{Partition: 2, Offset: 0, EventID: "e-2", Key: "o-1"}) // published twice
	s.e.Offsets[2] = 1
	s.judged(t, variant.Lost, "e-2 (OrderAmended) has no effect and is no dead letter")
	if vs := JudgeConsumer(s.e); len(vs) != 1 {
		t.Errorf("%d violations, want one for e-2:\n%v", len(vs), vs)
	}
	s.apply("e-2").judged(t, variant.OK)
}
