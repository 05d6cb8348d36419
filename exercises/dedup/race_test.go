package dedup

import (
	"flag"
	"strings"
	"testing"

	"outboxlab/domain"
	"outboxlab/exercises/frame"
	"outboxlab/exercises/internal/startertest"
	"outboxlab/inbox"
	"outboxlab/lab/grade"
	"outboxlab/variant"
)

// checkThenAct is a fix of the starter that moved the id's insert into
// the bill's transaction and left the inbox check before it, as the
// starter has it: check, then act. The matrix runs one billing instance
// and never sees the difference.
func checkThenAct(c *consumer) func(string, domain.Record) error {
	return func(id string, rec domain.Record) error {
		event, err := domain.Decode(rec)
		if err != nil {
			return c.Park(id, rec, err)
		}
		if _, done := c.Env.BillingDB.Get(inbox.TableProcessed, id); done {
			return nil // billed before
		}
		now := c.Env.Clock.Now()
		tx := c.Env.BillingDB.Begin(c.Env.Owner)
		defer tx.Rollback()
		if err := frame.Bill(tx, event, id, now); err != nil {
			return err
		}
		if err := tx.Insert(inbox.TableProcessed, id, inbox.Processed{MessageID: id, At: now}); err != nil {
			return err
		}
		return c.Env.Gate.Cross(inbox.BoundaryCommit, tx.Commit)
	}
}

// TestTheRaceOfTwoBillingInstancesIsGraded: the exercise's grading plays
// story billing-race, two billing instances on one delivery: the
// check-then-act fix passes the matrix (it did pass -exercise) and fails
// there, with the race's hint and its replay.
func TestTheRaceOfTwoBillingInstancesIsGraded(t *testing.T) {
	if err := flag.Set("lab.depth", "quick"); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("lab.depth", "course")
	v := Variant()
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		c := &consumer{}
		c.Consumer = frame.New(env, checkThenAct(c))
		return c, nil
	}
	matrixOnly := &startertest.Recorder{TB: t}
	grade.Grade(matrixOnly, v, grade.Options{Hints: Hints})
	if len(matrixOnly.Errors) != 0 {
		t.Fatalf("the check-then-act fix fails the matrix, which it passed: %v", matrixOnly.Errors)
	}
	r := &startertest.Recorder{TB: t}
	grade.Grade(r, v, Grading)
	got := strings.Join(r.Errors, "\n")
	for _, want := range []string{"story billing-race", "duplicate key", "store.ErrDuplicateKey", "-lab.replay=billing-race"} {
		if !strings.Contains(got, want) {
			t.Errorf("the grading does not say %q:\n%s", want, got)
		}
	}
}
