package pglab

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/outbox"
	"outboxlab/sim/check"
	"outboxlab/store"
	"outboxlab/variant"
)

// Judge reads what PostgreSQL holds (the committed orders, the outbox
// messages not SENT), lets the core's reference billing consumer apply
// delivered, the messages billing received in the order received (in
// memory: the relays are what runs on real parts here, billing is the
// lab's own), and returns the core checker's violations.
func Judge(ctx context.Context, pool *pgxpool.Pool, delivered []broker.Envelope) ([]check.Violation, error) {
	var w check.World
	rows, err := pool.Query(ctx, `SELECT body FROM orders ORDER BY id`)
	if err != nil {
		return nil, err
	}
	if w.Orders, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Order, error) {
		var body []byte
		if err := row.Scan(&body); err != nil {
			return domain.Order{}, err
		}
		var o domain.Order
		return o, json.Unmarshal(body, &o)
	}); err != nil {
		return nil, fmt.Errorf("pglab: judge: orders: %w", err)
	}
	rows, err = pool.Query(ctx, `SELECT id, message_id, record, status, COALESCE(lease_owner, ''), lease_until, created_at
		FROM outbox WHERE status <> 'SENT' ORDER BY id`)
	if err != nil {
		return nil, err
	}
	if w.Outbox, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (outbox.Message, error) {
		var (
			m     outbox.Message
			id    int64
			until *time.Time
		)
		err := row.Scan(&id, &m.ID, &m.Event, &m.Status, &m.LeaseOwner, &until, &m.CreatedAt)
		m.Key = store.SeqKey("", int(id))
		if until != nil {
			m.LeaseUntil = *until
		}
		return m, err
	}); err != nil {
		return nil, fmt.Errorf("pglab: judge: outbox: %w", err)
	}
	w.Published = delivered
	if w.Ledger, w.Accounts, w.Held, err = Bill(w.Published); err != nil {
		return nil, err
	}
	w.Quiesced, w.Transient = true, true
	return check.Check(w), nil
}

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// Bill runs the core's reference billing consumer over the messages, in
// the order given, and returns its ledger, its accounts and what it holds
// (parked or dead letters). verify's judge calls it too.
func Bill(published []broker.Envelope) ([]billing.Entry, []billing.Account, []inbox.Parked, error) {
	clock := fixedClock{time.Now().UTC()}
	db := store.New("billing")
	b := broker.New(clock)
	if err := billing.Install(db); err != nil {
		return nil, nil, nil, err
	}
	if err := b.Subscribe(variant.Subscription); err != nil {
		return nil, nil, nil, err
	}
	for _, e := range published {
		if err := b.Publish(e); err != nil {
			return nil, nil, nil, err
		}
	}
	c, err := inbox.NewConsumer(inbox.DefaultConfig("billing", variant.Subscription),
		inbox.Deps{DB: db, Broker: b, Gate: effect.Direct{}, Clock: clock, Effect: billing.ApplyEffect})
	if err != nil {
		return nil, nil, nil, err
	}
	for {
		did, err := c.Step()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("pglab: billing: %w", err)
		}
		if !did {
			return billing.Ledger(db), billing.Accounts(db), inbox.Held(db), nil
		}
	}
}
