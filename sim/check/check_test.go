package check_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

func order(id string, version int) domain.Order { return domain.Order{ID: id, Version: version} }

func entry(order string, seq int) billing.Entry {
	return billing.Entry{OrderID: order, Sequence: seq, Kind: billing.Line}
}

func msg(order string, seq int, status outbox.Status) outbox.Message {
	return outbox.Message{ID: "e-" + order, Event: domain.Record{AggregateID: order, Sequence: seq}, Status: status}
}

func published(id, order string, seq int, payload string) broker.Envelope {
	return broker.Envelope{ID: id, Event: domain.Record{Type: "OrderAmended", AggregateID: order, Sequence: seq, Payload: payload}}
}

func outcomes(vs []check.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.String())
	}
	return out
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name  string
		world check.World
		want  []string
	}{
		{"all applied once in order", check.World{
			Orders: []domain.Order{order("o-1", 2)}, Ledger: []billing.Entry{entry("o-1", 1), entry("o-1", 2)}, Quiesced: true,
		}, nil},
		{"lost", check.World{
			Orders: []domain.Order{order("o-1", 2)}, Ledger: []billing.Entry{entry("o-1", 1)}, Quiesced: true,
		}, []string{"LOST o-1#2: committed, but billing never applied it"}},
		{"phantom", check.World{
			Ledger: []billing.Entry{entry("o-9", 1)}, Quiesced: true,
		}, []string{"PHANTOM o-9#1: billing applied 1 effect(s) for a change the order service never committed"}},
		{"duplicate", check.World{
			Orders: []domain.Order{order("o-1", 1)}, Ledger: []billing.Entry{entry("o-1", 1), entry("o-1", 1)}, Quiesced: true,
		}, []string{"DUPLICATE o-1#1: billing applied the change 2 times"}},
		{"out of order", check.World{
			Orders: []domain.Order{order("o-1", 2)}, Ledger: []billing.Entry{entry("o-1", 2), entry("o-1", 1)}, Quiesced: true,
		}, []string{"OUT_OF_ORDER o-1#1: line of #1 applied after line of #2"}},
		{"stuck in flight", check.World{
			Orders: []domain.Order{order("o-1", 1)}, Ledger: []billing.Entry{entry("o-1", 1)}, Quiesced: true,
			Outbox: []outbox.Message{msg("o-1", 1, outbox.InFlight)},
		}, []string{"STUCK o-1#1: message e-o-1 is IN_FLIGHT after quiesce (claimed by , never released)"}},
		{"held behind a dead letter is not stuck", check.World{
			Orders: []domain.Order{order("o-1", 2)}, Ledger: []billing.Entry{entry("o-1", 1), entry("o-1", 2)}, Quiesced: true,
			Outbox: []outbox.Message{msg("o-1", 1, outbox.DeadLetter), msg("o-1", 2, outbox.Pending)},
		}, nil},
		{"given up one attempt late", check.World{Quiesced: true, PublishBudget: 20, BeforeReplayBudget: 10,
			Publishes:    []check.Attempts{{MessageID: "e-1", AggregateID: "o-1", Sequence: 1, N: 12}},
			BeforeReplay: []check.Attempts{{MessageID: "e-1", AggregateID: "o-1", Sequence: 1, N: 11}},
		}, []string{"STORM o-1#1: message e-1 was published 11 times before the operator's replay, the retry policy allows 10 until a message is given up"}},
		{"within the policy before the replay", check.World{Quiesced: true, PublishBudget: 20, BeforeReplayBudget: 10,
			BeforeReplay: []check.Attempts{{MessageID: "e-1", AggregateID: "o-1", Sequence: 1, N: 10}},
		}, nil},
		{"a message's own budget stands for the run's", check.World{Quiesced: true, PublishBudget: 2,
			Publishes: []check.Attempts{{MessageID: "e-1", AggregateID: "o-1", Sequence: 1, N: 5, Budget: 6},
				{MessageID: "e-2", AggregateID: "o-1", Sequence: 2, N: 4, Budget: 3}},
		}, []string{"STORM o-1#2: message e-2 was published 4 times, the retry policy allows 3: retries without backoff or limit hammer the broker"}},
		{"busy at the horizon", check.World{Busy: lang.Plain("relay-1 wants to work")},
			[]string{"STUCK: still busy at the end of the horizon: relay-1 wants to work"}},
		{"acknowledged and not committed", check.World{
			Orders: []domain.Order{order("o-1", 1)}, Ledger: []billing.Entry{entry("o-1", 1)}, Quiesced: true,
			Acknowledged: []string{"o-1", "o-1"},
		}, []string{"LOST o-1: the service answered 2 command(s) with success, but 1 change(s) are committed"}},
		{"an account that forgot its cancel", check.World{
			Orders: []domain.Order{order("o-1", 2)}, Quiesced: true,
			Ledger:   []billing.Entry{entry("o-1", 1), {OrderID: "o-1", Sequence: 2, Kind: billing.Credit}},
			Accounts: []billing.Account{{OrderID: "o-1"}},
		}, []string{"MISMATCH o-1: the account says cancelled: false, its ledger says true"}},
		{"a delay the simulator saw", check.World{Quiesced: true,
			Delays: []check.Delay{{AggregateID: "o-1", Sequence: 2, Detail: lang.Plain("relay-1 slept")}},
		}, []string{"LATE o-1#2: relay-1 slept"}},
		{"billing tried a message more often than its policy", check.World{Quiesced: true,
			BillingParked: []check.ParkAttempts{{MessageID: "e-1", AggregateID: "o-1", Sequence: 1, Attempts: 4, Allowed: 3}},
		}, []string{"STORM o-1#1: billing tried message e-1 4 times before it parked it, its policy parks it after 3"}},
		{"billing parked a message sooner than its policy: allowed", check.World{Quiesced: true,
			BillingParked: []check.ParkAttempts{{MessageID: "e-1", AggregateID: "o-1", Sequence: 1, Attempts: 1, Allowed: 3}},
		}, nil},
		{"billing parked a message whose only fault was transient", check.World{Quiesced: true,
			BillingParked: []check.ParkAttempts{{MessageID: "e-1", AggregateID: "o-1", Sequence: 1, Attempts: 1, Allowed: 0}},
		}, []string{"GAVE_UP o-1#1: billing put message e-1 aside as a dead letter after 1 attempt(s), though its fault was transient: the next attempt would have worked (retry is the protection against transient errors)"}},
		{"a replay that left its dead letter dead", check.World{Quiesced: true,
			Unreplayed: []variant.DeadLetter{{Where: lang.Plain("outbox"), MessageID: "e-1", AggregateID: "o-1", Sequence: 1}},
		}, []string{"STUCK o-1#1: the operator fixed its cause and replayed message e-1 (in outbox), and it stayed a dead letter"}},
		{"billing holds a change it applied", check.World{
			Orders: []domain.Order{order("o-1", 1)}, Ledger: []billing.Entry{entry("o-1", 1)}, Quiesced: true,
			Held: []inbox.Parked{{Envelope: broker.Envelope{ID: "e-1", Event: domain.Record{AggregateID: "o-1", Sequence: 1}}, Reason: "waiting for #1"}},
		}, []string{"STUCK o-1#1: billing applied it and still holds message e-1 (waiting for #1)"}},
		{"an effect of a change past the order's last version", check.World{
			Orders: []domain.Order{order("o-1", 1)}, Ledger: []billing.Entry{entry("o-1", 1), entry("o-1", 3), entry("o-1", 3)}, Quiesced: true,
		}, []string{"PHANTOM o-1#3: billing applied 2 effect(s) for a change the order service never committed", "DUPLICATE o-1#3: billing applied the change 2 times"}},
		{"an order listed twice is judged once, by its highest version", check.World{
			Orders: []domain.Order{order("o-1", 2), order("o-1", 1)}, Ledger: []billing.Entry{entry("o-1", 1)}, Quiesced: true,
		}, []string{"LOST o-1#2: committed, but billing never applied it"}},
		{"one change published under two message ids", check.World{Quiesced: true,
			Published: []broker.Envelope{published("e-1", "o-1", 1, "{}"), published("e-2", "o-1", 1, "{}")},
		}, []string{"DUPLICATE o-1#1: the same OrderAmended was published as e-1 and again as e-2: a consumer that deduplicates by message id applies it twice"}},
		{"two ids for one sequence with different contents are two changes", check.World{Quiesced: true,
			Published: []broker.Envelope{published("e-1", "o-1", 1, `{"a":1}`), published("e-2", "o-1", 1, `{"a":2}`)},
		}, nil},
		{"a later change stored first at the broker", check.World{Quiesced: true,
			Orders: []domain.Order{order("o-1", 2)}, Ledger: []billing.Entry{entry("o-1", 1), entry("o-1", 2)},
			Published: []broker.Envelope{published("e-2", "o-1", 2, "{}"), published("e-1", "o-1", 1, "{}")},
			StoredAt:  check.InLogOrder(2),
		}, []string{"OUT_OF_ORDER o-1#1: the order-status view, which keeps the last status it read as a shipping or search service does, shows o-1 OrderAmended (from #1, read last) after it read #2 (OrderAmended): an outdated state restored; the order is ",
			"OUT_OF_ORDER o-1#2: first stored at the broker at 00:00:00.000, before the first copy of #1 (stored at 00:00:00.000), which was still to be sent: a consumer that trusts the broker's order reads #2 first (chapter 001: Reihenfolge pro Geschäftsobjekt)"}},
		{"worst first", check.World{
			Orders: []domain.Order{order("o-1", 1), order("o-2", 1)}, Ledger: []billing.Entry{entry("o-1", 1), entry("o-1", 1)}, Quiesced: true,
		}, []string{"LOST o-2#1: committed, but billing never applied it", "DUPLICATE o-1#1: billing applied the change 2 times"}},
	}
	for _, c := range cases {
		vs := check.Check(c.world)
		if diff := cmp.Diff(c.want, outcomes(vs)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestOutcomeWords(t *testing.T) {
	words := map[string]bool{}
	for _, o := range variant.Outcomes() {
		if w := o.String(); words[w] || strings.HasPrefix(w, "Outcome(") {
			t.Errorf("%d: word %q twice or missing", int(o), w)
		}
		words[o.String()] = true
	}
	if check.Worst(nil) != variant.OK {
		t.Error("Worst(nil) != OK")
	}
}

func TestAChangeStuckInTheOutboxIsStuckNotLost(t *testing.T) {
	vs := check.Check(check.World{
		Orders:   []domain.Order{order("o-1", 1)},
		Outbox:   []outbox.Message{msg("o-1", 1, outbox.InFlight)},
		Quiesced: true,
	})
	if diff := cmp.Diff([]string{"STUCK o-1#1: message e-o-1 is IN_FLIGHT after quiesce (claimed by , never released)"}, outcomes(vs)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

// TestAChangeHeldBehindAStuckOneIsStuckNotLost: o-1#2 reached billing,
// which holds it until #1 arrives; #1 waits in the outbox. The outbox
// shows why #2 has no effect, so #2 is STUCK too (before this rule it read
// LOST, which says that nothing explains the missing effect).
func TestAChangeHeldBehindAStuckOneIsStuckNotLost(t *testing.T) {
	second := msg("o-1", 2, outbox.Sent)
	vs := check.Check(check.World{
		Orders:   []domain.Order{order("o-1", 2)},
		Outbox:   []outbox.Message{msg("o-1", 1, outbox.Pending), second},
		Held:     []inbox.Parked{{Envelope: broker.Envelope{ID: second.ID, Event: second.Event}, Reason: "waiting for #1"}},
		Quiesced: true,
	})
	want := []string{
		"STUCK o-1#1: message e-o-1 is PENDING after quiesce",
		"STUCK o-1#2: billing holds it (waiting for #1), and #1 is stuck in the outbox",
	}
	if diff := cmp.Diff(want, outcomes(vs)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

// TestDownBudget: a relay that pauses 1, 2, 4, 8 s and then 10 s after
// each failed send tries at 0, 1, 3, 7, 15, 25, ... s: 63 times in a
// ten-minute outage; a policy that does not pause sets no bound.
func TestDownBudget(t *testing.T) {
	pause := outbox.DefaultConfig("relay").Pause
	cases := []struct {
		down time.Duration
		want int
	}{
		{0, 0},
		{time.Second, 1},
		{3 * time.Second, 2},
		{3*time.Second + 1, 3},
		{15 * time.Second, 4},
		{10 * time.Minute, 63},
	}
	for _, c := range cases {
		if got := check.DownBudget(c.down, pause); got != c.want {
			t.Errorf("DownBudget(%v) = %d, want %d", c.down, got, c.want)
		}
	}
	if got := check.DownBudget(time.Minute, func(int) time.Duration { return 0 }); got != math.MaxInt {
		t.Errorf("DownBudget without a pause = %d, want no bound", got)
	}
}
