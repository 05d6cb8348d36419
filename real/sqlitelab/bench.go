package sqlitelab

import (
	"fmt"
	"math/rand/v2"
	"time"

	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/orders"
	"outboxlab/real/cleanup"
)

// Throughput is what Measure found.
type Throughput struct {
	Orders int
	// Commits is how many service transactions (an order and its outbox
	// row) one process committed, and in how long.
	Commits     int
	CommitsTime time.Duration
	// EndToEnd is how long the whole system (the service process answering
	// a client command by command, a relay, billing) took from the first
	// command until every order was billed and acknowledged.
	EndToEnd time.Duration
	// Outcome is the checker's verdict of the end-to-end run.
	Outcome string
}

// Measure places n orders twice: in this process through the service
// alone (commits per second of the order and outbox transaction), and
// through the real system of processes (orders per second end to end).
func Measure(n int, program string, args []string) (Throughput, error) {
	if n < 1 {
		return Throughput{}, fmt.Errorf("orders = %d, want >= 1", n)
	}
	t := Throughput{Orders: n, Commits: n}
	dir, err := cleanup.MkdirTemp("", "outboxlab-real-")
	if err != nil {
		return t, err
	}
	defer cleanup.RemoveAll(dir)
	if err := create(dir, "", false); err != nil {
		return t, err
	}
	db, err := openOrders(dir, "")
	if err != nil {
		return t, err
	}
	defer db.Close()
	random := rand.New(rand.NewPCG(1, 1))
	s := &service{db: db, gate: effect.Direct{}, owner: "service", newID: func() string { return messageID(random) }}
	workload := placements(n)
	start := time.Now()
	for _, c := range workload {
		if err := s.handle(c); err != nil {
			return t, err
		}
	}
	t.CommitsTime = time.Since(start)

	res, err := Run(Config{Variant: "outbox", Relays: 1, Workload: workload, Burst: true, Program: program, Args: args, Quiesce: time.Minute})
	if err != nil {
		return t, err
	}
	t.EndToEnd, t.Outcome = res.Wall, res.Outcome.String()
	return t, nil
}

// placements returns n place commands for orders o-1, o-2, ...
func placements(n int) []orders.Command {
	out := make([]orders.Command, n)
	for i := range out {
		out[i] = orders.Command{Kind: orders.Place, OrderID: fmt.Sprintf("o-%d", i+1), Amount: domain.MustMoney("10.00", "EUR")}
	}
	return out
}
