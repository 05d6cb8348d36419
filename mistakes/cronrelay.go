package mistakes

import (
	"outboxlab/lang"
	"outboxlab/variant"
)

// CronRelay is the reference relay run as a job that starts afresh for
// every poll: a cron job, a scheduled function. Each message still keeps
// its own backoff in the outbox; what the relay kept in memory between
// polls is gone each time, its pause after a failed send among it.
//
// WRONG: a relay that pauses after a failed send asks a broker that is
// down once every few seconds; one that forgets it tries every waiting
// message whose backoff ran out, and a backlog of messages hammers the
// broker with one request each.
//
// Chapter 000 section 5 ("Der Publisher ist kein simpler Cron-Job").
func CronRelay() variant.Variant {
	return variant.Variant{
		Name:    "cron-relay",
		Summary: lang.Text{EN: "the reference relay started afresh for every poll, as a cron job: it forgets its pause after a failed send", DE: "das Relay der Referenz, für jeden Poll neu gestartet wie ein Cron-Job: es vergisst seine Pause nach einem gescheiterten Senden"},
		Chapter: "000 section 5 \"Der Publisher ist kein simpler Cron-Job\"",
		Expect: map[string]variant.Outcome{
			"outage-backlog": variant.Storm,
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := variant.ReferenceRelay(env, nil)
			if err != nil {
				return nil, err
			}
			return cronRelay{RelayAdapter: variant.AdaptRelay(r), env: env}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

// cronRelay builds a new reference relay for every step.
type cronRelay struct {
	*variant.RelayAdapter
	env variant.Env
}

// Step implements variant.Relay: a fresh relay's step.
func (c cronRelay) Step() (bool, error) {
	// MISTAKE: a new relay per poll: what the last one kept in memory
	// (its pause after a failed send) is gone.
	r, err := variant.ReferenceRelay(c.env, nil)
	if err != nil {
		return false, err
	}
	return variant.AdaptRelay(r).Step()
}
