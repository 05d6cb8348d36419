package inbox_test

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/inbox"
)

// TestParkedByAggregate: the parked messages come grouped by aggregate,
// each aggregate once however many of its messages wait, in the order of
// the keys (o-1 before o-10 before o-2), each one's messages by sequence
// (#3 before #12, whatever order they were parked in); the ones parked in
// the transaction itself are among them.
func TestParkedByAggregate(t *testing.T) {
	f := newFixture(t)
	park := func(order string, seq int) inbox.Parked {
		return inbox.Parked{Envelope: broker.Envelope{ID: order + "#" + strconv.Itoa(seq), Event: domain.Record{AggregateID: order, Sequence: seq}}, Reason: "waiting", At: t0}
	}
	tx := f.db.Begin("billing")
	parked := []inbox.Parked{park("o-2", 3), park("o-1", 12), park("o-10", 2), park("o-1", 3)}
	for _, p := range parked {
		tx.Put(inbox.TableParked, inbox.ParkedKey(p.Envelope.Event.AggregateID, p.Envelope.Event.Sequence), p)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx = f.db.Begin("billing")
	defer tx.Rollback()
	extra := park("o-2", 5)
	tx.Put(inbox.TableParked, inbox.ParkedKey("o-2", 5), extra)
	want := []inbox.ParkedAggregate{
		{AggregateID: "o-1", Keys: []string{inbox.ParkedKey("o-1", 3), inbox.ParkedKey("o-1", 12)}, Parked: []inbox.Parked{parked[3], parked[1]}},
		{AggregateID: "o-10", Keys: []string{inbox.ParkedKey("o-10", 2)}, Parked: []inbox.Parked{parked[2]}},
		{AggregateID: "o-2", Keys: []string{inbox.ParkedKey("o-2", 3), inbox.ParkedKey("o-2", 5)}, Parked: []inbox.Parked{parked[0], extra}},
	}
	if diff := cmp.Diff(want, inbox.ParkedByAggregate(tx)); diff != "" {
		t.Errorf("ParkedByAggregate (-want +got):\n%s", diff)
	}
}
