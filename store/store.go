package store

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Sentinel errors. They are wrapped with the table and key involved.
var (
	// ErrDuplicateKey means an Insert found the key already present, either
	// when it was called or when the transaction committed. The transaction
	// is aborted and nothing of it is applied.
	ErrDuplicateKey = errors.New("duplicate key")
	// ErrAborted means the transaction was aborted by a crash of its owner.
	ErrAborted = errors.New("transaction aborted by crash")
	// ErrTxDone means the transaction was already committed or rolled back.
	ErrTxDone = errors.New("transaction already finished")
	// ErrTableExists means CreateTable was called twice for one name.
	ErrTableExists = errors.New("table exists")
	// ErrConflict means another transaction committed a write to a row this
	// transaction also writes, after this one began: the first committer
	// wins, and nothing of the second is applied. It is what a row lock
	// gives in PostgreSQL (the second writer waits, then fails or skips).
	ErrConflict = errors.New("write conflict: another transaction committed this row first")
)

// DB is one process's durable database. The zero value is not usable; call New.
type DB struct {
	// mu guards everything below. No lock is held while a caller's function
	// runs, so a scan's callback may use the transaction freely.
	mu     sync.Mutex
	name   string
	tables []*table // a handful: found by a linear search
	open   txList   // open transactions
	seq    uint64
	// sequences are the named sequences of NextVal.
	sequences map[string]int
	// keepLog says whether commits are kept in log, for readers of Log.
	keepLog bool
	log     []Commit
	// logChunk is where the next commits' changes in the log are carved
	// from (see logChanges).
	logChunk []Change
	// conflicts counts the commits refused with ErrConflict.
	conflicts int
	// now is the database's clock, for Commit.At.
	now func() time.Time
	// session names the process a new transaction runs for, as the
	// database knows it (see SetSession).
	session func() string
	// spare buffers of finished transactions, reused by the next Begin: a
	// relay commits thousands of small transactions, and garbage is what
	// makes a large in-memory database slow.
	spareWrites []write
	spareLatest map[tableKey]int
	// locks are the rows open transactions locked (Tx.LockSkip).
	locks map[tableKey]*Tx
}

type table struct {
	name    string
	rows    map[string]any
	indexes []*index
	// written maps a key to the Seq of the last commit that wrote it while
	// other transactions were open, for the first-committer-wins check.
	written map[string]uint64
}

type index struct {
	Index
	set *orderedSet
}

// Commit is one committed transaction in the commit log.
type Commit struct {
	// Seq numbers commits 1, 2, 3, ... in the order they were applied.
	Seq uint64
	// Owner is the name the committing transaction was begun with: what
	// the writer says it is (Begin's owner).
	Owner string
	// Process is the process whose connection committed, as the database
	// knows it (see SetSession), whatever name the writer chose; "" for a
	// database without a session hook.
	Process string
	// At is the commit's time by the database's clock (see SetClock), as
	// PostgreSQL's track_commit_timestamp records it; zero without a clock.
	At      time.Time
	Changes []Change
	// Reads is how many rows the transaction looked at before it
	// committed (Tx.Reads): a relay's claim reads few rows with the
	// outbox's partial index, the whole table without it.
	Reads int
	// LockedFor is how long the transaction held row locks (LockSkip):
	// from its first lock to its commit, by the database's clock; 0 for
	// one that locked nothing, or without a clock.
	LockedFor time.Duration
}

// Change is one row written by a commit. A deleted row has Deleted set and no
// Value.
type Change struct {
	Table   string
	Key     string
	Value   any
	Deleted bool
	// Locked says the committing transaction held the row's lock
	// (Tx.LockSkip): no other transaction could lock it meanwhile.
	Locked bool
}

// New returns an empty database; name appears in error messages.
func New(name string) *DB {
	return &DB{name: name}
}

// Name returns the name the database was created with.
func (db *DB) Name() string { return db.name }

// CreateTable adds an empty table with the given partial indexes.
func (db *DB) CreateTable(name string, indexes ...Index) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.lookup(name) != nil {
		return fmt.Errorf("store %s: create %s: %w", db.name, name, ErrTableExists)
	}
	t := &table{name: name, rows: make(map[string]any), written: make(map[string]uint64)}
	for _, ix := range indexes {
		if ix.Name == "" || ix.Where == nil {
			return fmt.Errorf("store %s: create %s: index needs a name and a Where predicate", db.name, name)
		}
		t.indexes = append(t.indexes, &index{Index: ix, set: newOrderedSet()})
	}
	db.tables = append(db.tables, t)
	return nil
}

// HasTable reports whether a table of that name exists.
func (db *DB) HasTable(name string) bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.lookup(name) != nil
}

func (db *DB) lookup(name string) *table {
	for _, t := range db.tables {
		if t.name == name {
			return t
		}
	}
	return nil
}

