package verify

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Published is one record the harness published to the consumers' topic,
// where the broker stored it, and what it is.
type Published struct {
	Partition int32
	Offset    int64
	At        time.Duration
	EventID   string
	Key       string
	// Planned is "" for a committed event (or a copy of one), else what
	// the record is: a poison record, an amount or a currency the
	// contract does not define, an unknown version or event type, which
	// no consumer can apply and each must dead-letter.
	Planned string
}

// The records a round plans that are no committed event. A poison record
// is among an order's records (its key); the others are each of an order
// of their own that the service never committed, so that one applied is
// the checker's PHANTOM.
const (
	PlannedPoison   = "poison"
	PlannedAmount   = "amount not in its currency's format"
	PlannedCurrency = "currency not in the contract"
	PlannedVersion  = "unknown version"
	PlannedType     = "unknown event type"
)

// publisher is the lab's relay in the consumer rounds: it publishes each
// committed event to the topic, keyed by its aggregate, with the contract's
// headers, and waits for the broker's acknowledgement (the rounds' faults
// decide the order, the copies and the extra records). It keeps the log of
// what the broker stored, from the answers.
type publisher struct {
	tl     *Timeline
	client *kgo.Client
	// sent, if set, is told of each record the broker stored.
	sent func(Published)

	mu  sync.Mutex
	log []Published
}

func newPublisher(tl *Timeline, brokers []string) (*publisher, error) {
	client, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(Topic), kgo.ClientID("the-lab's-relay"),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)), kgo.ProducerLinger(0))
	if err != nil {
		return nil, fmt.Errorf("verify: publisher: %w", err)
	}
	return &publisher{tl: tl, client: client}, nil
}

// event publishes a committed event; why says what the round made of it
// ("" for nothing).
func (p *publisher) event(c Committed, why string) error {
	r := c.Record
	return p.send(Published{EventID: c.EventID, Key: r.AggregateID}, r.Type, strconv.Itoa(r.Version), []byte(r.Payload),
		fmt.Sprintf("%s (%s#%d %s)%s", c.EventID, r.AggregateID, r.Sequence, r.Type, why))
}

// planned publishes a record that is no committed event.
func (p *publisher) planned(what, id, key, typ, version string, value []byte) error {
	return p.send(Published{EventID: id, Key: key, Planned: what}, typ, version, value, fmt.Sprintf("%s (%s, %s v%s): %q", id, what, typ, version, value))
}

func (p *publisher) send(rec Published, typ, version string, value []byte, said string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := &kgo.Record{Key: []byte(rec.Key), Value: value, Headers: []kgo.RecordHeader{
		{Key: HeaderEventID, Value: []byte(rec.EventID)}, {Key: HeaderEventType, Value: []byte(typ)}, {Key: HeaderEventVersion, Value: []byte(version)}}}
	res, err := p.client.ProduceSync(ctx, r).First()
	if err != nil {
		p.tl.Add("relay", 0, "cannot publish %s: %v", said, err)
		return fmt.Errorf("verify: publish %s: %w", rec.EventID, err)
	}
	rec.Partition, rec.Offset, rec.At = res.Partition, res.Offset, p.tl.Since()
	p.mu.Lock()
	p.log = append(p.log, rec)
	sent := p.sent
	p.mu.Unlock()
	p.tl.Add("relay", 0, "published %s at p%d/%d", said, rec.Partition, rec.Offset)
	if sent != nil {
		sent(rec)
	}
	return nil
}

// Log returns what the broker stored, in the order it stored it.
func (p *publisher) Log() []Published {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Published(nil), p.log...)
}

// at returns the record at partition and offset, if the harness
// published it.
func (p *publisher) at(partition int32, offset int64) (Published, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.log {
		if r.Partition == partition && r.Offset == offset {
			return r, true
		}
	}
	return Published{}, false
}

func (p *publisher) close() { p.client.Close() }
