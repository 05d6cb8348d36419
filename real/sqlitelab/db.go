package sqlitelab

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	_ "github.com/ncruces/go-sqlite3/driver" // registers "sqlite3"

	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/store"
)

// The files of one run, all in one directory.
const (
	OrderFile   = "orders.db"  // orders, outbox, commit log
	BillingFile = "billing.db" // inbox, applied sequences, parked, ledger, accounts
	BrokerFile  = "broker.db"  // the broker's log and its subscriber's state
	controlFile = "control.db" // the run's crash point and how often it was crossed
)

// open opens a SQLite file of dir in WAL mode. Every transaction begins
// IMMEDIATE: SQLite has one writer, and taking the write lock at BEGIN
// serialises the relays' claims the way SELECT ... FOR UPDATE does in
// PostgreSQL; a writer that finds the lock taken waits (busy_timeout).
//
// synchronous=NORMAL: in WAL mode a commit is in the operating system's
// hands when COMMIT returns, so it survives the death of the process (what
// this harness tests), not a power loss (that needs synchronous=FULL).
func open(dir, file string) (*sql.DB, error) {
	dsn := "file:" + filepath.Join(dir, file) +
		"?_pragma=busy_timeout(20000)&_pragma=journal_mode(wal)&_pragma=synchronous(normal)&_txlock=immediate"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlitelab: open %s: %w", file, err)
	}
	db.SetMaxOpenConns(1) // one connection per process: a process is one client
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlitelab: open %s: %w", file, err)
	}
	return db, nil
}

// schemas are the tables of each file.
var schemas = map[string]string{
	OrderFile: `
CREATE TABLE orders (
	id      TEXT PRIMARY KEY,
	version INTEGER NOT NULL,
	body    TEXT NOT NULL -- domain.Order as JSON
);
CREATE TABLE outbox (
	seq    INTEGER PRIMARY KEY, -- creation order: the message's Key
	id     TEXT NOT NULL UNIQUE, -- the stable message id billing deduplicates by
	status TEXT NOT NULL,
	body   TEXT NOT NULL -- outbox.Message as JSON
);
-- Chapter 003's partial index: a poll reads only what is not SENT.
CREATE INDEX outbox_unsent ON outbox (seq) WHERE status <> 'SENT';
-- Every row a transaction wrote, written by that transaction: it holds
-- exactly what was committed, as the lab's store.DB.Log does, and the
-- checker reads the committed business changes and the leases from it.
CREATE TABLE commit_log (
	n          INTEGER PRIMARY KEY,
	commit_seq INTEGER NOT NULL,
	owner      TEXT NOT NULL,
	at         INTEGER NOT NULL, -- unix nanoseconds
	tbl        TEXT NOT NULL,
	key        TEXT NOT NULL,
	body       TEXT -- NULL for a deletion
);
CREATE INDEX commit_log_seq ON commit_log (commit_seq); -- each commit draws MAX + 1`,
	BillingFile: `
CREATE TABLE processed (message_id TEXT PRIMARY KEY, at INTEGER NOT NULL); -- the inbox
CREATE TABLE applied (order_id TEXT PRIMARY KEY, seq INTEGER NOT NULL);
CREATE TABLE parked (
	order_id TEXT NOT NULL,
	seq      INTEGER NOT NULL,
	body     TEXT NOT NULL, -- inbox.Parked as JSON
	PRIMARY KEY (order_id, seq)
);
-- Money as minor units and currency: an effect a wrong consumer computes
-- may have no currency (a credit on an account never billed), and the
-- table must hold what it did.
CREATE TABLE ledger (
	n          INTEGER PRIMARY KEY, -- the order applied
	order_id   TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	kind       TEXT NOT NULL,
	minor      INTEGER NOT NULL,
	currency   TEXT NOT NULL,
	message_id TEXT NOT NULL,
	at         INTEGER NOT NULL
);
CREATE TABLE accounts (
	order_id  TEXT PRIMARY KEY,
	minor     INTEGER NOT NULL,
	currency  TEXT NOT NULL,
	cancelled INTEGER NOT NULL
);`,
	BrokerFile: `
-- One subscription (billing), so a message's delivery state lives in its row:
-- acked, or held by a consumer session (its process id), or queued (0).
CREATE TABLE log (
	offset  INTEGER PRIMARY KEY,
	id      TEXT NOT NULL,
	record  TEXT NOT NULL, -- domain.Record as JSON
	acked   INTEGER NOT NULL DEFAULT 0,
	session INTEGER NOT NULL DEFAULT 0
);`,
	controlFile: `
CREATE TABLE crash (point TEXT NOT NULL, occurrence INTEGER NOT NULL, crossed INTEGER NOT NULL, fired_pid INTEGER NOT NULL);`,
}

// create makes the files of a run in dir, empty.
func create(dir string) error {
	for _, file := range []string{OrderFile, BillingFile, BrokerFile, controlFile} {
		db, err := open(dir, file)
		if err != nil {
			return err
		}
		_, err = db.Exec(schemas[file])
		db.Close()
		if err != nil {
			return fmt.Errorf("sqlitelab: create %s: %w", file, err)
		}
	}
	return nil
}

// orderTx is one transaction on the order database. It notes every row it
// writes and, when it commits, writes those notes into the commit log inside
// the same transaction.
type orderTx struct {
	tx     *sql.Tx
	owner  string
	writes []written
}

type written struct {
	table, key string
	body       []byte // nil for a deletion
}

func beginOrders(db *sql.DB, owner string) (*orderTx, error) {
	tx, err := db.Begin()
	if err != nil {
		return nil, fmt.Errorf("sqlitelab: begin: %w", err)
	}
	return &orderTx{tx: tx, owner: owner}, nil
}