func (db *DB) table(name string) *table {
	t := db.lookup(name)
	if t == nil {
		panic(fmt.Sprintf("store %s: no table %q", db.name, name))
	}
	return t
}

func (t *table) index(name string) *index {
	for _, ix := range t.indexes {
		if ix.Name == name {
			return ix
		}
	}
	panic(fmt.Sprintf("store: table %s has no index %q", t.name, name))
}

// Begin starts a transaction on behalf of owner, the process that will be
// blamed (and whose transactions are aborted) when it crashes.
func (db *DB) Begin(owner string) *Tx {
	db.mu.Lock()
	defer db.mu.Unlock()
	tx := &Tx{db: db, owner: owner, writes: db.spareWrites, start: db.seq}
	if db.session != nil {
		tx.process = db.session()
	}
	db.spareWrites = nil
	db.open.add(tx)
	return tx
}

// recycle keeps a finished transaction's buffers for the next one. The
// caller holds db.mu.
func (db *DB) recycle(writes []write, latest map[tableKey]int) {
	const keepAtMost = 4096 // a huge one-off transaction's buffers are not kept
	if cap(writes) > cap(db.spareWrites) && cap(writes) <= keepAtMost {
		clear(writes) // drop references to the values; beyond len it is already zero
		db.spareWrites = writes[:0]
	}
	if latest != nil && len(latest) <= keepAtMost {
		clear(latest)
		db.spareLatest = latest
	}
}

// Crash aborts every open transaction of owner, as a process crash does, and
// returns how many it aborted. With a session hook (SetSession) a
// transaction belongs to the process it was begun in, whatever owner name
// it was begun with: a crash closes the process's connections. Committed
// state is untouched.
func (db *DB) Crash(owner string) int {
	db.mu.Lock()
	defer db.mu.Unlock()
	n := 0
	for tx := db.open.first; tx != nil; {
		next := tx.next // finish unlinks tx
		if tx.process == owner || tx.process == "" && tx.owner == owner {
			tx.finish(ErrAborted)
			n++
		}
		tx = next
	}
	return n
}

// OpenTransactions returns how many transactions are open, for tests that a
// component does not leak them.
func (db *DB) OpenTransactions() int {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.open.len
}

// Len returns the number of committed rows in a table.
func (db *DB) Len(tableName string) int {
	db.mu.Lock()
	defer db.mu.Unlock()
	return len(db.table(tableName).rows)
}

// IndexLen returns the number of committed rows in a partial index.
func (db *DB) IndexLen(tableName, indexName string) int {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.table(tableName).index(indexName).set.len()
}

// Get reads one committed row outside any transaction.
func (db *DB) Get(tableName, key string) (any, bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	v, ok := db.table(tableName).rows[key]
	return v, ok
}

// Keys returns the committed keys of a table in ascending order.
func (db *DB) Keys(tableName string) []string {
	db.mu.Lock()
	defer db.mu.Unlock()
	rows := db.table(tableName).rows
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Values returns the committed values of a table in key order, as type V;
// it panics if a row holds another type, which is a bug in the caller.
func Values[V any](db *DB, tableName string) []V {
	db.mu.Lock()
	defer db.mu.Unlock()
	rows := db.table(tableName).rows
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]V, 0, len(keys))
	for _, k := range keys {
		out = append(out, rows[k].(V))
	}
	return out
}

// Each calls fn for every committed row of a table, in no particular
// order, and copies nothing: for a reader that counts or filters rows, whose
// answer does not depend on the order (a sorted copy is Values). The
// database is locked while fn runs: fn must not use it.
func (db *DB) Each(tableName string, fn func(key string, value any)) {
	db.mu.Lock()
	defer db.mu.Unlock()
	for k, v := range db.table(tableName).rows {
		fn(k, v)
	}
}

// SeqKey returns prefix followed by n as at least 12 decimal digits, padded
// with zeros: keys of one prefix sort in the order of n, for 0 <= n < 10^12.
// It is fmt.Sprintf("%s%012d", prefix, n) without the formatting machinery,
// for keys written once per message.
func SeqKey(prefix string, n int) string {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], int64(n), 10)
	var key [64]byte // on the stack for every key this lab writes
	b := append(key[:0], prefix...)
	for range 12 - len(d) {
		b = append(b, '0')
	}
	return string(append(b, d...))
}

// NextVal draws the next number of the named sequence: 1, 2, 3, ... It is
// not part of any transaction, as in PostgreSQL: a number is drawn when a
// row is written, not when it commits, and a rolled-back transaction
// leaves a gap. So a transaction that draws 7 may commit after one that
// drew 8 (the commit-visibility gap a relay polling "id > last" falls into).
func (db *DB) NextVal(sequence string) int {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.sequences == nil {
		db.sequences = map[string]int{}
	}
	db.sequences[sequence]++
	return db.sequences[sequence]
}

