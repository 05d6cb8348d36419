package variant

import (
	"time"

	"outboxlab/outbox"
)

// RelayAdapter makes an *outbox.Relay a Relay: it adds NextWake, which a
// production relay never needs (its Run loop polls), from what the
// relay's table shows and what its steps reported. Build it with
// AdaptRelay; its methods are a pointer's, for Step keeps the pause it
// reports for NextWake.
type RelayAdapter struct {
	*outbox.Relay
	// state is what the adapter keeps between calls.
	state adapterState
}

// adapterState is what a RelayAdapter keeps between calls.
type adapterState struct {
	// pausedUntil is the end of the relay's pause after failed sends, as
	// its last step that paused reported it (outbox.StepReport).
	pausedUntil time.Time
	// wake is NextWake's last answer. It reads the relay's table and
	// pausedUntil, nothing else: the answer holds while the database has
	// committed nothing since (store.DB.LastSeq) and the pause is the
	// same, however often a scheduler asks.
	wake struct {
		valid     bool
		seq       uint64
		paused    time.Time
		at        time.Time
		ok        bool
		aggregate map[string]bool // scratch: the aggregates seen by the scan
	}
}

// AdaptRelay returns r as a Relay; the adapter of no relay (r nil) is
// nil, so that no caller holds an adapter around no relay. A NewRelay
// that builds r returns nil and the error when building failed, and
// adapts r only then:
//
//	r, err := outbox.NewRelay(cfg, deps)
//	if err != nil {
//		return nil, err
//	}
//	return variant.AdaptRelay(r), nil
func AdaptRelay(r *outbox.Relay) *RelayAdapter {
	if r == nil {
		return nil
	}
	return &RelayAdapter{Relay: r}
}

// Recover implements Relay.
func (a *RelayAdapter) Recover() error {
	_, err := a.Relay.Recover()
	return err
}

// Step implements Relay.
func (a *RelayAdapter) Step() (bool, error) {
	rep, err := a.Relay.Step()
	if !rep.PausedUntil.IsZero() {
		a.state.pausedUntil = rep.PausedUntil
	}
	return rep.Did(), err
}

// NextWake implements Relay: when Step will next find something to claim
// if nothing else changes, and false if it never will (nothing unsent, or
// only dead letters and the messages blocked behind them). That is the
// earliest time the oldest unsent message of an aggregate may be claimed
// (outbox.Message.ClaimableAt; its later ones wait behind it), and not
// before the relay's pause after failed sends is over.
//
// It reads the committed rows outside a transaction (store.DB.ScanIndex)
// and answers again without reading while nothing has changed.
func (a *RelayAdapter) NextWake() (time.Time, bool) {
	st := &a.state.wake
	seq, paused := a.DB.LastSeq(), a.state.pausedUntil
	if st.valid && st.seq == seq && st.paused.Equal(paused) {
		return st.at, st.ok
	}
	next, found := a.nextClaimable()
	if found && next.Before(paused) {
		next = paused
	}
	st.valid, st.seq, st.paused, st.at, st.ok = true, seq, paused, next, found
	return next, found
}

// nextClaimable returns the earliest time the oldest unsent message of an
// aggregate may be claimed, and false if none ever may.
func (a *RelayAdapter) nextClaimable() (time.Time, bool) {
	if a.DB.IndexLen(outbox.Table, outbox.IndexUnsent) == 0 {
		return time.Time{}, false
	}
	seen := a.state.wake.aggregate
	if seen == nil {
		seen = map[string]bool{}
		a.state.wake.aggregate = seen
	}
	defer clear(seen)
	var next time.Time
	found := false
	a.DB.ScanIndex(outbox.Table, outbox.IndexUnsent, func(_ string, v any) bool {
		m := v.(outbox.Message)
		if seen[m.Event.AggregateID] {
			return true
		}
		seen[m.Event.AggregateID] = true
		if at, ok := m.ClaimableAt(); ok && (!found || at.Before(next)) {
			next, found = at, true
		}
		return true
	})
	return next, found
}

// ReplayDeadLetters implements Relay as an operator does who fixed every
// cause: every dead letter at once (an outbox.Filter that names no order
// and no type).
func (a *RelayAdapter) ReplayDeadLetters() (int, error) {
	return a.Relay.ReplayDeadLetters(outbox.Filter{})
}

// ReplayDeadLettersOf implements SelectiveReplayer: the dead letters of one
// order and event type (outbox.Filter).
func (a *RelayAdapter) ReplayDeadLettersOf(aggregateID, eventType string) (int, error) {
	return a.Relay.ReplayDeadLetters(outbox.Filter{AggregateID: aggregateID, EventType: eventType})
}
