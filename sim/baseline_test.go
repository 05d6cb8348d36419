package sim_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"outboxlab/domain"
)

// The baseline: the logical work of one lifecycle run (an order placed,
// its outbox row, a relay's claim under a lease, the publish, the mark, a
// broker queue with in-flight deliveries and acks, a consumer with an
// inbox, a per-order sequence, a ledger and an account, a crash point at
// every boundary, a check at the end) written as plain typed Go: typed
// maps, a write buffer discarded on a crash, unique checks at commit, an
// ordered list of unsent messages, the same event codec, and no simulator.
// It is the honest limit of what BenchmarkLifecycle and BenchmarkCrashRun
// could cost.

type bMessage struct {
	id         string
	key        int
	rec        domain.Record
	status     int // 0 pending, 1 in flight, 2 sent
	leaseOwner string
	leaseUntil time.Time
}

type bEntry struct {
	order  string
	seq    int
	amount domain.Money
}

// bWorld is the three durable systems and the crash plan.
type bWorld struct {
	orders   map[string]domain.Order
	outbox   map[int]*bMessage
	unsent   []int // keys, in order
	nextKey  int
	queue    []*bMessage
	inflight map[uint64]*bMessage
	nextTag  uint64
	inbox    map[string]bool
	applied  map[string]int
	ledger   []bEntry
	accounts map[string]domain.Money
	crashAt  string // a boundary that crashes, once; "" for none
	crossed  map[string]int
	now      time.Time
}

// cross is a boundary: it reports whether the process crashes here.
func (w *bWorld) cross(boundary string) bool {
	w.crossed[boundary]++
	if w.crashAt == boundary && w.crossed[boundary] == 3 {
		w.crashAt = ""
		return true
	}
	return false
}

// place writes the order and its outbox row in one transaction.
func (w *bWorld) place(id string, amount domain.Money) error {
	order, event, err := domain.AcceptOrder(id, amount, w.now)
	if err != nil {
		return err
	}
	rec, err := domain.Encode(event)
	if err != nil {
		return err
	}
	if _, exists := w.orders[id]; exists {
		return fmt.Errorf("order %s exists", id)
	}
	w.nextKey++
	m := &bMessage{id: fmt.Sprintf("e-%d", w.nextKey), key: w.nextKey, rec: rec}
	if w.cross("service.commit") {
		return nil // the write buffer is gone
	}
	w.orders[id] = order
	w.outbox[m.key] = m
	w.unsent = append(w.unsent, m.key)
	return nil
}

// relayStep claims what is due, sends and marks it.
func (w *bWorld) relayStep() {
	var batch []*bMessage
	for _, k := range w.unsent {
		m := w.outbox[k]
		if m.status == 1 && w.now.Before(m.leaseUntil) {
			continue
		}
		batch = append(batch, m)
	}
	if w.cross("relay.claim") {
		return
	}
	for _, m := range batch {
		m.status, m.leaseOwner, m.leaseUntil = 1, "relay-1", w.now.Add(30*time.Second)
	}
	for _, m := range batch {
		if w.cross("relay.send") {
			return
		}
		w.queue = append(w.queue, m)
		if w.cross("relay.mark") {
			return
		}
		if m.leaseOwner == "relay-1" && w.now.Before(m.leaseUntil) {
			m.status = 2
			w.unsent = slices.DeleteFunc(w.unsent, func(k int) bool { return k == m.key })
		}
	}
}