// LastSeq returns the sequence number of the last commit (0 if none).
func (db *DB) LastSeq() uint64 {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.seq
}

// KeepLog makes the database keep its commit log from the next commit on;
// TruncateLog drops what every reader has passed. A reader of Log (a
// change-data-capture connector, the simulator's trace and safety checker)
// calls it first, as a real connector creates a replication slot. Without
// a reader the database only numbers its commits: a log nobody reads would
// hold every value ever written.
func (db *DB) KeepLog() {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.keepLog = true
}

// Conflicts returns how many commits were refused with ErrConflict: the
// second of two transactions that wrote one row.
func (db *DB) Conflicts() int {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.conflicts
}

// SetClock gives the database a clock: every commit in the log carries its
// time (Commit.At). The database's clock is the one a safety checker can
// trust when it asks whether a lease was still live at a write.
func (db *DB) SetClock(now func() time.Time) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.now = now
}

// SetSession tells the database which process each new transaction runs
// for, as a database knows the connection a statement arrives on (in
// PostgreSQL, the backend and its application): session is called at
// every Begin, and every commit records its answer as Commit.Process. The
// writer's own name (Begin's owner) may be anything; this one is a fact.
// session must not use the database.
func (db *DB) SetSession(session func() string) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.session = session
}

// Log returns the commits with Seq > after, oldest first. The slice and its
// values belong to the store: read them, do not change them. Log panics if
// KeepLog was not called, a bug in the reader.
func (db *DB) Log(after uint64) []Commit {
	db.mu.Lock()
	defer db.mu.Unlock()
	if !db.keepLog {
		panic(fmt.Sprintf("store %s: Log without KeepLog: the commit log is not kept", db.name))
	}
	i := sort.Search(len(db.log), func(i int) bool { return db.log[i].Seq > after })
	return db.log[i:]
}

// TruncateLog forgets the commits with Seq <= upTo, as a database recycles
// write-ahead log segments that every reader has passed.
func (db *DB) TruncateLog(upTo uint64) {
	db.mu.Lock()
	defer db.mu.Unlock()
	i := sort.Search(len(db.log), func(i int) bool { return db.log[i].Seq > upTo })
	db.log = append([]Commit(nil), db.log[i:]...)
}

// logChanges returns an empty slice with room for the n changes of one
// commit in the log, carved from a chunk that many commits share: the log
// keeps every commit's changes as long as it keeps the commit, and an
// allocation per commit was most of what keeping it cost. Chunks grow
// with the log, from 16 changes to 256, so that a short log stays small;
// a commit of more than 32 changes has its own. The slice's capacity
// ends at n, so nothing appended to it reaches the next commit's changes.
// The caller holds db.mu.
func (db *DB) logChanges(n int) []Change {
	const smallest, largest = 16, 256
	if n > largest/8 {
		return make([]Change, 0, n)
	}
	if cap(db.logChunk)-len(db.logChunk) < n {
		db.logChunk = make([]Change, 0, min(largest, max(smallest, 2*cap(db.logChunk))))
	}
	start := len(db.logChunk)
	db.logChunk = db.logChunk[:start+n]
	return db.logChunk[start : start : start+n]
}

// apply makes a transaction's writes durable, all at once. The caller holds
// db.mu.
func (db *DB) apply(tx *Tx, writes []write, locks []tableKey) {
	db.seq++
	var c Commit
	if db.keepLog {
		c = Commit{Seq: db.seq, Owner: tx.owner, Process: tx.process, Changes: db.logChanges(len(writes)), Reads: tx.reads}
		if db.now != nil {
			c.At = db.now()
			if len(locks) > 0 {
				c.LockedFor = c.At.Sub(tx.lockedAt)
			}
		}
	}
	for _, w := range writes {
		t := w.table
		if db.open.len > 1 {
			t.written[w.key] = db.seq // an open transaction may write it too
		} else {
			// Only the committing transaction is open: every later one
			// begins after this commit and cannot conflict with it.
			delete(t.written, w.key)
		}
		if w.deleted {
			delete(t.rows, w.key)
		} else {
			t.rows[w.key] = w.value
		}
		for _, ix := range t.indexes {
			if !w.deleted && ix.Where(w.value) {
				ix.set.add(w.key, w.value)
			} else {
				ix.set.remove(w.key)
			}
		}
		if db.keepLog {
			c.Changes = append(c.Changes, Change{Table: t.name, Key: w.key, Value: w.value, Deleted: w.deleted,
				Locked: len(locks) > 0 && slices.Contains(locks, tableKey{t, w.key})})
		}
	}
	if db.keepLog {
		db.log = append(db.log, c)
	}
}
