package verify

import (
	"fmt"
	"math/rand/v2"

	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/scenarios"
)

// Workload is the commands of a round: the matrix's standard workload
// (three orders in three currencies: o-1 amended twice, o-2 cancelled and
// then amended, which the service refuses, o-3 left alone), then
// n commands drawn from the seed on orders o-4 on: places, amendments
// and cancels in every order, amounts with arbitrary cents in two
// currencies, and now and then a command the service must refuse (an
// order amended after its cancel).
func Workload(seed uint64, n int) []orders.Command { return workload(seed, n, "EUR", "USD") }

// ConsumerWorkload is Workload in three currencies, yen (no minor digits)
// among them: the consumer rounds' commands.
func ConsumerWorkload(seed uint64, n int) []orders.Command {
	return workload(seed, n, "EUR", "USD", "JPY")
}

func workload(seed uint64, n int, currencies ...string) []orders.Command {
	var out []orders.Command
	for _, c := range scenarios.Workload() {
		out = append(out, c.Command)
	}
	rng := rand.New(rand.NewPCG(seed, 0x0b0c))
	type order struct {
		id       string
		currency string
	}
	var open []order
	next := 4
	for range n {
		switch k := rng.IntN(10); {
		case len(open) == 0 || k < 4:
			o := order{id: fmt.Sprintf("o-%d", next), currency: currencies[rng.IntN(len(currencies))]}
			next++
			open = append(open, o)
			out = append(out, orders.Command{Kind: orders.Place, OrderID: o.id, Amount: money(5+rng.IntN(95), rng.IntN(100), o.currency)})
		case k < 8:
			o := open[rng.IntN(len(open))]
			out = append(out, orders.Command{Kind: orders.Amend, OrderID: o.id, Amount: money(rng.IntN(10), 1+rng.IntN(99), o.currency), Text: "extra"})
		default:
			i := rng.IntN(len(open))
			out = append(out, orders.Command{Kind: orders.Cancel, OrderID: open[i].id, Text: "cancelled"})
			if rng.IntN(3) > 0 { // else it stays open: the next amendment is refused
				open = append(open[:i], open[i+1:]...)
			}
		}
	}
	return out
}

// money is units and cents of a currency; of yen, which has no cents,
// their digits: 12 and 34 are 1234 JPY.
func money(units, cents int, currency string) domain.Money {
	if currency == "JPY" {
		return domain.MustMoney(fmt.Sprintf("%d%02d", units, cents), currency)
	}
	return domain.MustMoney(fmt.Sprintf("%d.%02d", units, cents), currency)
}