// consumerStep handles the next delivery.
func (w *bWorld) consumerStep() (bool, error) {
	if len(w.queue) == 0 {
		return false, nil
	}
	m := w.queue[0]
	w.queue = w.queue[1:]
	w.nextTag++
	w.inflight[w.nextTag] = m
	tag := w.nextTag
	event, err := domain.Decode(m.rec)
	if err != nil {
		return true, err
	}
	if !w.inbox[m.id] && event.Seq() == w.applied[event.AggregateID()]+1 {
		a := event.(domain.OrderAccepted)
		if w.cross("consumer.commit") {
			w.reconnect()
			return true, nil
		}
		w.ledger = append(w.ledger, bEntry{order: a.OrderID, seq: a.Sequence, amount: a.Total})
		w.accounts[a.OrderID] = a.Total
		w.applied[a.OrderID] = a.Sequence
		w.inbox[m.id] = true
	}
	if w.cross("consumer.ack") {
		w.reconnect()
		return true, nil
	}
	delete(w.inflight, tag)
	return true, nil
}

// reconnect is the consumer's restart: its unacknowledged deliveries go
// back to the queue, in the order they were delivered.
func (w *bWorld) reconnect() {
	tags := slices.Sorted(maps.Keys(w.inflight))
	for _, tag := range tags {
		w.queue = append(w.queue, w.inflight[tag])
		delete(w.inflight, tag)
	}
}

// check compares the ledger with the committed orders.
func (w *bWorld) check() error {
	billed := map[string]int{}
	for _, e := range w.ledger {
		o, ok := w.orders[e.order]
		if !ok || o.Total != e.amount {
			return fmt.Errorf("%s#%d: billed %s, ordered %v", e.order, e.seq, e.amount, o.Total)
		}
		billed[e.order]++
	}
	for id := range w.orders {
		if billed[id] != 1 {
			return fmt.Errorf("%s billed %d times", id, billed[id])
		}
	}
	return nil
}

// baselineRun places n orders 100 ms apart and lets relay and consumer
// move each through, as BenchmarkLifecycle's workload does.
func baselineRun(n int, crashAt string) error {
	_, err := baselineWorld(n, crashAt)
	return err
}

// baselineWorld is baselineRun, returning the world too.
func baselineWorld(n int, crashAt string) (*bWorld, error) {
	w := &bWorld{
		orders: map[string]domain.Order{}, outbox: map[int]*bMessage{}, inflight: map[uint64]*bMessage{},
		inbox: map[string]bool{}, applied: map[string]int{}, accounts: map[string]domain.Money{},
		crossed: map[string]int{}, crashAt: crashAt, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	amount := domain.MustMoney("10.00", "EUR")
	for i := range n {
		if err := w.place(fmt.Sprintf("o-%d", i+1), amount); err != nil {
			return w, err
		}
		w.relayStep()
		for {
			did, err := w.consumerStep()
			if err != nil {
				return w, err
			}
			if !did {
				break
			}
		}
		w.now = w.now.Add(100 * time.Millisecond)
	}
	// Quiesce: what a crash left behind goes out once its lease ran out.
	w.now = w.now.Add(time.Minute)
	w.relayStep()
	for {
		if did, err := w.consumerStep(); err != nil || !did {
			break
		}
	}
	return w, w.check()
}

// BenchmarkBaseline is BenchmarkLifecycle's work as plain typed Go, and
// BenchmarkBaseline/crash BenchmarkCrashRun's (ten orders, a crash at the
// relay's third send).
func BenchmarkBaseline(b *testing.B) {
	b.Run("lifecycle", func(b *testing.B) {
		const perRun = 100
		b.ReportAllocs()
		for b.Loop() {
			if err := baselineRun(perRun, ""); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perRun), "ns/msg")
	})
	b.Run("crash", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := baselineRun(10, "relay.send"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestBaselineChecksWhatItDoes: the baseline's runs pass its check, and
// the check fails a ledger that bills an order twice, so that the
// benchmark measures work that is checked.
func TestBaselineChecksWhatItDoes(t *testing.T) {
	for _, crash := range []string{"", "relay.send", "consumer.commit"} {
		w, err := baselineWorld(10, crash)
		if err != nil {
			t.Fatalf("crash %q: %v", crash, err)
		}
		w.ledger = append(w.ledger, w.ledger[0])
		if w.check() == nil {
			t.Fatalf("crash %q: a double bill passed the check", crash)
		}
	}
}
