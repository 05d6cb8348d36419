package broker

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"outboxlab/domain"
)

// faults is the broker's fault schedule. Every method is deterministic.
type faults struct {
	failNext   int
	outages    []window
	stored     []Target // publish timeouts that store the message
	dropped    []Target // publish timeouts that store nothing
	duplicates []Target
	reorders   []Target
	delays     []delay
	rejected   []Target
	poisoned   []Target
	newer      []Target // delivered in a version no consumer knows
	renamed    []Target // delivered as a type no consumer knows
	extended   []Target // delivered with a field no consumer knows yet
	mispriced  []Target // delivered in a currency its order does not bill in
	garbled    []Target // corrupted in transit on their next delivery, once
	held       []heldEntry
}

type window struct{ from, to time.Time }

type delay struct {
	target Target
	d      time.Duration
}

type heldEntry struct {
	sub    string
	target Target
	e      entry
}

// FailNextPublishes makes the next n publishes fail with ErrUnavailable.
func (b *Broker) FailNextPublishes(n int) { b.faults.failNext = n }

// Outage makes the broker unreachable in [from, to): publishes fail with
// ErrUnavailable and nothing is delivered.
func (b *Broker) Outage(from, to time.Time) {
	b.faults.outages = append(b.faults.outages, window{from, to})
}

// TimeoutStored stores the target's next publish but reports ErrTimeout to
// the publisher, once: the answer was lost on its way back.
func (b *Broker) TimeoutStored(t Target) { b.faults.stored = append(b.faults.stored, t) }

// TimeoutDropped stores nothing of the target's next publish and reports
// ErrTimeout to the publisher, once: the request was lost on its way in.
// The publisher sees the same error as with TimeoutStored.
func (b *Broker) TimeoutDropped(t Target) { b.faults.dropped = append(b.faults.dropped, t) }

// Duplicate delivers the target's next publish twice to every subscriber, once.
func (b *Broker) Duplicate(t Target) { b.faults.duplicates = append(b.faults.duplicates, t) }

// Reorder holds the target back and delivers it right after the next message
// of its aggregate, once: the two arrive swapped.
func (b *Broker) Reorder(t Target) { b.faults.reorders = append(b.faults.reorders, t) }

// Delay makes the target deliverable only d after it was stored.
func (b *Broker) Delay(t Target, d time.Duration) {
	b.faults.delays = append(b.faults.delays, delay{t, d})
}

// Reject refuses every publish of the target with ErrRejected. Heal does not
// end a rejection: it is a permanent property of the message (too large, a
// schema the broker refuses) until FixRejections says its cause was fixed.
func (b *Broker) Reject(t Target) { b.faults.rejected = append(b.faults.rejected, t) }

// Heal ends every transient fault: no more failures, outages, timeouts,
// duplicates or delays, and a message held back for a reorder that never
// came is delivered now. Rejections, poison, unknown contracts and wrong
// currencies are permanent properties of a message and stay (see
// FixRejections and FixPoison).
func (b *Broker) Heal() {
	for _, h := range b.faults.held {
		s := b.mustSub(h.sub)
		h.e.availableAt = b.clock.Now()
		s.queue = append(s.queue, h.e)
		b.record(Action{Kind: Reordered, MessageID: h.e.env.ID, Event: h.e.env.Event, Subscriber: h.sub, Detail: "released at heal", DetailDE: "beim Beheben der Störungen freigegeben"})
	}
	b.faults = faults{rejected: b.faults.rejected, poisoned: b.faults.poisoned, newer: b.faults.newer, renamed: b.faults.renamed,
		mispriced: b.faults.mispriced, extended: b.faults.extended}
}

// FixRejections ends every rejection: the cause was fixed and the messages
// may be published again.
func (b *Broker) FixRejections() { b.faults.rejected = nil }

// Rejections returns the targets the broker refuses, in the order they
// were installed.
func (b *Broker) Rejections() []Target { return slices.Clone(b.faults.rejected) }

// FixRejection ends the rejection of one target: its cause was fixed, the
// others' were not.
func (b *Broker) FixRejection(t Target) {
	b.faults.rejected = slices.DeleteFunc(b.faults.rejected, func(r Target) bool { return r == t })
}

