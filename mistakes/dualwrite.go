package mistakes

import (
	"fmt"

	"outboxlab/broker"
	"outboxlab/check"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/orders"
	"outboxlab/variant"
)

// BoundaryServicePublish is the dual-writing service's publish to the broker
// (service.after-publish).
var BoundaryServicePublish = effect.Boundary{Process: "service", Effect: "publish"}

// DualWrite commits the order, then publishes the event to the broker
// directly from the service.
//
// WRONG: there is no common transaction boundary between the database and
// the broker. If the process dies after the commit and before the publish,
// or the broker is unreachable, the order exists and the event is gone for
// good: nothing in the database says that something is still to be sent.
//
// Chapter 000, section 2 ("Das Dual-Write-Problem"): "Wenn die DB committet,
// aber der Prozess vor dem Senden stirbt, fehlt das Event vollständig."
// Chapter 003: "existiert die Bestellung zwar, aber alle nachgelagerten
// Services bekommen für immer nichts davon mit."
func DualWrite() variant.Variant {
	return variant.Variant{
		Name:    "dual-write",
		Summary: "commits the order, then publishes to the broker directly",
		Chapter: "000 section 2, 003 \"Das Dual-Write-Problem\"",
		Expect: map[string]check.Outcome{
			"service.after-commit":    check.Lost,
			"broker-outage":           check.Lost,
			"rejected":                check.Lost,
			"publish-timeout-dropped": check.Lost, // the one publish never arrived
		},
		Install: variant.InstallAll,
		NewService: func(env variant.Env) (variant.Service, error) {
			return &dualWriteService{env: env}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type dualWriteService struct{ env variant.Env }

// Handle commits the change, then publishes. DO NOT COPY.
func (s *dualWriteService) Handle(c orders.Command) error {
	env := s.env
	tx := env.OrderDB.Begin(env.Owner)
	defer tx.Rollback()
	event, err := orders.Decide(tx, c, env.Clock.Now())
	if err != nil {
		return err
	}
	if err := env.Gate.Cross(orders.BoundaryCommit, tx.Commit); err != nil {
		return fmt.Errorf("dual-write: %s: %w", c, err)
	}
	// The order is committed. Everything below can fail, and then the
	// event is lost: nothing durable remembers that it was due.
	return publish(env, BoundaryServicePublish, event)
}

// publish encodes event and sends it to the broker at boundary b.
func publish(env variant.Env, b effect.Boundary, event domain.Event) error {
	rec, err := domain.Encode(event)
	if err != nil {
		return err
	}
	msg := broker.Envelope{ID: env.IDs.NewID(), Event: rec}
	if err := env.Gate.Cross(b, func() error { return env.Broker.Publish(msg) }); err != nil {
		return fmt.Errorf("%s: %w", b, err)
	}
	return nil
}
