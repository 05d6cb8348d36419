package domain_test

import (
	"fmt"
	"time"

	"outboxlab/domain"
)

// An order change returns the new order and the event that describes it; the
// event travels as a Record with a JSON payload.
func Example() {
	total, err := domain.ParseMoney("10.00", "EUR")
	if err != nil {
		panic(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	order, accepted, _ := domain.AcceptOrder("o-4711", total, at)
	order, amended, _ := order.Amend(domain.MustMoney("2.50", "EUR"), "gift wrap", at.Add(time.Minute))

	fmt.Println(order.ID, order.Status, order.Total, "version", order.Version)
	for _, e := range []domain.Event{accepted, amended} {
		r, _ := domain.Encode(e)
		fmt.Printf("%s v%d #%d %s\n", r.Type, r.Version, r.Sequence, r.Payload)
	}
	// Output:
	// o-4711 ACCEPTED 12.50 EUR version 2
	// OrderAccepted v1 #1 {"orderId":"o-4711","sequence":1,"total":{"amount":"10.00","currency":"EUR"},"acceptedAt":"2026-01-01T00:00:00Z"}
	// OrderAmended v1 #2 {"orderId":"o-4711","sequence":2,"amount":{"amount":"2.50","currency":"EUR"},"note":"gift wrap","amendedAt":"2026-01-01T00:01:00Z"}
}
