package ordering

import (
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"outboxlab/domain"
	"outboxlab/exercises/frame"
	"outboxlab/exercises/internal/startertest"
	"outboxlab/inbox"
	"outboxlab/lab/grade"
	"outboxlab/store"
	"outboxlab/variant"
)

// stepOne is the consumer after the exercise's first step: handle bills
// each order's events in sequence, parking the early ones, and
// applyParked is the starter's, the second step not taken (a parked event
// billing cannot apply undoes the whole transaction). It is a copy, so
// that the test says the same whether the starter or the solution is
// built.
type stepOne struct{ *consumer }

func (c stepOne) handle(id string, rec domain.Record) error {
	event, err := domain.Decode(rec)
	if err != nil {
		return c.Park(id, rec, err)
	}
	now := c.Env.Clock.Now()
	tx := c.Env.BillingDB.Begin(c.Env.Owner)
	defer tx.Rollback()
	if _, done := tx.Get(inbox.TableProcessed, id); done {
		return nil
	}
	order := event.AggregateID()
	applied := inbox.LoadApplied(tx, order)
	switch {
	case event.Seq() <= applied:
		return nil
	case event.Seq() > applied+1:
		c.park(tx, id, rec, applied+1, now)
	default:
		if err := c.apply(tx, id, event, now); err != nil {
			return err
		}
		if err := c.unfinishedApplyParked(tx, order, now); err != nil {
			return err
		}
	}
	err = c.Env.Gate.Cross(inbox.BoundaryCommit, tx.Commit)
	if errors.Is(err, store.ErrDuplicateKey) {
		return nil
	}
	return err
}

// unfinishedApplyParked is the starter's applyParked.
func (c stepOne) unfinishedApplyParked(tx *store.Tx, order string, now time.Time) error {
	for {
		key := inbox.ParkedKey(order, inbox.LoadApplied(tx, order)+1)
		v, ok := tx.Get(inbox.TableParked, key)
		if !ok {
			return nil
		}
		p := v.(inbox.Parked)
		tx.Delete(inbox.TableParked, key)
		event, err := domain.Decode(p.Envelope.Event)
		if err != nil {
			return err
		}
		if err := c.apply(tx, p.Envelope.ID, event, now); err != nil {
			return err
		}
	}
}

// TestTheFirstStepLeavesOnlyWrongCurrency: the exercise comes in two
// steps. After the first (each order in sequence, the early ones parked,
// with the helpers handed out), the matrix fails at wrong-currency alone,
// and its hint names the second step: a parked event billing cannot apply
// when its turn comes becomes a dead letter.
func TestTheFirstStepLeavesOnlyWrongCurrency(t *testing.T) {
	if err := flag.Set("lab.depth", "quick"); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("lab.depth", "course")
	v := Variant()
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		c := stepOne{&consumer{}}
		c.Consumer = frame.New(env, c.handle)
		return c, nil
	}
	r := &startertest.Recorder{TB: t}
	grade.Grade(r, v, Grading)
	got := strings.Join(strings.Fields(strings.Join(r.Errors, "\n")), " ")
	if len(r.Errors) != 1 || !strings.Contains(got, "in 1 run: matrix at wrong-currency first at wrong-currency") || !strings.Contains(got, "step 2") {
		t.Errorf("after step 1, the grading says (want one finding, at wrong-currency alone, naming step 2):\n%s", strings.Join(r.Errors, "\n"))
	}
}
