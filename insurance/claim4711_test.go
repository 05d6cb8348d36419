package insurance_test

import (
	"testing"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/effect/effecttest"
	"outboxlab/inbox"
	"outboxlab/insurance"
	"outboxlab/outbox"
	"outboxlab/store"
)

var t0 = time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)

type clock = effecttest.Clock

// ids hands out the seed's message ids: e-5531 first.
type ids struct{ next int }

func (i *ids) NewID() string {
	i.next++
	return []string{"e-5531", "e-5532", "e-5533", "e-5534"}[i.next-1]
}

// story is the two services, the relay and the broker of chapter 004.
type story struct {
	t        *testing.T
	clock    *clock
	claimsDB *store.DB
	payDB    *store.DB
	broker   *broker.Broker
	ids      *ids
	claims   *insurance.Service
	relay    *outbox.Relay
	payments *inbox.Consumer
}

func newStory(t *testing.T) *story {
	s := &story{t: t, clock: &clock{T: t0}, claimsDB: store.New("claims"), payDB: store.New("payments"), ids: &ids{}}
	s.broker = broker.New(s.clock)
	must(t, s.broker.Subscribe("payments"))
	must(t, insurance.InstallClaims(s.claimsDB))
	must(t, insurance.InstallPayments(s.payDB))
	s.startClaimsService()
	var err error
	s.relay, err = outbox.NewRelay(outbox.DefaultConfig("relay-1"), outbox.Deps{DB: s.claimsDB, Broker: s.broker, Gate: effect.Direct{}, Clock: s.clock})
	must(t, err)
	s.payments, err = inbox.NewConsumer(inbox.DefaultConfig("payments", "payments"),
		inbox.Deps{DB: s.payDB, Broker: s.broker, Gate: effect.Direct{}, Clock: s.clock, Effect: insurance.PreparePayout})
	must(t, err)
	return s
}

// startClaimsService (re)starts the claims service: it keeps nothing but
// what its database holds.
func (s *story) startClaimsService() {
	s.claims = &insurance.Service{DB: s.claimsDB, Gate: effect.Direct{}, Clock: s.clock, IDs: s.ids, Owner: "claims"}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// runUntil lets relay and payment service work, one second at a time.
func (s *story) runUntil(at time.Duration) {
	s.t.Helper()
	for s.clock.T.Before(t0.Add(at)) {
		_, err := s.relay.Step()
		must(s.t, err)
		for {
			did, err := s.payments.Step()
			must(s.t, err)
			if !did {
				break
			}
		}
		s.clock.T = s.clock.T.Add(time.Second)
	}
}

func payoutsFor(db *store.DB, claim string) []insurance.Payout {
	var out []insurance.Payout
	for _, p := range insurance.Payouts(db) {
		if p.ClaimID == claim {
			out = append(out, p)
		}
	}
	return out
}

// TestClaim4711 is chapter 004's story: claim 4711 is released, message e-5531
// waits in the outbox while the broker is unreachable for ten minutes, more
// claims are released meanwhile (and the claims service restarts), and the
// payment service prepares exactly one payout per claim once the broker is
// back.
func TestClaim4711(t *testing.T) {
	s := newStory(t)
	s.broker.Outage(t0, t0.Add(10*time.Minute))
	amount := domain.MustMoney("1250.00", "EUR")

	must(t, s.claims.Release("4711", amount)) // 08:00, e-5531
	s.runUntil(2 * time.Minute)
	must(t, s.claims.Release("4712", domain.MustMoney("300.00", "EUR")))
	s.runUntil(3 * time.Minute)
	s.startClaimsService() // a restart loses nothing: the outbox is in the database
	s.runUntil(5 * time.Minute)
	must(t, s.claims.Release("4713", domain.MustMoney("80.00", "EUR")))
	s.runUntil(10*time.Minute - time.Second)

	// During the outage the outbox holds all three messages, unsent, and
	// the payment service has prepared nothing.
	m := s.relay.Metrics()
	if unsent := m.ByStatus[outbox.Pending] + m.ByStatus[outbox.Failed]; unsent != 3 || m.ByStatus[outbox.Sent] != 0 {
		t.Fatalf("during the outage: %v, want 3 messages waiting in the outbox", m.ByStatus)
	}
	if m.OldestUnsentAge != 10*time.Minute-time.Second {
		t.Fatalf("oldest unsent age %s, want e-5531's 9m59s", m.OldestUnsentAge)
	}
	if n := len(insurance.Payouts(s.payDB)); n != 0 {
		t.Fatalf("%d payouts during the outage, want 0", n)
	}
	first := outbox.All(s.claimsDB)[0]
	if first.ID != "e-5531" || first.Attempts < 5 {
		t.Fatalf("e-5531: %+v, want several failed attempts spaced by backoff", first)
	}

	s.runUntil(20 * time.Minute)

	// Afterwards: e-5531 is SENT, exactly one payout per claim.
	for _, msg := range outbox.All(s.claimsDB) {
		if msg.Status != outbox.Sent {
			t.Fatalf("%s is %s after the outage", msg.ID, msg.Status)
		}
	}
	payouts := payoutsFor(s.payDB, "4711")
	if len(payouts) != 1 || payouts[0].MessageID != "e-5531" || payouts[0].Amount != amount {
		t.Fatalf("payouts for 4711: %+v, want exactly one for e-5531", payouts)
	}
	// The delay is the outage plus at most one backoff interval (5 min cap):
	// "nach der Störung", about ten minutes.
	delay := payouts[0].At.Sub(t0)
	if delay < 10*time.Minute || delay > 15*time.Minute {
		t.Fatalf("payout for 4711 after %s, want between 10 and 15 minutes", delay)
	}
	for _, claim := range []string{"4712", "4713"} {
		if n := len(payoutsFor(s.payDB, claim)); n != 1 {
			t.Errorf("claim %s has %d payouts, want 1", claim, n)
		}
	}
	t.Logf("e-5531 paid out after %s; attempts before the broker came back: %d", delay, first.Attempts)
}

// TestClaim4711LostAcknowledgement: the broker stores e-5531 but its
// acknowledgement is lost; the relay sees a timeout, cannot know whether
// e-5531 arrived, and sends it again. The payment
// service recognises the id and prepares no second payout.
func TestClaim4711LostAcknowledgement(t *testing.T) {
	s := newStory(t)
	s.broker.TimeoutStored(broker.Target{AggregateID: "4711", Sequence: 1})
	must(t, s.claims.Release("4711", domain.MustMoney("1250.00", "EUR")))
	s.runUntil(time.Minute)

	sent := 0
	for _, e := range s.broker.Log() {
		if e.ID == "e-5531" {
			sent++
		}
	}
	if sent != 2 {
		t.Fatalf("the broker stored e-5531 %d times, want 2 (the resend after the lost ack)", sent)
	}
	if n := len(payoutsFor(s.payDB, "4711")); n != 1 {
		t.Fatalf("%d payouts for 4711, want exactly 1", n)
	}
}
