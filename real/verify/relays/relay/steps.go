package relay

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The parts of the claim a broken relay leaves out (see its MISTAKE).
const (
	// ExpiredLease makes an IN_FLIGHT row whose lease ran out due again:
	// the claim of a relay that died or stalled is taken over.
	ExpiredLease = `OR (status = 'IN_FLIGHT' AND lease_until < clock_timestamp())`
	// OldestOfAggregate makes a row wait while an earlier row of its
	// aggregate is unsent, so that one key's events reach Kafka in order.
	OldestOfAggregate = `AND NOT EXISTS (SELECT 1 FROM outbox e
	                  WHERE e.aggregate_id = o.aggregate_id AND e.id < o.id AND e.status <> 'SENT')`
	// SkipLocked locks the rows it selects and passes over rows another
	// instance's claim holds, instead of waiting for them or taking them
	// too.
	SkipLocked = `FOR UPDATE SKIP LOCKED`
)

// DueSQL selects the ids of the due rows, $1 at most: PENDING, FAILED
// whose next attempt is due, and IN_FLIGHT whose lease ran out, each only
// if it is the oldest unsent row of its aggregate.
const DueSQL = `
SELECT id FROM outbox o
WHERE ((status IN ('PENDING', 'FAILED') AND (next_attempt_at IS NULL OR next_attempt_at <= clock_timestamp()))
       ` + ExpiredLease + `)
  ` + OldestOfAggregate + `
ORDER BY id LIMIT $1
` + SkipLocked

// ClaimSQL takes the due rows (DueSQL) under a lease in one statement:
// IN_FLIGHT, owned by $2 until $3 milliseconds from now.
const ClaimSQL = `
WITH due AS (` + DueSQL + `)
UPDATE outbox o SET status = 'IN_FLIGHT', lease_owner = $2,
	lease_until = clock_timestamp() + $3 * interval '1 millisecond'
FROM due WHERE o.id = due.id
RETURNING o.id, o.event_id, o.aggregate_id, o.payload::text`

// Fence is the condition every write of an outcome carries: the row is
// still IN_FLIGHT under this instance's live lease ($2 is the instance).
const Fence = `status = 'IN_FLIGHT' AND lease_owner = $2 AND lease_until > clock_timestamp()`

func (r *Relay) claimDue(ctx context.Context) ([]Row, error) { return r.ClaimWith(ctx, ClaimSQL) }

// ClaimWith runs a claim statement with $1 the batch size, $2 the
// instance and $3 the lease in milliseconds, returning what CollectRows
// reads.
func (r *Relay) ClaimWith(ctx context.Context, claim string) ([]Row, error) {
	rows, err := r.DB.Query(ctx, claim, r.Batch, r.Env.Instance, r.Env.Lease.Milliseconds())
	if err != nil {
		return nil, fmt.Errorf("claim: %w", err)
	}
	return CollectRows(rows)
}

// CollectRows reads (id, event_id, aggregate_id, payload) rows, in id
// order.
func CollectRows(rows pgx.Rows) ([]Row, error) {
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Row, error) {
		var (
			r       Row
			payload string
		)
		err := row.Scan(&r.ID, &r.EventID, &r.AggregateID, &payload)
		r.Payload = []byte(payload)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("claim: %w", err)
	}
	slices.SortFunc(out, func(a, b Row) int { return int(a.ID - b.ID) })
	return out, nil
}

func (r *Relay) recoverClaims(ctx context.Context) error {
	tag, err := r.DB.Exec(ctx, `UPDATE outbox SET status = 'PENDING', lease_owner = NULL, lease_until = NULL
		WHERE status = 'IN_FLIGHT' AND (lease_owner = $1 OR lease_until < clock_timestamp())`, r.Env.Instance)
	if err != nil {
		return fmt.Errorf("recover: %w", err)
	}
	r.logf("recovered %d claim(s)", tag.RowsAffected())
	return nil
}

// deliver sends the rows in order and marks each after its
// acknowledgement. At the first failed send it records the failure, hands
// the rest back and returns the error: the relay pauses as a whole.
func (r *Relay) deliver(ctx context.Context, rows []Row) error {
	r.logf("claimed %s", ids(rows))
	for i, row := range rows {
		if err := r.Send(ctx, row); err != nil {
			if ferr := r.Fail(ctx, row, err); ferr != nil {
				return fmt.Errorf("send %s: %v; %w", row.EventID, err, ferr)
			}
			if herr := r.HandBack(ctx, rows[i+1:]); herr != nil {
				return fmt.Errorf("send %s: %v; %w", row.EventID, err, herr)
			}
			return fmt.Errorf("send %s: %w", row.EventID, err)
		}
		held, err := r.Mark(ctx, row)
		if err != nil {
			return err
		}
		if !held {
			r.logf("sent %s, but its lease was lost: not marked", row.EventID)
		}
	}
	return nil
}

func (r *Relay) send(ctx context.Context, row Row) error {
	rec := &kgo.Record{Key: []byte(row.AggregateID), Value: row.Payload,
		Headers: []kgo.RecordHeader{{Key: r.Env.IDHeader, Value: []byte(row.EventID)}}}
	return r.Kafka.ProduceSync(ctx, rec).FirstErr()
}

func (r *Relay) markSent(ctx context.Context, row Row) (bool, error) {
	tag, err := r.DB.Exec(ctx, `UPDATE outbox SET status = 'SENT', processed_at = clock_timestamp(),
		lease_owner = NULL, lease_until = NULL WHERE id = $1 AND `+Fence, row.ID, r.Env.Instance)
	if err != nil {
		return false, fmt.Errorf("mark %s: %w", row.EventID, err)
	}
	return tag.RowsAffected() == 1, nil
}

func (r *Relay) recordFailure(ctx context.Context, row Row, cause error) error {
	_, err := r.DB.Exec(ctx, `UPDATE outbox SET attempts = attempts + 1, last_error = $3,
		status = CASE WHEN attempts + 1 >= $4 THEN 'DEAD_LETTER' ELSE 'FAILED' END,
		next_attempt_at = clock_timestamp() + least(100 * power(2, attempts), 2000) * interval '1 millisecond',
		lease_owner = NULL, lease_until = NULL WHERE id = $1 AND `+Fence, row.ID, r.Env.Instance, cause.Error(), r.MaxAttempts)
	if err != nil {
		return fmt.Errorf("record failure of %s: %w", row.EventID, err)
	}
	return nil
}

func (r *Relay) handBack(ctx context.Context, rows []Row) error {
	if len(rows) == 0 {
		return nil
	}
	var keys []int64
	for _, row := range rows {
		keys = append(keys, row.ID)
	}
	_, err := r.DB.Exec(ctx, `UPDATE outbox SET status = 'PENDING', lease_owner = NULL, lease_until = NULL
		WHERE id = ANY($1) AND `+Fence, keys, r.Env.Instance)
	if err != nil {
		return fmt.Errorf("hand back %s: %w", ids(rows), err)
	}
	return nil
}

func ids(rows []Row) string {
	var s []string
	for _, r := range rows {
		s = append(s, r.EventID)
	}
	return strings.Join(s, " ")
}
