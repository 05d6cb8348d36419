package sqlitelab

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	_ "github.com/jackc/pgx/v5/stdlib"       // registers "pgx"
	_ "github.com/ncruces/go-sqlite3/driver" // registers "sqlite3"

	"outboxlab/outbox"
	"outboxlab/real/cleanup"
)

// The files of one run, all in one directory.
const (
	OrderFile   = "orders.db"  // orders, outbox, commit log
	BillingFile = "billing.db" // inbox, applied sequences, parked, ledger, accounts
	BrokerFile  = "broker.db"  // the broker's log and its subscriber's state
	controlFile = "control.db" // the run's crash point, its stalls, and whether the broker is down
)

// open opens a SQLite file of dir in WAL mode. Every transaction begins
// IMMEDIATE: SQLite has one writer, and taking the write lock at BEGIN
// serialises the relays' claims the way SELECT ... FOR UPDATE does in
// PostgreSQL; a writer that finds the lock taken waits (busy_timeout).
//
// synchronous=OFF: a commit is in the operating system's hands when
// COMMIT returns (written to the WAL, not synced), so it survives the death
// of the process, which is what this harness tests, and not a power loss
// (that needs synchronous=FULL). NORMAL, which the harness used before,
// makes no difference to a kill; it synced at each checkpoint, and a
// process closing its files at the end of a run took tens of milliseconds.
func open(dir, file string) (*sql.DB, error) {
	dsn := "file:" + filepath.Join(dir, file) +
		"?_pragma=busy_timeout(20000)&_pragma=journal_mode(wal)&_pragma=synchronous(off)&_txlock=immediate"
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

// schemas are the tables of each SQLite file but the order database's
// (see sqliteOrders and postgresOrders).
var schemas = map[string]string{
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
CREATE TABLE crash (point TEXT NOT NULL, occurrence INTEGER NOT NULL, crossed INTEGER NOT NULL, fired_pid INTEGER NOT NULL);
-- The stalls planned, in Config.Stalls's order (rowid 1, 2, ...): the
-- process freezes itself at the point, once; "relay-*" is whichever relay
-- gets there first (and a relay takes one stall at a point).
CREATE TABLE stall (process TEXT NOT NULL, point TEXT NOT NULL, fired_pid INTEGER NOT NULL DEFAULT 0, fired_name TEXT NOT NULL DEFAULT '');
-- Whether the broker is down; one row.
CREATE TABLE outage (down INTEGER NOT NULL);
-- The publish the broker drops (Config.Drop): the first of that message.
CREATE TABLE drop_publish (aggregate TEXT NOT NULL, sequence INTEGER NOT NULL, fired_pid INTEGER NOT NULL DEFAULT 0);
INSERT INTO outage VALUES (0);`,
}

// create makes the databases of a run, empty: the SQLite files in dir, and
// the order database there or on postgres, with slot the CDC relay's
// replication slot.
func create(dir, postgres string, slot bool) error {
	files, err := templateFiles()
	if err != nil {
		return err
	}
	for file, data := range files {
		if file == OrderFile && postgres != "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
			return fmt.Errorf("sqlitelab: create %s: %w", file, err)
		}
	}
	if postgres == "" {
		return nil
	}
	return createOrders(postgres, slot)
}

// templates are the SQLite files of a run with their tables made and
// nothing in them, made once per process: a run copies them, which takes
// a millisecond, where making them took tens.
var templates struct {
	once  sync.Once
	files map[string][]byte
	err   error
}

// templateFiles makes the templates, or returns those made.
func templateFiles() (map[string][]byte, error) {
	templates.once.Do(func() {
		templates.files, templates.err = makeTemplates()
	})
	return templates.files, templates.err
}

func makeTemplates() (map[string][]byte, error) {
	dir, err := cleanup.MkdirTemp("", "outboxlab-template-")
	if err != nil {
		return nil, fmt.Errorf("sqlitelab: %w", err)
	}
	defer cleanup.RemoveAll(dir)
	files := map[string][]byte{}
	for _, file := range []string{OrderFile, BillingFile, BrokerFile, controlFile} {
		schema := schemas[file]
		if file == OrderFile {
			schema = sqliteOrders.schema
		}
		db, err := open(dir, file)
		if err != nil {
			return nil, err
		}
		_, err = db.Exec(schema)
		if cerr := db.Close(); err == nil {
			err = cerr // the last close folds the WAL into the file
		}
		if err != nil {
			return nil, fmt.Errorf("sqlitelab: create %s: %w", file, err)
		}
		if files[file], err = os.ReadFile(filepath.Join(dir, file)); err != nil {
			return nil, fmt.Errorf("sqlitelab: create %s: %w", file, err)
		}
	}
	return files, nil
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
