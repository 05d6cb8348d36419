// Package course is a course's own variant, as a learner might hand it
// in: a relay that "optimises" the reference by marking a whole batch
// SENT in one transaction before it sends any of it.
package course

import (
	"outboxlab/broker"
	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/variant"
)

// EagerRelay is the learner's variant. It declares what the learner
// believes: OK everywhere. The lab disagrees.
func EagerRelay() variant.Variant {
	return variant.Variant{
		Name:        "eager-relay",
		Summary:     lang.Text{EN: "a learner's relay: marks the batch SENT, then sends it", DE: "das Relay eines Teilnehmers: markiert den Stapel als SENT, dann sendet es ihn"},
		Chapter:     "(a learner's)",
		Expect:      map[string]variant.Outcome{},
		Install:     variant.InstallAll,
		NewService:  variant.NewOutboxService,
		NewConsumer: variant.NewBillingConsumer,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			ref, err := variant.ReferenceRelay(env, nil)
			if err != nil {
				return nil, err
			}
			return &eager{RelayAdapter: variant.AdaptRelay(ref), env: env}, nil
		},
	}
}

type eager struct {
	*variant.RelayAdapter
	env variant.Env
}

// Step claims, marks the whole batch SENT in one commit, then sends it.
func (r *eager) Step() (bool, error) {
	batch, err := r.ClaimDue()
	if err != nil || len(batch) == 0 {
		return false, err
	}
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	for _, m := range batch {
		cur, ok := outbox.Get(tx, m.Key)
		if ok && cur.MarkSent(r.env.Owner, r.env.DBClock.Now()) == nil {
			tx.Put(outbox.Table, cur.Key, cur)
		}
	}
	if err := r.env.Gate.Cross(outbox.BoundaryMark, tx.Commit); err != nil {
		return true, err
	}
	for _, m := range batch {
		err := r.env.Gate.Cross(outbox.BoundarySend, func() error {
			return r.env.Broker.Publish(broker.Envelope{ID: m.ID, Event: m.Event})
		})
		if err != nil {
			return true, err
		}
	}
	return true, nil
}
