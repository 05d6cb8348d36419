package store

import (
	"fmt"
	"sort"
	"time"
)

// Tx is a transaction: buffered writes that become durable together on
// Commit, or not at all. A Tx is used by one goroutine at a time.
type Tx struct {
	db    *DB
	owner string
	// process is the session's process when the transaction began (see
	// DB.SetSession).
	process string
	// start is the Seq of the last commit when the transaction began: a
	// row another commit wrote after it is a write conflict.
	start  uint64
	writes []write
	// latest maps a table and key to its last write, once writes is long
	// enough that scanning it would cost more than a map.
	latest map[tableKey]int
	err    error // set once the transaction is finished
	// locks are the rows this transaction locked (LockSkip), held until
	// it ends.
	locks []tableKey
	// reads counts the rows it looked at (Get, and every row a scan
	// visits): the work a query does, which an index keeps small.
	reads int
	// lockedAt is when it took its first lock (LockSkip) by the
	// database's clock, for Commit.LockedFor; zero without a log or a
	// clock.
	lockedAt time.Time
	// prev and next link the open transactions of db, oldest first.
	prev, next *Tx
}

// txList is a doubly linked list of open transactions: adding and removing
// one costs no allocation and no hashing.
type txList struct {
	first, last *Tx
	len         int
}

func (l *txList) add(tx *Tx) {
	tx.prev = l.last
	if l.last != nil {
		l.last.next = tx
	} else {
		l.first = tx
	}
	l.last = tx
	l.len++
}

func (l *txList) remove(tx *Tx) {
	if tx.prev != nil {
		tx.prev.next = tx.next
	} else {
		l.first = tx.next
	}
	if tx.next != nil {
		tx.next.prev = tx.prev
	} else {
		l.last = tx.prev
	}
	tx.prev, tx.next = nil, nil
	l.len--
}

type write struct {
	table   *table
	key     string
	value   any
	deleted bool
	insert  bool // must not exist at commit...
	// ...unless this transaction deleted the row before inserting it again.
	afterOwnDelete bool
}

type tableKey struct {
	table *table
	key   string
}

func (tx *Tx) lookup(t *table, key string) (write, bool) {
	if tx.latest != nil {
		i, ok := tx.latest[tableKey{t, key}]
		if !ok {
			return write{}, false
		}
		return tx.writes[i], true
	}
	for i := len(tx.writes) - 1; i >= 0; i-- {
		if w := tx.writes[i]; w.table == t && w.key == key {
			return w, true
		}
	}
	return write{}, false
}

// record adds a write; the caller holds db.mu.
func (tx *Tx) record(w write) {
	if tx.err != nil {
		return
	}
	tx.writes = append(tx.writes, w)
	switch {
	case tx.latest != nil:
		tx.latest[tableKey{w.table, w.key}] = len(tx.writes) - 1
	case len(tx.writes) > 16:
		tx.latest, tx.db.spareLatest = tx.db.spareLatest, nil
		if tx.latest == nil {
			tx.latest = make(map[tableKey]int, 2*len(tx.writes))
		}
		for i, w := range tx.writes {
			tx.latest[tableKey{w.table, w.key}] = i
		}
	}
}

// get is Get for a caller that holds db.mu.
func (tx *Tx) get(t *table, key string) (any, bool) {
	if w, ok := tx.lookup(t, key); ok {
		return w.value, !w.deleted
	}
	v, ok := t.rows[key]
	return v, ok
}

// Get returns the row as this transaction sees it: its own latest write, or
// else the committed value.
func (tx *Tx) Get(tableName, key string) (any, bool) {
	tx.db.mu.Lock()
	defer tx.db.mu.Unlock()
	tx.reads++
	return tx.get(tx.db.table(tableName), key)
}

// Reads returns how many rows the transaction looked at so far: one per
// Get, one per row a Scan or ScanIndex visited. A scan of the whole table
// reads every row; a scan of a partial index only its members.
func (tx *Tx) Reads() int { return tx.reads }

// NextVal draws the next number of a sequence; see DB.NextVal. It is not
// undone by a rollback.
func (tx *Tx) NextVal(sequence string) int { return tx.db.NextVal(sequence) }

// Put writes a row, replacing any value the key had.
func (tx *Tx) Put(tableName, key string, value any) {
	tx.db.mu.Lock()
	defer tx.db.mu.Unlock()
	tx.record(write{table: tx.db.table(tableName), key: key, value: value})
}