func (t *orderTx) rollback() { t.tx.Rollback() }

// commit writes the commit log and commits, all or nothing.
func (t *orderTx) commit() error {
	var seq int64
	if err := t.tx.QueryRow(`SELECT COALESCE(MAX(commit_seq), 0) + 1 FROM commit_log`).Scan(&seq); err != nil {
		return fmt.Errorf("sqlitelab: commit: %w", err)
	}
	at := time.Now().UnixNano()
	for _, w := range t.writes {
		var body any
		if w.body != nil {
			body = string(w.body)
		}
		if _, err := t.tx.Exec(`INSERT INTO commit_log (commit_seq, owner, at, tbl, key, body) VALUES (?, ?, ?, ?, ?, ?)`,
			seq, t.owner, at, w.table, w.key, body); err != nil {
			return fmt.Errorf("sqlitelab: commit: %w", err)
		}
	}
	if err := t.tx.Commit(); err != nil {
		return fmt.Errorf("sqlitelab: commit: %w", err)
	}
	return nil
}

// getOrder reads an order inside the transaction.
func (t *orderTx) getOrder(id string) (domain.Order, bool, error) {
	var body []byte
	err := t.tx.QueryRow(`SELECT body FROM orders WHERE id = ?`, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Order{}, false, nil
	}
	if err != nil {
		return domain.Order{}, false, fmt.Errorf("sqlitelab: get order %s: %w", id, err)
	}
	var o domain.Order
	if err := json.Unmarshal(body, &o); err != nil {
		return domain.Order{}, false, fmt.Errorf("sqlitelab: order %s: %w", id, err)
	}
	return o, true, nil
}

func (t *orderTx) putOrder(o domain.Order) error {
	body, err := json.Marshal(o)
	if err != nil {
		return fmt.Errorf("sqlitelab: put order %s: %w", o.ID, err)
	}
	if _, err := t.tx.Exec(`INSERT INTO orders (id, version, body) VALUES (?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET version = excluded.version, body = excluded.body`, o.ID, o.Version, body); err != nil {
		return fmt.Errorf("sqlitelab: put order %s: %w", o.ID, err)
	}
	t.writes = append(t.writes, written{orders.Table, o.ID, body})
	return nil
}

// appendMessage writes a PENDING message for event: outbox.AppendRecord in
// SQL. Its key is drawn inside the transaction, which holds SQLite's one
// write lock, so no other transaction draws the same.
func (t *orderTx) appendMessage(id string, event domain.Event, now time.Time) (outbox.Message, error) {
	rec, err := domain.Encode(event)
	if err != nil {
		return outbox.Message{}, fmt.Errorf("sqlitelab: append: %w", err)
	}
	var seq int
	if err := t.tx.QueryRow(`SELECT COALESCE(MAX(seq), 0) + 1 FROM outbox`).Scan(&seq); err != nil {
		return outbox.Message{}, fmt.Errorf("sqlitelab: append: %w", err)
	}
	m := outbox.Message{Key: store.SeqKey("", seq), ID: id, Event: rec, CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now}
	body, err := json.Marshal(m)
	if err != nil {
		return outbox.Message{}, fmt.Errorf("sqlitelab: append: %w", err)
	}
	if _, err := t.tx.Exec(`INSERT INTO outbox (seq, id, status, body) VALUES (?, ?, ?, ?)`, seq, id, m.Status, body); err != nil {
		return outbox.Message{}, fmt.Errorf("sqlitelab: append %s: %w", id, err)
	}
	t.writes = append(t.writes, written{outbox.Table, m.Key, body})
	return m, nil
}

// unsent reads the messages that are not SENT, oldest first, through the
// partial index.
func (t *orderTx) unsent() ([]outbox.Message, error) {
	return scanMessages(t.tx, `SELECT body FROM outbox WHERE status <> 'SENT' ORDER BY seq`)
}

// getMessage reads one message by key.
func (t *orderTx) getMessage(key string) (outbox.Message, bool, error) {
	msgs, err := scanMessages(t.tx, `SELECT body FROM outbox WHERE seq = ?`, seqOf(key))
	if err != nil || len(msgs) == 0 {
		return outbox.Message{}, false, err
	}
	return msgs[0], true, nil
}

func (t *orderTx) putMessage(m outbox.Message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("sqlitelab: put %s: %w", m.ID, err)
	}
	if _, err := t.tx.Exec(`UPDATE outbox SET status = ?, body = ? WHERE seq = ?`, m.Status, body, seqOf(m.Key)); err != nil {
		return fmt.Errorf("sqlitelab: put %s: %w", m.ID, err)
	}
	t.writes = append(t.writes, written{outbox.Table, m.Key, body})
	return nil
}

// seqOf turns a message key (store.SeqKey: the seq in decimal digits)
// back into the outbox row's seq.
func seqOf(key string) int {
	n, _ := strconv.Atoi(key) // written by appendMessage: always digits
	return n
}

type queryer interface {
	Query(query string, args ...any) (*sql.Rows, error)
}

func scanMessages(q queryer, query string, args ...any) ([]outbox.Message, error) {
	return scanJSON[outbox.Message](q, query, args...)
}

// scanJSON reads one JSON column of every row into a value of type V.
func scanJSON[V any](q queryer, query string, args ...any) ([]V, error) {
	rows, err := q.Query(query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlitelab: %s: %w", query, err)
	}
	defer rows.Close()
	var out []V
	for rows.Next() {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("sqlitelab: %s: %w", query, err)
		}
		var v V
		if err := json.Unmarshal(body, &v); err != nil {
			return nil, fmt.Errorf("sqlitelab: %s: %w", query, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlitelab: %s: %w", query, err)
	}
	return out, nil
}
