package sqlitelab

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/store"
)

// orderDB is the order database of a run (orders, outbox, commit log): a
// SQLite file of the run's directory, or a PostgreSQL database when the
// run names one (Config.Postgres). Billing, the broker and the control
// file are SQLite either way.
type orderDB struct {
	*sql.DB
	dialect
	// shared: the parent's connection to a PostgreSQL database, kept
	// across runs (see parentOrders); done leaves it open.
	shared bool
}

// done closes db, unless it is the parent's shared connection.
func (db orderDB) done() {
	if !db.shared {
		db.Close()
	}
}

// dialect is what differs between the two in the order database's SQL.
// Everything else is written once: queries number their parameters $1, $2,
// ... in the order they appear (PostgreSQL binds them by number, SQLite by
// appearance, so written in order both bind alike).
type dialect struct {
	schema string
	// reset empties what an earlier run left: a PostgreSQL database serves
	// one run after another (its tables are made once: TRUNCATE costs a
	// run less than DROP and CREATE).
	reset string
	// forUpdate ends the read of a row the transaction is going to write:
	// PostgreSQL locks the row, so that a relay that marks a message SENT
	// reads the claim another relay committed a moment ago and not the one
	// before. SQLite's transactions hold its one write lock from BEGIN.
	forUpdate string
	// skipLocked ends the claim's read of a due row: a row another relay's
	// transaction holds is skipped, not waited for (chapter 003).
	skipLocked string
	// nextSeq draws the next outbox seq inside the transaction.
	nextSeq string
	// serialize runs before a commit writes the commit log: the log's
	// sequence is the order the transactions commit in. That is the lab's
	// instrument (the checker reads the commit log), not the system's.
	serialize string
	// commitLSN reads the WAL position just before the commit (after
	// serialize, so later than every earlier commit's end): a CDC relay's
	// slot confirmed past it has taken the transaction.
	commitLSN string
}

// sqliteOrders: one writer at a time, so each commit draws MAX + 1.
var sqliteOrders = dialect{
	schema: `
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
	body       TEXT, -- NULL for a deletion
	lsn        TEXT -- PostgreSQL only (see postgresOrders)
);
CREATE INDEX commit_log_seq ON commit_log (commit_seq); -- each commit draws MAX + 1`,
	nextSeq: `SELECT COALESCE(MAX(seq), 0) + 1 FROM outbox`,
}

// postgresOrders: the same tables, made if the database has none; the
// outbox's seq is a BIGSERIAL, drawn
// when the row is written (not when it commits: the commit-visibility gap
// a relay that polls by offset falls into), and a transaction-level
// advisory lock orders the commit log.
var postgresOrders = dialect{
	schema: `
CREATE TABLE IF NOT EXISTS orders (
	id      TEXT PRIMARY KEY,
	version INT NOT NULL,
	body    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS outbox (
	seq    BIGSERIAL PRIMARY KEY,
	id     TEXT NOT NULL UNIQUE,
	status TEXT NOT NULL,
	body   TEXT NOT NULL,
	-- the transaction that wrote the row: what offset-by-horizon reads by
	created_xid XID8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX IF NOT EXISTS outbox_unsent ON outbox (seq) WHERE status <> 'SENT';
CREATE TABLE IF NOT EXISTS commit_log (
	n          BIGSERIAL PRIMARY KEY,
	commit_seq BIGINT NOT NULL,
	owner      TEXT NOT NULL,
	at         BIGINT NOT NULL,
	tbl        TEXT NOT NULL,
	key        TEXT NOT NULL,
	body       TEXT,
	lsn        PG_LSN -- the WAL position just before the commit
);
CREATE INDEX IF NOT EXISTS commit_log_seq ON commit_log (commit_seq);`,
	reset:      `TRUNCATE orders, outbox, commit_log RESTART IDENTITY`,
	forUpdate:  ` FOR UPDATE`,
	skipLocked: ` FOR UPDATE SKIP LOCKED`,
	nextSeq:    `SELECT nextval(pg_get_serial_sequence('outbox', 'seq'))`,
	serialize:  `SELECT pg_advisory_xact_lock(1)`,
	commitLSN:  `SELECT pg_current_wal_insert_lsn()::text`,
}

