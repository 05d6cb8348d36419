package mistakes

import (
	"errors"
	"fmt"

	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/store"
	"outboxlab/variant"
)

// RecoverAll is the reference relay with one change in its recovery: after
// a restart it releases every IN_FLIGHT message, not only its own. It is
// chapter 000's recoverInFlight taken literally (UPDATE outbox SET
// status = 'PENDING' WHERE status = 'IN_FLIGHT').
//
// WRONG: with one relay this is harmless, which is why it looks right. With
// several, a restarting relay takes the live claims of the others away:
// another relay is sending the message right now, and the restarted one
// (or a third) claims and sends it again. Two live owners of one message is
// exactly what the lease was for. A relay may release only its own claims;
// the others' are taken over when their leases run out.
//
// Chapter 000 section 5 (recoverInFlight); chapter 003 ("Mehrere
// Relay-Instanzen").
func RecoverAll() variant.Variant {
	return variant.Variant{
		Name:    "recover-all",
		Summary: lang.Text{EN: "a restart releases every IN_FLIGHT message, also other relays' live claims", DE: "ein Neustart gibt jede IN_FLIGHT-Nachricht frei, auch noch gültige Claims anderer Relays"},
		Chapter: "000 section 5 (recoverInFlight), 003 \"Mehrere Relay-Instanzen\"",
		Expect: map[string]variant.Outcome{
			"relay-restart":     variant.Unsafe, // relay-1 restarts while relay-2 holds a live claim
			"stall-release":     variant.Unsafe, // relay-2 starts while relay-1 holds live claims
			"relay.after-claim": variant.Unsafe, // with two relays: the other's claim of a later order
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			r, err := newRelay(env, nil)
			if err != nil {
				return nil, err
			}
			return &recoverAllRelay{r}, nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}

type recoverAllRelay struct{ *relay }

// Recover implements variant.Relay with recover.
func (r *recoverAllRelay) Recover() error {
	_, err := r.recover()
	return err
}

// recover is outbox.Relay.Recover with one condition dropped. DO NOT COPY.
func (r *recoverAllRelay) recover() (int, error) {
	tx := r.DB.Begin(r.cfg.Owner)
	defer tx.Rollback()
	released := 0
	tx.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		m := v.(outbox.Message)
		// MISTAKE: every IN_FLIGHT message; the reference releases only
		// its own (&& m.LeaseOwner == r.cfg.Owner).
		if m.Status == outbox.InFlight {
			if err := m.Release(m.LeaseOwner); err == nil {
				tx.Put(outbox.Table, m.Key, m)
				released++
			}
		}
		return true
	})
	if released == 0 {
		return 0, nil
	}
	err := r.Gate.Cross(outbox.BoundaryRecover, tx.Commit)
	if errors.Is(err, store.ErrConflict) {
		return 0, nil // another relay took them over meanwhile
	}
	if err != nil {
		return 0, fmt.Errorf("outbox: recover: %w", err)
	}
	return released, nil
}
