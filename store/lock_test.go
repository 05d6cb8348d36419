package store_test

import "testing"

// TestLockSkipSkipsARowAnotherTransactionHolds: FOR UPDATE SKIP LOCKED.
// A second transaction skips a locked row until the first ends, by
// commit, rollback or its owner's crash; a change to a row the committing
// transaction locked says so in the log, and one to a row it did not lock
// does not.
func TestLockSkipSkipsARowAnotherTransactionHolds(t *testing.T) {
	db := newDB(t)
	db.KeepLog()
	a, b := db.Begin("relay-1"), db.Begin("relay-2")
	if !a.LockSkip("outbox", "0001") || !a.LockSkip("outbox", "0001") {
		t.Fatal("relay-1 could not lock a free row, or not lock it again")
	}
	if b.LockSkip("outbox", "0001") {
		t.Fatal("relay-2 locked a row relay-1 holds")
	}
	if !b.LockSkip("outbox", "0002") {
		t.Fatal("relay-2 could not lock another row")
	}
	a.Put("outbox", "0001", row{Status: "SENT"})
	a.Put("orders", "o-1", row{Status: "ACCEPTED"})
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	log := db.Log(0)
	if len(log) != 1 || !log[0].Changes[0].Locked || log[0].Changes[1].Locked {
		t.Fatalf("the commit log says %+v, want the outbox row locked and the order not", log)
	}
	c := db.Begin("relay-3")
	if !c.LockSkip("outbox", "0001") {
		t.Fatal("the lock outlived relay-1's commit")
	}
	c.Rollback()
	if db.Crash("relay-2") != 1 {
		t.Fatal("relay-2's transaction was not open")
	}
	d := db.Begin("relay-3")
	defer d.Rollback()
	if !d.LockSkip("outbox", "0001") || !d.LockSkip("outbox", "0002") {
		t.Fatal("a lock outlived a rollback or its owner's crash")
	}
}
