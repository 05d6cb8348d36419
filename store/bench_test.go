package store_test

import (
	"fmt"
	"testing"

	"outboxlab/store"
)

// BenchmarkTransaction is the store's unit of work as a component uses it:
// begin, read two rows, update one, insert one (unique) and delete one,
// commit, on a table of 1,000 rows with a partial index that stays that
// size. A message makes four transactions (BenchmarkPipeline in the root
// package).
func BenchmarkTransaction(b *testing.B) {
	const rows = 1000
	db := store.New("bench")
	if err := db.CreateTable("t", store.Index{Name: "pending", Where: func(v any) bool { return v.(row).Status == "PENDING" }}); err != nil {
		b.Fatal(err)
	}
	keys, extra := make([]string, rows), make([]string, rows)
	tx := db.Begin("setup")
	for i := range keys {
		keys[i], extra[i] = store.SeqKey("", i), fmt.Sprintf("extra-%d", i)
		tx.Put("t", keys[i], row{Status: "PENDING", N: i})
	}
	tx.Put("t", extra[rows-1], row{Status: "PENDING"})
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		tx := db.Begin("w")
		a, _ := tx.Get("t", keys[i%rows])
		_, _ = tx.Get("t", keys[(i+1)%rows])
		tx.Put("t", keys[i%rows], row{Status: "SENT", N: a.(row).N + 1})
		if err := tx.Insert("t", extra[i%rows], row{Status: "PENDING", N: i}); err != nil {
			b.Fatal(err)
		}
		tx.Delete("t", extra[(i+rows-1)%rows])
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}
