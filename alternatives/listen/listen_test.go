package listen_test

import (
	"testing"
	"time"

	"outboxlab/alternatives/listen"
	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/store"
)

var at = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestStoreOrderAppliesTheServicesOwnEvents(t *testing.T) {
	db := store.New("orders")
	if err := orders.Install(db); err != nil {
		t.Fatal(err)
	}
	apply := func(e domain.Event) error {
		tx := db.Begin("listener")
		defer tx.Rollback()
		if err := listen.StoreOrder(tx, e, "e-x", at); err != nil {
			return err
		}
		return tx.Commit()
	}
	eur := func(s string) domain.Money { return domain.MustMoney(s, "EUR") }
	for _, e := range []domain.Event{
		domain.OrderAccepted{OrderID: "o-1", Sequence: 1, Total: eur("10.00"), AcceptedAt: at},
		domain.OrderAmended{OrderID: "o-1", Sequence: 2, Amount: eur("2.00"), AmendedAt: at},
		domain.OrderCancelled{OrderID: "o-1", Sequence: 3, CancelledAt: at},
	} {
		if err := apply(e); err != nil {
			t.Fatalf("%s: %v", e.EventType(), err)
		}
	}
	o, _ := orders.Get(db, "o-1")
	if o.Version != 3 || o.Status != domain.Cancelled || o.Total != eur("12.00") {
		t.Fatalf("order = %+v", o)
	}
	// An event whose sequence is not the order's next version is refused:
	// the consumer around StoreOrder must order and deduplicate.
	err := apply(domain.OrderAmended{OrderID: "o-2", Sequence: 5, Amount: eur("1.00")})
	if err == nil {
		t.Fatal("an amendment of an order that does not exist was stored")
	}
	if err := apply(domain.OrderAccepted{OrderID: "o-3", Sequence: 2, Total: eur("1.00")}); err == nil {
		t.Fatal("an accept with sequence 2 was stored")
	}
}