// Insert writes a row whose key must not exist yet, a unique constraint. It
// fails with ErrDuplicateKey if this transaction already sees the key; Commit
// checks again against what others committed meanwhile.
func (tx *Tx) Insert(tableName, key string, value any) error {
	tx.db.mu.Lock()
	defer tx.db.mu.Unlock()
	if tx.err != nil {
		return tx.err
	}
	t := tx.db.table(tableName)
	own, wrote := tx.lookup(t, key)
	if _, ok := tx.get(t, key); ok {
		return fmt.Errorf("store %s: insert %s/%s: %w", tx.db.name, tableName, key, ErrDuplicateKey)
	}
	tx.record(write{table: t, key: key, value: value, insert: true, afterOwnDelete: wrote && own.deleted})
	return nil
}

// Delete removes a row; deleting a missing row is not an error.
func (tx *Tx) Delete(tableName, key string) {
	tx.db.mu.Lock()
	defer tx.db.mu.Unlock()
	tx.record(write{table: tx.db.table(tableName), key: key, deleted: true})
}

// Scan calls fn for every row this transaction sees, in key order, until fn
// returns false. It sorts the whole table: use it for reports and checks, and
// ScanIndex on hot paths.
func (tx *Tx) Scan(tableName string, fn func(key string, value any) bool) {
	tx.db.mu.Lock()
	t := tx.db.table(tableName)
	keys := make([]string, 0, len(t.rows))
	for k := range t.rows {
		keys = append(keys, k)
	}
	for _, w := range tx.writes {
		if w.table == t {
			keys = append(keys, w.key)
		}
	}
	tx.db.mu.Unlock()
	for _, k := range sortedUnique(keys) {
		if v, ok := tx.Get(tableName, k); ok && !fn(k, v) {
			return
		}
	}
}

// scanChunk is how many index entries ScanIndex reads per lock.
const scanChunk = 64

// ScanIndex calls fn, in key order, for every row this transaction sees that
// satisfies the index's predicate, until fn returns false. It visits only the
// committed rows in the index (plus this transaction's own writes), so its
// cost does not depend on how many rows the index leaves out. Rows that
// others commit during the scan may or may not be seen.
func (tx *Tx) ScanIndex(tableName, indexName string, fn func(key string, value any) bool) {
	tx.db.mu.Lock()
	t := tx.db.table(tableName)
	ix := t.index(indexName)
	// Own writes that may enter the index, merged in key order with the
	// committed members.
	var own []string
	for _, w := range tx.writes {
		if w.table == t && !w.deleted && ix.Where(w.value) {
			own = append(own, w.key)
		}
	}
	tx.db.mu.Unlock()
	own = sortedUnique(own)

	type entry struct {
		key   string
		value any
		ok    bool
	}
	var (
		chunkBuf [scanChunk]member // on the stack, as rowsBuf: a scan allocates nothing
		rowsBuf  [scanChunk]entry
		chunk    = chunkBuf[:0]
		rows     = rowsBuf[:0]
		last     string
		first    = true
	)
	for {
		// Under the lock: the next committed members, resolved against this
		// transaction's own writes. A member's value is its committed row,
		// which satisfies Where; an own write replaces it.
		tx.db.mu.Lock()
		chunk = ix.set.after(last, first, scanChunk, chunk[:0])
		rows = rows[:0]
		for _, m := range chunk {
			r := entry{m.key, m.value, true}
			if w, ok := tx.lookup(t, m.key); ok {
				r.value, r.ok = w.value, !w.deleted && ix.Where(w.value)
			}
			rows = append(rows, r)
		}
		tx.reads += len(chunk)
		tx.db.mu.Unlock()
		done := len(chunk) < scanChunk
		first = false
		if len(chunk) > 0 {
			last = chunk[len(chunk)-1].key
		}
		// Without the lock: the caller's function, on own writes that sort
		// before the next committed member, and on the members.
		for _, r := range rows {
			for len(own) > 0 && own[0] <= r.key {
				k := own[0]
				own = own[1:]
				if k == r.key {
					continue // the member itself, resolved above
				}
				if v, ok := tx.Get(tableName, k); ok && ix.Where(v) && !fn(k, v) {
					return
				}
			}
			if r.ok && !fn(r.key, r.value) {
				return
			}
		}
		if done {
			break
		}
	}
	for _, k := range own {
		if v, ok := tx.Get(tableName, k); ok && ix.Where(v) && !fn(k, v) {
			return
		}
	}
}