// Poison corrupts the payload of every delivery of the target (a broken
// serializer on the way out): the consumer can never process it. The log
// keeps the original. Like a rejection, poison outlives Heal until
// FixPoison.
func (b *Broker) Poison(t Target) { b.faults.poisoned = append(b.faults.poisoned, t) }

// NewerVersion delivers the target in a version of its contract that no
// consumer knows yet (a producer deployed ahead of its consumers): the
// consumer must put it aside at once, never misread it. Like poison, it
// outlives Heal until FixPoison.
func (b *Broker) NewerVersion(t Target) { b.faults.newer = append(b.faults.newer, t) }

// UnknownType delivers the target as an event type no consumer knows (a
// producer that renamed it), until FixPoison.
func (b *Broker) UnknownType(t Target) { b.faults.renamed = append(b.faults.renamed, t) }

// ExtraField delivers the target with one more field in its payload than
// any consumer knows, type and version unchanged: a producer's compatible
// extension (chapter 000 section 9). A consumer must ignore the field and
// apply the event as it is; nothing is wrong with the message.
func (b *Broker) ExtraField(t Target) { b.faults.extended = append(b.faults.extended, t) }

// WrongCurrency delivers the target, an amendment, with its amount in
// another currency than its order's (a producer's mapping bug): the
// consumer reads it, and cannot apply it, until FixPoison. It changes
// nothing of other events.
func (b *Broker) WrongCurrency(t Target) { b.faults.mispriced = append(b.faults.mispriced, t) }

// CorruptOnce corrupts the payload of the target's next delivery only (a
// transient fault: a bit flipped in transit): the consumer cannot read it
// that time, and reads it when it comes again. Like every transient
// fault, Heal ends it if it has not struck yet.
func (b *Broker) CorruptOnce(t Target) { b.faults.garbled = append(b.faults.garbled, t) }

// FixPoison ends every poisoning, every unknown contract and every wrong
// currency (the cause was fixed, the consumer was upgraded); Redeliver
// then hands out the originals.
func (b *Broker) FixPoison() {
	b.faults.poisoned, b.faults.newer, b.faults.renamed, b.faults.mispriced = nil, nil, nil, nil
}

// currencyField is a currency in an event's JSON payload.
var currencyField = regexp.MustCompile(`"currency":"[A-Z]{3}"`)

// otherCurrency returns payload with every currency changed: USD to CHF,
// any other to USD.
func otherCurrency(payload string) string {
	return currencyField.ReplaceAllStringFunc(payload, func(field string) string {
		if field == `"currency":"USD"` {
			return `"currency":"CHF"`
		}
		return `"currency":"USD"`
	})
}

// UnknownVersion is the version NewerVersion delivers.
const UnknownVersion = 99

// amountField is an amount in an event's JSON payload, in currency units
// with two decimals.
var amountField = regexp.MustCompile(`"amount":"([0-9]+)\.([0-9]{2})"`)

// inCents returns payload with every amount in cents, as version
// UnknownVersion of the contract carries them: a changed contract changes
// what its fields mean, not only its number, so that a consumer that reads
// it as the version it knows books a hundred times the amount.
func inCents(payload string) string {
	return amountField.ReplaceAllStringFunc(payload, func(field string) string {
		m := amountField.FindStringSubmatch(field)
		cents := strings.TrimLeft(m[1]+m[2], "0")
		if cents == "" {
			cents = "0"
		}
		return `"amount":"` + cents + `"`
	})
}

