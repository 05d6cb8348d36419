package sqlitelab

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/orders"
)

// BenchmarkServiceCommit is the service's use case on SQLite: the order and
// its outbox row in one transaction, with the commit log the checker reads.
func BenchmarkServiceCommit(b *testing.B) {
	db := benchDB(b)
	random := rand.New(rand.NewPCG(1, 1))
	s := &service{db: db, gate: effect.Direct{}, owner: "service", newID: func() string { return messageID(random) }}
	i := 0
	for b.Loop() {
		i++
		if err := s.handle(orders.Command{Kind: orders.Place, OrderID: fmt.Sprintf("o-%d", i), Amount: domain.MustMoney("10.00", "EUR")}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
}

// BenchmarkBaselineCommit is the same transaction written plainly: two
// INSERTs of fixed columns, no JSON, no commit log, no order read first.
func BenchmarkBaselineCommit(b *testing.B) {
	db := benchDB(b)
	if _, err := db.Exec(`CREATE TABLE plain_orders (id TEXT PRIMARY KEY, version INTEGER, minor INTEGER, currency TEXT);
		CREATE TABLE plain_outbox (seq INTEGER PRIMARY KEY, id TEXT UNIQUE, order_id TEXT, status TEXT, payload TEXT)`); err != nil {
		b.Fatal(err)
	}
	random := rand.New(rand.NewPCG(1, 1))
	i := 0
	for b.Loop() {
		i++
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		id := fmt.Sprintf("o-%d", i)
		if _, err := tx.Exec(`INSERT INTO plain_orders VALUES (?, 1, 1000, 'EUR')`, id); err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO plain_outbox (id, order_id, status, payload) VALUES (?, ?, 'PENDING', '{"total":"10.00 EUR"}')`, messageID(random), id); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
}

func benchDB(b *testing.B) orderDB {
	dir := b.TempDir()
	if err := create(dir, "", false); err != nil {
		b.Fatal(err)
	}
	db, err := openOrders(dir, "")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}