// ScanIndex calls fn, in key order, for every committed row in the index
// until fn returns false, outside any transaction (as DB.Get reads one
// row): for a reader that only looks, such as a scheduler asking when a
// relay will have work. No lock is held while fn runs; rows others commit
// during the scan may or may not be seen.
func (db *DB) ScanIndex(tableName, indexName string, fn func(key string, value any) bool) {
	var (
		chunkBuf [scanChunk]member // on the stack: a scan allocates nothing
		chunk    = chunkBuf[:0]
		last     string
		first    = true
	)
	for {
		db.mu.Lock()
		chunk = db.table(tableName).index(indexName).set.after(last, first, scanChunk, chunk[:0])
		db.mu.Unlock()
		for _, m := range chunk {
			if !fn(m.key, m.value) {
				return
			}
		}
		if len(chunk) < scanChunk {
			return
		}
		first, last = false, chunk[len(chunk)-1].key
	}
}

func sortedUnique(keys []string) []string {
	if len(keys) < 2 {
		return keys
	}
	sort.Strings(keys)
	out := keys[:0]
	for i, k := range keys {
		if i == 0 || keys[i-1] != k {
			out = append(out, k)
		}
	}
	return out
}

// Commit applies every write of the transaction atomically. It fails, and
// applies nothing, if the transaction is finished or aborted, if an Insert
// meets a key that was committed meanwhile (ErrDuplicateKey), or if another
// transaction committed a write to one of its rows after it began
// (ErrConflict: first committer wins).
func (tx *Tx) Commit() error {
	tx.db.mu.Lock()
	defer tx.db.mu.Unlock()
	if tx.err != nil {
		return fmt.Errorf("store %s: commit: %w", tx.db.name, tx.err)
	}
	for _, w := range tx.writes {
		if !w.insert || w.afterOwnDelete {
			continue
		}
		if _, exists := w.table.rows[w.key]; exists {
			err := fmt.Errorf("store %s: commit: insert %s/%s: %w", tx.db.name, w.table.name, w.key, ErrDuplicateKey)
			tx.finish(ErrDuplicateKey)
			return err
		}
	}
	for _, w := range tx.writes {
		if w.table.written[w.key] > tx.start {
			err := fmt.Errorf("store %s: commit: %s/%s: %w", tx.db.name, w.table.name, w.key, ErrConflict)
			tx.db.conflicts++
			tx.finish(ErrConflict)
			return err
		}
	}
	if len(tx.writes) > 0 {
		tx.db.apply(tx, tx.writes, tx.locks)
	}
	tx.finish(ErrTxDone)
	return nil
}

// LockSkip locks a row for this transaction until it ends, as SELECT ...
// FOR UPDATE SKIP LOCKED does, and reports whether it holds the lock: false
// when another open transaction holds it (the row is skipped, not waited
// for). A row need not exist to be locked. A crash of the owner ends its
// transactions and so frees their locks. Writing a row does not lock it
// (the first committer wins, see ErrConflict); a change a transaction
// commits to a row it locked says so in the commit log (Change.Locked).
func (tx *Tx) LockSkip(tableName, key string) bool {
	tx.db.mu.Lock()
	defer tx.db.mu.Unlock()
	if tx.err != nil {
		return false
	}
	k := tableKey{tx.db.table(tableName), key}
	switch holder := tx.db.locks[k]; {
	case holder == tx:
		return true
	case holder != nil:
		return false
	}
	if tx.db.locks == nil {
		tx.db.locks = map[tableKey]*Tx{}
	}
	tx.db.locks[k] = tx
	if len(tx.locks) == 0 && tx.db.keepLog && tx.db.now != nil {
		tx.lockedAt = tx.db.now()
	}
	tx.locks = append(tx.locks, k)
	return true
}

// Rollback discards the transaction. It is safe to call after Commit, so
// `defer tx.Rollback()` is the usual pattern.
func (tx *Tx) Rollback() {
	tx.db.mu.Lock()
	defer tx.db.mu.Unlock()
	if tx.err == nil {
		tx.finish(ErrTxDone)
	}
}

// finish ends the transaction; the caller holds db.mu.
func (tx *Tx) finish(reason error) {
	tx.err = reason
	for _, k := range tx.locks {
		if tx.db.locks[k] == tx {
			delete(tx.db.locks, k)
		}
	}
	tx.locks = nil
	tx.db.recycle(tx.writes, tx.latest)
	tx.writes = nil
	tx.latest = nil
	tx.db.open.remove(tx)
}
