package labtest

import (
	"time"

	"outboxlab/outbox"
	"outboxlab/variant"
)

// Cleaning is the reference whose retention cleanup deletes what goes
// says goes, given the reference's cutoff (now minus the retention).
func Cleaning(name string, goes func(m outbox.Message, cutoff time.Time) bool) variant.Variant {
	v := variant.Outbox()
	v.Name = name
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return Cleaner{RelayAdapter: variant.AdaptRelay(r), env: env, goes: goes}, nil
	}
	return v
}

// Cleaner is a relay with the cleanup of Cleaning; with HostClock its
// cutoff is from the relay's own clock (the host's), not the database's.
type Cleaner struct {
	*variant.RelayAdapter
	env       variant.Env
	goes      func(outbox.Message, time.Time) bool
	HostClock bool
}

// Cleanup deletes what goes says goes, in one commit.
func (c Cleaner) Cleanup() (int, error) {
	clock := outbox.Clock(c.env.DBClock)
	if c.HostClock {
		clock = c.env.Clock
	}
	cutoff := clock.Now().Add(-outbox.DefaultConfig("").Retention)
	tx := c.env.OrderDB.Begin(c.env.Owner)
	defer tx.Rollback()
	n := 0
	tx.Scan(outbox.Table, func(key string, v any) bool {
		if c.goes(v.(outbox.Message), cutoff) {
			tx.Delete(outbox.Table, key)
			n++
		}
		return true
	})
	if n == 0 {
		return 0, nil
	}
	return n, c.env.Gate.Cross(outbox.BoundaryCleanup, tx.Commit)
}
