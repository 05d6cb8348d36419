package verify

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// history reads every committed change of a row's status and lease, with
// its time and the relay process that wrote it, and writes each into the
// timeline as the database's: a verdict about a write shows the write.
func (w *world) history(ctx context.Context) ([]StatusChange, error) {
	rows, err := w.pool.Query(ctx, `SELECT event_id, old_status, COALESCE(new_status, ''), at, backend,
		COALESCE(old_owner, ''), old_until, COALESCE(new_owner, ''), new_until FROM lab_outbox_history ORDER BY n`)
	if err != nil {
		return nil, fmt.Errorf("verify: history: %w", err)
	}
	changes, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (StatusChange, error) {
		var (
			h                  StatusChange
			at                 time.Time
			backend            int32
			oldUntil, newUntil *time.Time
		)
		err := row.Scan(&h.EventID, &h.Old, &h.New, &at, &backend, &h.OldOwner, &oldUntil, &h.NewOwner, &newUntil)
		h.At, h.OldUntil, h.NewUntil = w.tl.At(at), w.tl.atOrZero(oldUntil), w.tl.atOrZero(newUntil)
		h.Writer = w.db.writer(backend)
		return h, err
	})
	if err != nil {
		return nil, fmt.Errorf("verify: history: %w", err)
	}
	for _, h := range changes {
		w.tl.AddAt(h.At, "database", 0, "%s", h)
	}
	return changes, nil
}

// String says who changed what: "relay-1/1 (pid 4321) wrote e-3:
// IN_FLIGHT → SENT, lease relay-1 until 2.345s → none".
func (h StatusChange) String() string {
	to, verb := h.New, "wrote"
	if to == "" {
		to, verb = "deleted", "deleted"
	}
	return fmt.Sprintf("%s %s %s: %s → %s, lease %s → %s", writerName(h.Writer), verb, h.EventID, h.Old, to,
		lease(h.OldOwner, h.OldUntil), lease(h.NewOwner, h.NewUntil))
}

func lease(owner string, until time.Duration) string {
	switch {
	case owner == "" && until == 0:
		return "none"
	case until == 0:
		return owner
	}
	return fmt.Sprintf("%s until %.3fs", strings.TrimSpace(owner+" "), until.Seconds())
}

// writerName names the process that wrote a change.
func writerName(p *Proc) string {
	if p == nil {
		return "a connection of no relay process the harness saw"
	}
	return fmt.Sprintf("%s (pid %d)", p.Label(), p.OwnPID())
}

// leaseSlack is how close to its end a lease may be taken over: the
// claimer's clock and the database's are one machine's, but a relay may
// compare by another statement's time.
const leaseSlack = 50 * time.Millisecond

// leasesTaken finds live claims taken away (contract rule 4): a change of
// an IN_FLIGHT row before the lease it held ran out, written by another
// process than the one whose change made the row IN_FLIGHT, while that
// one was still alive (a process that died holds nothing: its successor
// releases its claims at start). A relay that, losing one row's fence,
// hands back every IN_FLIGHT row hands back the others' too, and another
// instance sends them while their owners are sending them.
func leasesTaken(history []StatusChange, ended map[*Proc]time.Duration) []string {
	claims := map[string]StatusChange{} // each row's last change to IN_FLIGHT
	said := map[string]bool{}
	var out []string
	for _, h := range history {
		c, claimed := claims[h.EventID]
		live := claimed && h.Old == "IN_FLIGHT" && h.OldUntil > 0 && h.At < h.OldUntil-leaseSlack
		if live && c.Writer != nil && h.Writer != nil && h.Writer != c.Writer && !said[h.EventID] {
			if end, dead := ended[c.Writer]; !dead || end > h.At {
				out = append(out, fmt.Sprintf("%s was claimed by %s at %.3fs under a lease until %.3fs; %s changed it (IN_FLIGHT → %s) at %.3fs, %s before that lease ran out, with %s alive: an instance took away another live instance's claim, which may be publishing it now (rule 4)",
					h.EventID, writerName(c.Writer), c.At.Seconds(), h.OldUntil.Seconds(), writerName(h.Writer), orDeleted(h.New), h.At.Seconds(),
					(h.OldUntil-h.At).Round(time.Millisecond), c.Writer.Label()))
				said[h.EventID] = true
			}
		}
		if h.New == "IN_FLIGHT" {
			claims[h.EventID] = h
		}
	}
	return out
}

func orDeleted(status string) string {
	if status == "" {
		return "deleted"
	}
	return status
}