// corrupt returns e as the poison and unknown-contract faults deliver it,
// and what they did to it in English and in German ("" for nothing).
func (f *faults) corrupt(e Envelope) (Envelope, string, string) {
	for _, t := range f.poisoned {
		if t.matches(e) {
			e.Event.Payload = e.Event.Payload[:len(e.Event.Payload)/2]
			return e, "payload corrupted (poison)", "Nutzlast beschädigt (Gift)"
		}
	}
	for i, t := range f.garbled {
		if t.matches(e) {
			f.garbled = slices.Delete(f.garbled, i, i+1)
			e.Event.Payload = e.Event.Payload[:len(e.Event.Payload)/2]
			return e, "payload corrupted in transit, this delivery only", "Nutzlast unterwegs beschädigt, nur bei dieser Zustellung"
		}
	}
	for _, t := range f.newer {
		if t.matches(e) {
			e.Event.Version = UnknownVersion
			e.Event.Payload = inCents(e.Event.Payload)
			return e, fmt.Sprintf("delivered as version %d, which no consumer knows yet, its amounts in cents", UnknownVersion),
				fmt.Sprintf("als Version %d zugestellt, die noch kein Consumer kennt, ihre Beträge in Cent", UnknownVersion)
		}
	}
	for _, t := range f.renamed {
		if t.matches(e) {
			e.Event.Type = "Renamed" + e.Event.Type
			return e, "delivered as type " + e.Event.Type + ", which no consumer knows",
				"als Typ " + e.Event.Type + " zugestellt, den kein Consumer kennt"
		}
	}
	for _, t := range f.extended {
		if t.matches(e) && strings.HasSuffix(e.Event.Payload, "}") {
			e.Event.Payload = strings.TrimSuffix(e.Event.Payload, "}") + `,"loyaltyPoints":12}`
			return e, "delivered with a field no consumer knows yet (loyaltyPoints), same type and version",
				"mit einem Feld zugestellt, das noch kein Consumer kennt (loyaltyPoints), bei gleichem Typ und gleicher Version"
		}
	}
	for _, t := range f.mispriced {
		if t.matches(e) && e.Event.Type == domain.TypeOrderAmended {
			e.Event.Payload = otherCurrency(e.Event.Payload)
			return e, "delivered with its amount in another currency than its order's",
				"zugestellt mit einem Betrag in einer anderen Währung als der ihrer Bestellung"
		}
	}
	return e, "", ""
}

func (f *faults) down(now time.Time) bool {
	_, down := f.outageEnd(now)
	return down
}

func (f *faults) outageEnd(now time.Time) (time.Time, bool) {
	for _, w := range f.outages {
		if !now.Before(w.from) && now.Before(w.to) {
			return w.to, true
		}
	}
	return time.Time{}, false
}

func (f *faults) refuse(e Envelope, now time.Time) error {
	for _, t := range f.rejected {
		if t.matches(e) {
			return ErrRejected
		}
	}
	if f.down(now) {
		return ErrUnavailable
	}
	if f.failNext > 0 {
		f.failNext--
		return ErrUnavailable
	}
	return nil
}

// take removes the first target matching e from list and reports whether
// there was one.
func take(list *[]Target, e Envelope) bool {
	for i, t := range *list {
		if t.matches(e) {
			*list = append((*list)[:i:i], (*list)[i+1:]...)
			return true
		}
	}
	return false
}

func (f *faults) storeOnTimeout(e Envelope) bool { return take(&f.stored, e) }

func (f *faults) dropOnTimeout(e Envelope) bool { return take(&f.dropped, e) }

func (f *faults) delayOf(e Envelope) time.Duration {
	for _, d := range f.delays {
		if d.target.matches(e) {
			return d.d
		}
	}
	return 0
}

// usedUp removes the once-only faults that the publish of e has fired for
// every subscription.
func (f *faults) usedUp(e Envelope) {
	take(&f.duplicates, e)
	take(&f.reorders, e)
}

// duplicate reports whether e is to be delivered twice.
func (f *faults) duplicate(_ string, e Envelope) bool {
	for _, t := range f.duplicates {
		if t.matches(e) {
			return true
		}
	}
	return false
}

func (f *faults) holdForReorder(sub string, e Envelope) bool {
	for _, t := range f.reorders {
		if t.matches(e) {
			f.held = append(f.held, heldEntry{sub: sub, target: t, e: entry{env: e}})
			return true
		}
	}
	return false
}

func (f *faults) releaseAfter(sub string, e Envelope) (entry, bool) {
	for i, h := range f.held {
		if h.sub == sub && h.e.env.Event.AggregateID == e.Event.AggregateID && h.e.env.ID != e.ID {
			f.held = append(f.held[:i:i], f.held[i+1:]...)
			return h.e, true
		}
	}
	return entry{}, false
}

func (f *faults) heldCount(sub string) int {
	n := 0
	for _, h := range f.held {
		if h.sub == sub {
			n++
		}
	}
	return n
}
