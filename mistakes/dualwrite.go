package mistakes

import (
	"fmt"

	"outboxlab/alternatives/listen"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/variant"
)

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
		Summary: lang.Text{EN: "commits the order, then publishes to the broker directly", DE: "committet die Bestellung und veröffentlicht dann direkt an den Broker"},
		Chapter: "000 section 2, 003 \"Das Dual-Write-Problem\"",
		Expect: map[string]variant.Outcome{
			"service.after-commit":    variant.Lost,
			"broker-outage":           variant.Lost,
			"outage-backlog":          variant.Lost,
			"rejected":                variant.Lost,
			"publish-timeout-dropped": variant.Lost, // the one publish never arrived
		},
		Install: variant.InstallAll,
		NewService: func(env variant.Env) (variant.Service, error) {
			return &dualWriteService{newService(env)}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

// service is the reference order service with a broker at hand, so that
// a mistake's Handle reads as orders.Service.Handle with one change.
type service struct {
	*orders.Service
	Broker broker.Publisher
}

// newService builds it for env's process.
func newService(env variant.Env) *service {
	return &service{
		Service: &orders.Service{DB: env.OrderDB, Gate: env.Gate, Clock: env.Clock, IDs: env.IDs, Owner: env.Owner},
		Broker:  env.Broker,
	}
}

// publish encodes event and sends it to the broker at boundary b.
func (s *service) publish(b effect.Boundary, event domain.Event) error {
	rec, err := domain.Encode(event)
	if err != nil {
		return err
	}
	msg := broker.Envelope{ID: s.IDs.NewID(), Event: rec}
	return s.Gate.Cross(b, func() error { return s.Broker.Publish(msg) })
}

type dualWriteService struct{ *service }

// Handle is orders.Service.Handle with a publish where the outbox row was.
// DO NOT COPY.
func (s *dualWriteService) Handle(c orders.Command) error {
	now := s.Clock.Now()
	tx := s.DB.Begin(s.Owner)
	defer tx.Rollback()
	event, err := orders.Decide(tx, c, now)
	if err != nil {
		return err
	}
	// MISTAKE: no outbox row in the order's transaction; the event is
	// published below, after the commit.
	if err := s.Gate.Cross(orders.BoundaryCommit, tx.Commit); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	// MISTAKE: the event goes to the broker after the commit, not into the
	// outbox inside it. If this fails or the process dies first, the event
	// is lost: nothing durable remembers that it was due.
	if err := s.publish(listen.BoundaryPublish, event); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	return nil
}
