package mistakes

import (
	"errors"
	"fmt"
	"outboxlab/lab/lang"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/lab/check"
	"outboxlab/lab/variant"
	"outboxlab/orders"
	"outboxlab/outbox"
)

// NoBackoff is the reference relay with one change: after a failed send it
// tries again a second later, every time, instead of waiting twice as long
// as before (and its own pause after a failure grows no longer either).
//
// WRONG: a broker that is down gets a request every second for every
// waiting message, and the ten attempts the policy allows are gone within
// seconds: the messages are dead letters long before a ten-minute outage
// ends, and each needs an operator's replay. Backoff is what spreads a
// message's attempts over the time a transient fault lasts.
//
// Chapter 000 section 8 and section 11 ("Retry läuft ohne Backoff und
// verstärkt Störungen").
func NoBackoff() variant.Variant {
	return configMistake("no-backoff",
		lang.Text{EN: "retries a failed send every second instead of backing off: the attempts are gone in seconds", DE: "wiederholt ein gescheitertes Senden jede Sekunde, statt länger zu warten: die Versuche sind in Sekunden verbraucht"},
		"000 sections 8 and 11 \"Retry läuft ohne Backoff und verstärkt Störungen\"",
		map[string]check.Outcome{
			"broker-outage":  check.GaveUp,
			"outage-backlog": check.GaveUp,
			"stall-release":  check.GaveUp, // the broker is down for a minute
			// Replayed before its cause is fixed, a refused message spends
			// its ten attempts in ten seconds and is a dead letter again.
			"rejected": check.Stuck,
		},
		func(c *outbox.Config) {
			// MISTAKE: every delay one second, however often the send failed.
			c.BackoffBase, c.BackoffCap, c.PauseCap = time.Second, time.Second, time.Second
		})
}

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
		Expect: map[string]check.Outcome{
			"outage-backlog": check.Storm,
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := variant.ReferenceRelay(env, nil)
			return cronRelay{RelayAdapter: variant.AdaptRelay(r), env: env}, err
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

// cronRelay builds a new reference relay for every step.
type cronRelay struct {
	variant.RelayAdapter
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

// DualWriteRetry is dual-write with a retry: when the publish after the
// commit fails, the service tries it again, up to three times.
//
// WRONG, and only less often: a retry outlasts a single lost request, not
// an outage of minutes, and not a crash of the process, whose retries die
// with it. The order is committed and the event is gone as before; the
// retry only moved the window.
//
// Chapter 003 ("Man kann Retry-Logik ergänzen, aber das verschiebt das
// Problem nur").
func DualWriteRetry() variant.Variant {
	v := DualWrite()
	v.Name = "dual-write-retry"
	v.Summary = lang.Text{EN: "dual-write that retries a failed publish three times: a lost request is covered, a crash or an outage is not", DE: "Dual Write, das ein gescheitertes Senden dreimal wiederholt: eine verlorene Anfrage ist abgedeckt, ein Absturz oder ein Ausfall nicht"}
	v.Chapter = "003 \"Man kann Retry-Logik ergänzen, aber das verschiebt das Problem nur\""
	v.Expect = map[string]check.Outcome{
		"service.after-commit": check.Lost,
		"broker-outage":        check.Lost,
		"outage-backlog":       check.Lost,
		"rejected":             check.Lost,
	}
	v.NewService = func(env variant.Env) (variant.Service, error) {
		return &dualWriteRetryService{newService(env)}, nil
	}
	return v
}

type dualWriteRetryService struct{ *service }

// Handle is dual-write's Handle with the publish retried. DO NOT COPY.
func (s *dualWriteRetryService) Handle(c orders.Command) error {
	now := s.Clock.Now()
	tx := s.DB.Begin(s.Owner)
	defer tx.Rollback()
	event, err := orders.Decide(tx, c, now)
	if err != nil {
		return err
	}
	if err := s.Gate.Cross(orders.BoundaryCommit, tx.Commit); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	// MISTAKE: still a publish after the commit; retried under the same
	// id (the envelope is made once), but the retries live in this
	// process and this request.
	rec, err := domain.Encode(event)
	if err != nil {
		return err
	}
	msg := broker.Envelope{ID: s.IDs.NewID(), Event: rec}
	for attempt := 1; ; attempt++ {
		err := s.Gate.Cross(BoundaryServicePublish, func() error { return s.Broker.Publish(msg) })
		if err == nil || errors.Is(err, effect.ErrCrashed) || attempt == 3 {
			return err
		}
	}
}
