package sqlitelab

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"outboxlab/billing"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/inbox"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/sim"
	"outboxlab/sim/check"
	"outboxlab/store"
	"outboxlab/variant"
)

// facts are what readWorld reads beside the checker's World.
type facts struct {
	// fired: the crash point was reached Occurrence times.
	fired bool
	// commits is how many transactions the order database committed.
	commits int
	// situations are what the commit log shows the run went through.
	situations []sim.Situation
}

// readWorld reads what the databases and the broker hold after a run into
// the checker's World, as the simulator does from its stores: the committed
// orders and the commit log, the messages not SENT, billing's ledger,
// accounts and parked messages, the broker's log. interruptions is how many
// processes were killed or frozen (each may send a message once more than
// its retry policy says).
func readWorld(dir, postgres string, interruptions int) (w check.World, f facts, err error) {
	orderDB, err := parentOrders(dir, postgres)
	if err != nil {
		return w, f, err
	}
	defer orderDB.done()
	dbs := map[string]*sql.DB{}
	for _, file := range []string{BillingFile, BrokerFile, controlFile} {
		db, err := open(dir, file)
		if err != nil {
			return w, f, err
		}
		defer db.Close()
		dbs[file] = db
	}
	billingDB, brokerDB := dbs[BillingFile], dbs[BrokerFile]

	var firedPID int
	err = dbs[controlFile].QueryRow(`SELECT fired_pid FROM crash`).Scan(&firedPID)
	if err != nil && err != sql.ErrNoRows {
		return w, f, fmt.Errorf("sqlitelab: read control: %w", err)
	}
	log, err := commitLog(orderDB.DB)
	if err != nil {
		return w, f, err
	}
	if w.Orders, err = scanJSON[domain.Order](orderDB, `SELECT body FROM orders ORDER BY id`); err != nil {
		return w, f, err
	}
	if w.Outbox, err = scanMessages(orderDB, `SELECT body FROM outbox WHERE status <> 'SENT' ORDER BY seq`); err != nil {
		return w, f, err
	}
	if w.Ledger, w.Accounts, err = readBilling(billingDB); err != nil {
		return w, f, err
	}
	if w.Held, err = scanJSON[inbox.Parked](billingDB, `SELECT body FROM parked ORDER BY order_id, seq`); err != nil {
		return w, f, err
	}
	if w.Published, err = published(brokerDB); err != nil {
		return w, f, err
	}
	w.StoredAt = check.InLogOrder(len(w.Published)) // an aggregate's order at the broker, judged as the simulator judges it
	for _, m := range w.Outbox {
		if m.Status == outbox.DeadLetter {
			w.DeadLetters = append(w.DeadLetters, variant.DeadLetter{Where: lang.Text{EN: "outbox"}, MessageID: m.ID,
				AggregateID: m.Event.AggregateID, Sequence: m.Event.Sequence, Reason: m.LastError})
		}
	}
	w.Changes = check.Changes(log)
	w.Transient = true // no broker faults on real parts: only crashes
	w.Publishes = attempts(w.Published)
	w.PublishBudget = check.Budget(outbox.DefaultConfig("").MaxAttempts, 1, interruptions)
	w.Unsafe = check.Safety(log, w.Ledger, w.Orders)
	return w, facts{fired: firedPID != 0, commits: len(log), situations: situations(log)}, nil
}

// situations reads from the order database's commit log what the run went
// through that a row exists to produce, as the simulator reads its own: a
// relay that took over a claim whose lease another relay held, a relay
// that released its own claim (a recovery), an outbox row committed after
// a row with a higher id, a failed send recorded.
func situations(log []store.Commit) []sim.Situation {
	seen := map[sim.Situation]bool{}
	last := map[string]outbox.Message{}
	highest := ""
	for _, c := range log {
		for _, ch := range c.Changes {
			if ch.Table != outbox.Table || ch.Deleted {
				continue
			}
			m := ch.Value.(outbox.Message)
			prev, ok := last[ch.Key]
			last[ch.Key] = m
			switch {
			case !ok && ch.Key < highest:
				seen[sim.LateCommit] = true
			case ok && prev.Status == outbox.InFlight && m.Status == outbox.InFlight && prev.LeaseOwner != m.LeaseOwner:
				seen[sim.LeaseTakenOver] = true
			case ok && prev.Status == outbox.InFlight && m.Status == outbox.Pending && prev.LeaseOwner == c.Owner:
				seen[sim.ClaimReleased] = true
			case ok && m.Status == outbox.Failed && prev.Status != outbox.Failed:
				seen[sim.Retried] = true
			}
			highest = max(highest, ch.Key)
		}
	}
	var out []sim.Situation
	for _, s := range sim.Situations() {
		if seen[s] {
			out = append(out, s)
		}
	}
	return out
}

