package store_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"outboxlab/store"
)

type row struct {
	Status string
	N      int
}

func unsent(v any) bool { return v.(row).Status != "SENT" }

func newDB(t *testing.T) *store.DB {
	t.Helper()
	db := store.New("orders")
	for _, name := range []string{"orders"} {
		if err := db.CreateTable(name); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.CreateTable("outbox", store.Index{Name: "unsent", Where: unsent}); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestCrashBeforeCommitLeavesNeitherRow(t *testing.T) {
	db := newDB(t)
	tx := db.Begin("service")
	tx.Put("orders", "o-1", row{Status: "ACCEPTED"})
	tx.Put("outbox", "0001", row{Status: "PENDING"})
	if n := db.Crash("service"); n != 1 {
		t.Fatalf("Crash aborted %d transactions, want 1", n)
	}
	if err := tx.Commit(); !errors.Is(err, store.ErrAborted) {
		t.Fatalf("commit after crash: err = %v, want ErrAborted", err)
	}
	if db.Len("orders") != 0 || db.Len("outbox") != 0 || db.LastSeq() != 0 {
		t.Fatalf("after crash before commit: orders=%d outbox=%d commits=%d, want nothing", db.Len("orders"), db.Len("outbox"), db.LastSeq())
	}
}

func TestCrashAfterCommitKeepsBothRows(t *testing.T) {
	db := newDB(t)
	db.KeepLog()
	tx := db.Begin("service")
	tx.Put("orders", "o-1", row{Status: "ACCEPTED"})
	tx.Put("outbox", "0001", row{Status: "PENDING"})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := db.Crash("service"); n != 0 {
		t.Fatalf("Crash aborted %d transactions, want 0", n)
	}
	if _, ok := db.Get("orders", "o-1"); !ok {
		t.Error("order lost after crash after commit")
	}
	if _, ok := db.Get("outbox", "0001"); !ok {
		t.Error("outbox row lost after crash after commit")
	}
	want := []store.Commit{{Seq: 1, Owner: "service", Changes: []store.Change{
		{Table: "orders", Key: "o-1", Value: row{Status: "ACCEPTED"}},
		{Table: "outbox", Key: "0001", Value: row{Status: "PENDING"}},
	}}}
	if diff := cmp.Diff(want, db.Log(0)); diff != "" {
		t.Errorf("commit log (-want +got):\n%s", diff)
	}
}

func TestCrashAbortsOnlyTheCrashedOwner(t *testing.T) {
	db := newDB(t)
	relay := db.Begin("relay")
	relay.Put("outbox", "0001", row{Status: "IN_FLIGHT"})
	service := db.Begin("service")
	service.Put("orders", "o-1", row{Status: "ACCEPTED"})
	db.Crash("relay")
	if err := service.Commit(); err != nil {
		t.Fatalf("service commit after relay crash: %v", err)
	}
	if err := relay.Commit(); !errors.Is(err, store.ErrAborted) {
		t.Fatalf("relay commit: err = %v, want ErrAborted", err)
	}
	if db.OpenTransactions() != 0 {
		t.Errorf("open transactions = %d, want 0", db.OpenTransactions())
	}
}

func TestNoDirtyReadsAndReadYourWrites(t *testing.T) {
	db := newDB(t)
	a := db.Begin("a")
	a.Put("orders", "o-1", row{Status: "ACCEPTED", N: 1})
	if v, ok := a.Get("orders", "o-1"); !ok || v.(row).N != 1 {
		t.Fatalf("a does not see its own write: %v, %v", v, ok)
	}
	b := db.Begin("b")
	if v, ok := b.Get("orders", "o-1"); ok {
		t.Fatalf("b sees a's uncommitted write: %v", v)
	}
	seen := 0
	b.Scan("orders", func(string, any) bool { seen++; return true })
	if seen != 0 {
		t.Fatalf("b's scan sees %d uncommitted rows", seen)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if v, ok := b.Get("orders", "o-1"); !ok || v.(row).N != 1 {
		t.Fatalf("b does not see a's committed write: %v, %v", v, ok)
	}
	b.Rollback()
}

func TestInsertIsAUniqueConstraint(t *testing.T) {
	db := newDB(t)
	a, b := db.Begin("billing-1"), db.Begin("billing-2")
	if err := a.Insert("orders", "e-1", row{N: 1}); err != nil {
		t.Fatal(err)
	}
	if err := b.Insert("orders", "e-1", row{N: 2}); err != nil {
		t.Fatalf("b cannot see a's insert yet, so its own insert succeeds: %v", err)
	}
	b.Put("outbox", "0001", row{Status: "PENDING"})
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); !errors.Is(err, store.ErrDuplicateKey) {
		t.Fatalf("second commit of e-1: err = %v, want ErrDuplicateKey", err)
	}
	if _, ok := db.Get("outbox", "0001"); ok {
		t.Error("the failed commit applied part of its writes")
	}
	c := db.Begin("billing-1")
	if err := c.Insert("orders", "e-1", row{}); !errors.Is(err, store.ErrDuplicateKey) {
		t.Fatalf("insert of committed key: err = %v, want ErrDuplicateKey", err)
	}
	c.Delete("orders", "e-1")
	if err := c.Insert("orders", "e-1", row{N: 3}); err != nil {
		t.Fatalf("insert after own delete: %v", err)
	}
	if err := c.Commit(); err != nil {
		t.Fatalf("commit of delete+insert: %v", err)
	}
	if v, _ := db.Get("orders", "e-1"); v.(row).N != 3 {
		t.Errorf("e-1 = %v, want N=3", v)
	}
}

func TestFinishedTransactionsRefuseWork(t *testing.T) {
	db := newDB(t)
	tx := db.Begin("a")
	tx.Put("orders", "o-1", row{})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx.Rollback() // harmless after commit
	if err := tx.Commit(); !errors.Is(err, store.ErrTxDone) {
		t.Errorf("second commit: err = %v, want ErrTxDone", err)
	}
	tx.Put("orders", "o-2", row{})
	if _, ok := db.Get("orders", "o-2"); ok {
		t.Error("a write after commit reached the store")
	}
	if db.LastSeq() != 1 {
		t.Errorf("commits = %d, want 1", db.LastSeq())
	}
}

func TestScanIndexSeesOnlyMatchingRowsInKeyOrder(t *testing.T) {
	db := newDB(t)
	tx := db.Begin("seed")
	for i, status := range []string{"SENT", "PENDING", "SENT", "FAILED", "PENDING"} {
		tx.Put("outbox", string(rune('a'+i)), row{Status: status})
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := db.IndexLen("outbox", "unsent"); got != 3 {
		t.Fatalf("index holds %d rows, want 3", got)
	}
	tx = db.Begin("relay")
	tx.Put("outbox", "b", row{Status: "SENT"})    // leaves the index in this tx
	tx.Put("outbox", "c", row{Status: "PENDING"}) // enters it
	tx.Put("outbox", "f", row{Status: "PENDING"}) // new row
	tx.Put("outbox", "0", row{Status: "PENDING"}) // new row before all others
	var keys []string
	tx.ScanIndex("outbox", "unsent", func(k string, v any) bool { keys = append(keys, k); return true })
	if diff := cmp.Diff([]string{"0", "c", "d", "e", "f"}, keys); diff != "" {
		t.Errorf("ScanIndex in tx (-want +got):\n%s", diff)
	}
	keys = nil
	tx.ScanIndex("outbox", "unsent", func(k string, v any) bool { keys = append(keys, k); return len(keys) < 2 })
	if diff := cmp.Diff([]string{"0", "c"}, keys); diff != "" {
		t.Errorf("ScanIndex stopping after 2 (-want +got):\n%s", diff)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := db.IndexLen("outbox", "unsent"); got != 5 {
		t.Errorf("index holds %d rows after commit, want 5", got)
	}
}

func TestLogAndTruncate(t *testing.T) {
	db := newDB(t)
	db.KeepLog()
	for _, k := range []string{"a", "b", "c"} {
		tx := db.Begin("w")
		tx.Put("orders", k, row{})
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(db.Log(1)); got != 2 {
		t.Fatalf("Log(1) has %d commits, want 2", got)
	}
	db.TruncateLog(2)
	log := db.Log(0)
	if len(log) != 1 || log[0].Seq != 3 || log[0].Changes[0].Key != "c" {
		t.Fatalf("after TruncateLog(2): %+v", log)
	}
}

func TestCreateTableTwice(t *testing.T) {
	db := newDB(t)
	if err := db.CreateTable("orders"); !errors.Is(err, store.ErrTableExists) {
		t.Fatalf("err = %v, want ErrTableExists", err)
	}
}

func TestValuesInKeyOrder(t *testing.T) {
	db := newDB(t)
	tx := db.Begin("w")
	for _, k := range []string{"c", "a", "b"} {
		tx.Put("orders", k, row{Status: k})
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	open := db.Begin("w")
	open.Put("orders", "0", row{Status: "uncommitted"})
	var got []string
	for _, r := range store.Values[row](db, "orders") {
		got = append(got, r.Status)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, got); diff != "" {
		t.Fatalf("Values (-want +got):\n%s", diff)
	}
}

func TestSeqKeyIsSprintf(t *testing.T) {
	for _, n := range []int{0, 1, 42, 999_999_999_999, 1_000_000_000_000, 1 << 62} {
		for _, prefix := range []string{"", "o-1/"} {
			if got, want := store.SeqKey(prefix, n), fmt.Sprintf("%s%012d", prefix, n); got != want {
				t.Errorf("SeqKey(%q, %d) = %q, want %q", prefix, n, got, want)
			}
		}
	}
}

func TestLogIsKeptOnlyForAReader(t *testing.T) {
	db := newDB(t)
	commit := func(key string) {
		tx := db.Begin("w")
		tx.Put("orders", key, row{})
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	commit("a")
	db.KeepLog()
	commit("b")
	if db.LastSeq() != 2 {
		t.Fatalf("LastSeq = %d, want 2: commits are numbered whether or not the log is kept", db.LastSeq())
	}
	if log := db.Log(0); len(log) != 1 || log[0].Seq != 2 {
		t.Fatalf("Log(0) = %+v, want commit 2 only: the log starts at KeepLog", log)
	}
	defer func() {
		if recover() == nil {
			t.Error("Log without KeepLog did not panic")
		}
	}()
	newDB(t).Log(0)
}

func TestCrashAbortsOnlyTheOwnersTransactions(t *testing.T) {
	db := newDB(t)
	owners := []string{"relay", "service", "relay", "billing", "relay"}
	var txs []*store.Tx
	for _, o := range owners {
		txs = append(txs, db.Begin(o))
	}
	if n := db.Crash("relay"); n != 3 {
		t.Fatalf("Crash(relay) aborted %d transactions, want 3", n)
	}
	if n := db.OpenTransactions(); n != 2 {
		t.Fatalf("open transactions after the crash = %d, want 2", n)
	}
	for i, tx := range txs {
		err := tx.Commit()
		if aborted := owners[i] == "relay"; aborted != errors.Is(err, store.ErrAborted) {
			t.Errorf("transaction %d of %s: Commit = %v", i, owners[i], err)
		}
	}
	if n := db.OpenTransactions(); n != 0 {
		t.Fatalf("open transactions at the end = %d, want 0", n)
	}
}

// TestTheSessionNamesWhoCommitted: with a session hook, every commit
// records the process the database saw it come from, whatever owner name
// the writer chose, and a crash of that process aborts its open
// transactions under any name.
func TestTheSessionNamesWhoCommitted(t *testing.T) {
	db := newDB(t)
	db.KeepLog()
	running := "relay-1"
	db.SetSession(func() string { return running })
	tx := db.Begin("relay") // the name every instance writes
	tx.Put("orders", "o-1", row{Status: "NEW"})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	running = "relay-2"
	open := db.Begin("relay")
	open.Put("orders", "o-2", row{Status: "NEW"})
	log := db.Log(0)
	if got := log[0]; got.Owner != "relay" || got.Process != "relay-1" {
		t.Errorf("commit by %q as %q, want relay-1 as relay", got.Process, got.Owner)
	}
	if n := db.Crash("relay-1"); n != 0 {
		t.Errorf("relay-1's crash aborted %d transaction(s) of relay-2", n)
	}
	if n := db.Crash("relay-2"); n != 1 {
		t.Errorf("relay-2's crash aborted %d transaction(s), want its one", n)
	}
	if err := open.Commit(); !errors.Is(err, store.ErrAborted) {
		t.Errorf("commit after its process crashed: %v, want ErrAborted", err)
	}
}

// TestEachVisitsTheCommittedRowsOnly: Each sees every committed row once,
// as Values does, and neither an open transaction's writes nor a deleted
// row.
func TestEachVisitsTheCommittedRowsOnly(t *testing.T) {
	db := newDB(t)
	tx := db.Begin("svc")
	for i := 1; i <= 3; i++ {
		tx.Put("outbox", store.SeqKey("m-", i), row{Status: "PENDING", N: i})
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx = db.Begin("svc")
	tx.Delete("outbox", store.SeqKey("m-", 2))
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	open := db.Begin("relay")
	open.Put("outbox", store.SeqKey("m-", 4), row{Status: "PENDING", N: 4})
	defer open.Rollback()
	seen := map[string]int{}
	db.Each("outbox", func(key string, v any) { seen[key] += v.(row).N })
	want := map[string]int{store.SeqKey("m-", 1): 1, store.SeqKey("m-", 3): 3}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("Each (-want +got):\n%s", diff)
	}
}

// TestDBScanIndexSeesTheCommittedMembersOnly: outside a transaction the
// scan visits the index's committed members in key order, across more
// than one chunk, stops when fn says so, and sees no open transaction's
// writes.
func TestDBScanIndexSeesTheCommittedMembersOnly(t *testing.T) {
	db := newDB(t)
	tx := db.Begin("seed")
	var want []string
	for i := 1; i <= 150; i++ {
		status := "PENDING"
		if i%3 == 0 {
			status = "SENT"
		} else {
			want = append(want, store.SeqKey("m-", i))
		}
		tx.Put("outbox", store.SeqKey("m-", i), row{Status: status, N: i})
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	open := db.Begin("relay")
	defer open.Rollback()
	open.Put("outbox", store.SeqKey("m-", 0), row{Status: "PENDING"})
	open.Put("outbox", store.SeqKey("m-", 1), row{Status: "SENT"})
	var keys []string
	db.ScanIndex("outbox", "unsent", func(k string, _ any) bool { keys = append(keys, k); return true })
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("ScanIndex (-want +got):\n%s", diff)
	}
	keys = nil
	db.ScanIndex("outbox", "unsent", func(k string, _ any) bool { keys = append(keys, k); return len(keys) < 70 })
	if diff := cmp.Diff(want[:70], keys); diff != "" {
		t.Errorf("ScanIndex stopping after 70 (-want +got):\n%s", diff)
	}
}

// TestALogReaderCannotReachTheNextCommitsChanges: the log's commits share
// the memory their changes are kept in; a reader that appends to one
// commit's changes (against Log's rule, but possible) gets a copy, and the
// next commit's changes stay as committed.
func TestALogReaderCannotReachTheNextCommitsChanges(t *testing.T) {
	db := newDB(t)
	db.KeepLog()
	for i := 1; i <= 3; i++ {
		tx := db.Begin("svc")
		tx.Put("outbox", store.SeqKey("m-", i), row{Status: "PENDING", N: i})
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	log := db.Log(0)
	_ = append(log[0].Changes, store.Change{Table: "outbox", Key: "intruder"})
	for i, c := range db.Log(0) {
		if len(c.Changes) != 1 || c.Changes[0].Key != store.SeqKey("m-", i+1) {
			t.Errorf("commit %d: changes %+v, want the one row %s", c.Seq, c.Changes, store.SeqKey("m-", i+1))
		}
	}
}
