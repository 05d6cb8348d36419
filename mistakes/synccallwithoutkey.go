package mistakes

import (
	"fmt"
	"time"

	"outboxlab/alternatives/synccall"
	"outboxlab/billing"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/store"
	"outboxlab/variant"
)

// SyncCallWithoutKey is chapter 004's synchronous call (synccall.Variant)
// whose call carries no idempotency key: billing applies every call it
// gets. The chapter's remedy for a call whose answer never reached the
// clerk (the service died after billing confirmed) is the clerk's repeat,
// and it is safe only because "der Zahlungsdienst erkennt den
// wiederholten Aufruf an der Fallnummer". Without the key the repeat
// bills o-1 a second time: DUPLICATE in story sync-call. The matrix's
// workload repeats no command, so its cells are sync-call's (PHANTOM
// where the service dies after the call); the story shows the harm.
func SyncCallWithoutKey() variant.Variant {
	v := synccall.Variant()
	v.Name = "sync-call-without-key"
	v.Summary = lang.Text{EN: "the synchronous call without its idempotency key: billing applies a repeated call again", DE: "der direkte Aufruf ohne Idempotenzschlüssel: Billing führt einen wiederholten Aufruf noch einmal aus"}
	v.Chapter = "004 \"erkennt den wiederholten Aufruf an der Fallnummer\""
	v.NewService = func(env variant.Env) (variant.Service, error) {
		return &syncCallService{DB: env.OrderDB, Billing: env.BillingDB, Gate: env.Gate, Clock: env.Clock, Owner: env.Owner}, nil
	}
	return v
}

// syncCallService is synccall.Service with the mistake in its call.
type syncCallService struct {
	DB      *store.DB
	Billing *store.DB
	Gate    effect.Gate
	Clock   synccall.Clock
	Owner   string
}

// Handle decides the command, has billing apply it, and commits the order.
func (s *syncCallService) Handle(c orders.Command) error {
	now := s.Clock.Now()
	tx := s.DB.Begin(s.Owner)
	defer tx.Rollback()
	event, err := orders.Decide(tx, c, now)
	if err != nil {
		return err
	}
	if err := s.Gate.Cross(synccall.BoundaryCall, func() error { return s.call(event, now) }); err != nil {
		return fmt.Errorf("synccall: %s: billing: %w", c, err)
	}
	if err := s.Gate.Cross(orders.BoundaryCommit, tx.Commit); err != nil {
		return fmt.Errorf("synccall: %s: %w", c, err)
	}
	return nil
}

// call is billing's endpoint without the key: it applies every call.
func (s *syncCallService) call(event domain.Event, now time.Time) error {
	tx := s.Billing.Begin(s.Owner)
	defer tx.Rollback()
	key := fmt.Sprintf("%s#%d", event.AggregateID(), event.Seq())
	// MISTAKE: the call is not recognised by its key (chapter 004: "erkennt
	// den wiederholten Aufruf an der Fallnummer"): nothing is looked up and
	// nothing recorded, so the clerk's repeat after a lost answer is
	// applied a second time.
	if err := billing.ApplyEffect(tx, event, key, now); err != nil {
		return err
	}
	inbox.SetApplied(tx, event.AggregateID(), event.Seq())
	return tx.Commit()
}