// commitLog reads the order database's commit log as the store's, with
// each row decoded into the value the lab's own store would hold.
func commitLog(db *sql.DB) ([]store.Commit, error) {
	rows, err := db.Query(`SELECT commit_seq, owner, at, tbl, key, body FROM commit_log ORDER BY n`)
	if err != nil {
		return nil, fmt.Errorf("sqlitelab: read commit log: %w", err)
	}
	defer rows.Close()
	var log []store.Commit
	for rows.Next() {
		var (
			seq         uint64
			owner       string
			at          int64
			table, key  string
			body        sql.NullString
			change      store.Change
			decodeError error
		)
		if err := rows.Scan(&seq, &owner, &at, &table, &key, &body); err != nil {
			return nil, fmt.Errorf("sqlitelab: read commit log: %w", err)
		}
		change = store.Change{Table: table, Key: key, Deleted: !body.Valid}
		if body.Valid {
			switch table {
			case orders.Table:
				var o domain.Order
				decodeError = json.Unmarshal([]byte(body.String), &o)
				change.Value = o
			case outbox.Table:
				var m outbox.Message
				decodeError = json.Unmarshal([]byte(body.String), &m)
				change.Value = m
			}
			if decodeError != nil {
				return nil, fmt.Errorf("sqlitelab: commit %d: %s %s: %w", seq, table, key, decodeError)
			}
		}
		if n := len(log); n == 0 || log[n-1].Seq != seq {
			log = append(log, store.Commit{Seq: seq, Owner: owner, At: time.Unix(0, at).UTC()})
		}
		log[len(log)-1].Changes = append(log[len(log)-1].Changes, change)
	}
	return log, rows.Err()
}

// published reads every message the broker stored, in order.
func published(db *sql.DB) ([]broker.Envelope, error) {
	rows, err := db.Query(`SELECT id, record FROM log ORDER BY offset`)
	if err != nil {
		return nil, fmt.Errorf("sqlitelab: read broker: %w", err)
	}
	defer rows.Close()
	var out []broker.Envelope
	for rows.Next() {
		var (
			e      broker.Envelope
			record []byte
		)
		if err := rows.Scan(&e.ID, &record); err != nil {
			return nil, fmt.Errorf("sqlitelab: read broker: %w", err)
		}
		if err := json.Unmarshal(record, &e.Event); err != nil {
			return nil, fmt.Errorf("sqlitelab: read broker: %s: %w", e.ID, err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// attempts counts the publishes of each message, in the order of the first:
// every publish is stored here (the broker has no faults), so the log has
// them all.
func attempts(log []broker.Envelope) []check.Attempts {
	var out []check.Attempts
	index := map[string]int{}
	for _, e := range log {
		i, ok := index[e.ID]
		if !ok {
			i = len(out)
			index[e.ID] = i
			out = append(out, check.Attempts{MessageID: e.ID, AggregateID: e.Event.AggregateID, Sequence: e.Event.Sequence})
		}
		out[i].N++
	}
	return out
}

// readBilling reads the ledger in the order applied and the accounts by
// order id.
func readBilling(db *sql.DB) ([]billing.Entry, []billing.Account, error) {
	rows, err := db.Query(`SELECT n, order_id, seq, kind, minor, currency, message_id, at FROM ledger ORDER BY n`)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlitelab: read ledger: %w", err)
	}
	defer rows.Close()
	var ledger []billing.Entry
	for rows.Next() {
		var (
			e     billing.Entry
			n, at int64
		)
		if err := rows.Scan(&n, &e.OrderID, &e.Sequence, &e.Kind, &e.Amount.Minor, &e.Amount.Currency, &e.MessageID, &at); err != nil {
			return nil, nil, fmt.Errorf("sqlitelab: read ledger: %w", err)
		}
		e.Key, e.At = store.SeqKey("", int(n)), time.Unix(0, at).UTC()
		ledger = append(ledger, e)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("sqlitelab: read ledger: %w", err)
	}
	accRows, err := db.Query(`SELECT order_id, minor, currency, cancelled FROM accounts ORDER BY order_id`)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlitelab: read accounts: %w", err)
	}
	defer accRows.Close()
	var accounts []billing.Account
	for accRows.Next() {
		var a billing.Account
		if err := accRows.Scan(&a.OrderID, &a.Billed.Minor, &a.Billed.Currency, &a.Cancelled); err != nil {
			return nil, nil, fmt.Errorf("sqlitelab: read accounts: %w", err)
		}
		accounts = append(accounts, a)
	}
	return ledger, accounts, accRows.Err()
}