// openOrders opens the order database: postgres's, or the SQLite file in
// dir when postgres is "".
func openOrders(dir, postgres string) (orderDB, error) {
	if postgres == "" {
		db, err := open(dir, OrderFile)
		return orderDB{DB: db, dialect: sqliteOrders}, err
	}
	db, err := sql.Open("pgx", postgres)
	if err != nil {
		return orderDB{}, fmt.Errorf("sqlitelab: open the order database: %w", err)
	}
	db.SetMaxOpenConns(1) // one connection per process: a process is one client
	if err := db.Ping(); err != nil {
		db.Close()
		return orderDB{}, fmt.Errorf("sqlitelab: open the order database on PostgreSQL: %w", err)
	}
	return orderDB{DB: db, dialect: postgresOrders}, nil
}

// parents are the parent's connections to the PostgreSQL databases its
// runs use, one per database, kept for the life of the process: a new
// connection is a new server process that loads its caches, and the
// parent opened four a run (to make the tables, to pace the workload, to
// wait for quiet, to read the result), a third of the server's work in a
// run.
var parents struct {
	sync.Mutex
	dbs map[string]*sql.DB
}

// parentOrders opens the order database for the parent: the SQLite file
// in dir, or the shared connection to postgres's database.
func parentOrders(dir, postgres string) (orderDB, error) {
	if postgres == "" {
		return openOrders(dir, "")
	}
	parents.Lock()
	defer parents.Unlock()
	if db := parents.dbs[postgres]; db != nil {
		return orderDB{DB: db, dialect: postgresOrders, shared: true}, nil
	}
	db, err := openOrders(dir, postgres)
	if err != nil {
		return db, err
	}
	if parents.dbs == nil {
		parents.dbs = map[string]*sql.DB{}
	}
	parents.dbs[postgres] = db.DB
	db.shared = true
	return db, nil
}

// createOrders makes the order database's tables on PostgreSQL, empty,
// and with slot the replication slot the CDC relay reads.
func createOrders(postgres string, slot bool) error {
	db, err := parentOrders("", postgres)
	if err != nil {
		return err
	}
	defer db.done()
	if err := dropSlot(db.DB); err != nil {
		return err
	}
	for _, ddl := range []string{db.schema, db.reset} {
		if ddl == "" {
			continue
		}
		if _, err := db.Exec(ddl); err != nil {
			return fmt.Errorf("sqlitelab: create the order database: %w", err)
		}
	}
	if slot {
		return createSlot(db.DB)
	}
	return nil
}

// orderTx is one transaction on the order database. It notes every row it
// writes and, when it commits, writes those notes into the commit log inside
// the same transaction.
type orderTx struct {
	tx     *sql.Tx
	d      dialect
	owner  string
	writes []written
}

type written struct {
	table, key string
	body       []byte // nil for a deletion
}

func beginOrders(db orderDB, owner string) (*orderTx, error) {
	tx, err := db.Begin()
	if err != nil {
		return nil, fmt.Errorf("sqlitelab: begin: %w", err)
	}
	return &orderTx{tx: tx, d: db.dialect, owner: owner}, nil
}

func (t *orderTx) rollback() { t.tx.Rollback() }

// commit writes the commit log and commits, all or nothing.
func (t *orderTx) commit() error {
	if t.d.serialize != "" {
		if _, err := t.tx.Exec(t.d.serialize); err != nil {
			return fmt.Errorf("sqlitelab: commit: %w", err)
		}
	}
	var seq int64
	if err := t.tx.QueryRow(`SELECT COALESCE(MAX(commit_seq), 0) + 1 FROM commit_log`).Scan(&seq); err != nil {
		return fmt.Errorf("sqlitelab: commit: %w", err)
	}
	var lsn any // NULL on SQLite
	if t.d.commitLSN != "" {
		if err := t.tx.QueryRow(t.d.commitLSN).Scan(&lsn); err != nil {
			return fmt.Errorf("sqlitelab: commit: %w", err)
		}
	}
	at := time.Now().UnixNano()
	for _, w := range t.writes {
		var body any
		if w.body != nil {
			body = string(w.body)
		}
		if _, err := t.tx.Exec(`INSERT INTO commit_log (commit_seq, owner, at, tbl, key, body, lsn) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			seq, t.owner, at, w.table, w.key, body, lsn); err != nil {
			return fmt.Errorf("sqlitelab: commit: %w", err)
		}
	}
	if err := t.tx.Commit(); err != nil {
		return fmt.Errorf("sqlitelab: commit: %w", err)
	}
	return nil
}

// getOrder reads an order inside the transaction, locked for its update.
func (t *orderTx) getOrder(id string) (domain.Order, bool, error) {
	var body []byte
	err := t.tx.QueryRow(`SELECT body FROM orders WHERE id = $1`+t.d.forUpdate, id).Scan(&body)
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
	if _, err := t.tx.Exec(`INSERT INTO orders (id, version, body) VALUES ($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET version = excluded.version, body = excluded.body`, o.ID, o.Version, string(body)); err != nil {
		return fmt.Errorf("sqlitelab: put order %s: %w", o.ID, err)
	}
	t.writes = append(t.writes, written{orders.Table, o.ID, body})
	return nil
}

// appendMessage writes a PENDING message for event: outbox.AppendRecord in
// SQL. Its key is drawn inside the transaction: no other transaction draws
// the same.
func (t *orderTx) appendMessage(id string, event domain.Event, now time.Time) (outbox.Message, error) {
	rec, err := domain.Encode(event)
	if err != nil {
		return outbox.Message{}, fmt.Errorf("sqlitelab: append: %w", err)
	}
	var seq int
	if err := t.tx.QueryRow(t.d.nextSeq).Scan(&seq); err != nil {
		return outbox.Message{}, fmt.Errorf("sqlitelab: append: %w", err)
	}
	m := outbox.Message{Key: store.SeqKey("", seq), ID: id, Event: rec, CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now}
	body, err := json.Marshal(m)
	if err != nil {
		return outbox.Message{}, fmt.Errorf("sqlitelab: append: %w", err)
	}
	if _, err := t.tx.Exec(`INSERT INTO outbox (seq, id, status, body) VALUES ($1, $2, $3, $4)`, seq, id, string(m.Status), string(body)); err != nil {
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

// getMessage reads one message by key, locked for its update.
func (t *orderTx) getMessage(key string) (outbox.Message, bool, error) {
	msgs, err := scanMessages(t.tx, `SELECT body FROM outbox WHERE seq = $1`+t.d.forUpdate, seqOf(key))
	if err != nil || len(msgs) == 0 {
		return outbox.Message{}, false, err
	}
	return msgs[0], true, nil
}

// lockUnsent reads one message that is not SENT for the claim, locked; it
// reports false if the message is SENT by now or another relay's
// transaction holds it (SKIP LOCKED).
func (t *orderTx) lockUnsent(key string) (outbox.Message, bool, error) {
	return t.readUnsent(key, t.d.skipLocked)
}

// readUnsent reads one message that is not SENT, the read ended by lock.
func (t *orderTx) readUnsent(key, lock string) (outbox.Message, bool, error) {
	msgs, err := scanMessages(t.tx, `SELECT body FROM outbox WHERE seq = $1 AND status <> 'SENT'`+lock, seqOf(key))
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
	if _, err := t.tx.Exec(`UPDATE outbox SET status = $1, body = $2 WHERE seq = $3`, string(m.Status), string(body), seqOf(m.Key)); err != nil {
		return fmt.Errorf("sqlitelab: put %s: %w", m.ID, err)
	}
	t.writes = append(t.writes, written{outbox.Table, m.Key, body})
	return nil
}

// deleteMessage deletes one message by key.
func (t *orderTx) deleteMessage(key string) error {
	if _, err := t.tx.Exec(`DELETE FROM outbox WHERE seq = $1`, seqOf(key)); err != nil {
		return fmt.Errorf("sqlitelab: delete %s: %w", key, err)
	}
	t.writes = append(t.writes, written{outbox.Table, key, nil})
	return nil
}

// seqOf turns a message key (store.SeqKey: the seq in decimal digits)
// back into the outbox row's seq.
func seqOf(key string) int {
	n, _ := strconv.Atoi(key) // written by appendMessage: always digits
	return n
}
