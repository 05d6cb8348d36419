package consumer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Event is one event as a record carries it: its headers, its key and its
// JSON value, read and checked.
type Event struct {
	ID       string // the event-id header
	Type     string // the event-type header: OrderAccepted, OrderAmended, OrderCancelled
	OrderID  string // the record's key, and the value's orderId
	Sequence int    // the value's sequence: 1, 2, 3 … per order
	// Amount is the total of an OrderAccepted and the amount of an
	// OrderAmended, in minor units; zero for an OrderCancelled.
	Amount Money
}

// Money is an amount in a currency's minor units: cents for EUR and USD,
// yen for JPY.
type Money struct {
	Minor    int64
	Currency string
}

func (m Money) String() string { return fmt.Sprintf("%d %s (minor units)", m.Minor, m.Currency) }

// ErrUnreadable is wrapped by every error of a record the consumer cannot
// read: no retry will change it, it is a dead letter.
var ErrUnreadable = errors.New("unreadable record")

// Decimals are the contract's currencies and their digits after the
// point.
var Decimals = map[string]int{"EUR": 2, "USD": 2, "JPY": 0}

// The contract's headers.
const (
	HeaderID      = "event-id"
	HeaderType    = "event-type"
	HeaderVersion = "event-version"
)

type wireMoney struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

type wireEvent struct {
	OrderID  string     `json:"orderId"`
	Sequence int        `json:"sequence"`
	Total    *wireMoney `json:"total"`
	Amount   *wireMoney `json:"amount"`
}

// known knows version 1 of the contract's three events.
func known(typ, version string) bool {
	switch typ {
	case "OrderAccepted", "OrderAmended", "OrderCancelled":
		return version == "1"
	}
	return false
}

// readRecord reads a record into an Event: known says which events it
// reads, parse reads their amounts.
func readRecord(rec *kgo.Record, known func(typ, version string) bool, parse func(amount, currency string) (Money, error)) (Event, error) {
	h := map[string]string{}
	for _, kv := range rec.Headers {
		h[kv.Key] = string(kv.Value)
	}
	e := Event{ID: h[HeaderID], Type: h[HeaderType]}
	unreadable := func(format string, args ...any) (Event, error) {
		return e, fmt.Errorf("%w: %s", ErrUnreadable, fmt.Sprintf(format, args...))
	}
	if e.ID == "" {
		return unreadable("no %s header", HeaderID)
	}
	if !known(e.Type, h[HeaderVersion]) {
		return unreadable("%s version %q: this consumer knows version 1 of OrderAccepted, OrderAmended, OrderCancelled", e.Type, h[HeaderVersion])
	}
	var w wireEvent
	if err := json.Unmarshal(rec.Value, &w); err != nil {
		return unreadable("value: %v", err)
	}
	if w.OrderID == "" || w.OrderID != string(rec.Key) || w.Sequence < 1 {
		return unreadable("orderId %q, sequence %d, key %q: want the key's order and a sequence >= 1", w.OrderID, w.Sequence, rec.Key)
	}
	e.OrderID, e.Sequence = w.OrderID, w.Sequence
	var money *wireMoney
	switch e.Type {
	case "OrderAccepted":
		money = w.Total
	case "OrderAmended":
		money = w.Amount
	case "OrderCancelled":
		return e, nil
	default:
		return unreadable("event type %q has no effect this consumer knows", e.Type)
	}
	if money == nil {
		return unreadable("%s without its amount", e.Type)
	}
	m, err := parse(money.Amount, money.Currency)
	if err != nil {
		return unreadable("%v", err)
	}
	e.Amount = m
	return e, nil
}

// parseAmount reads a decimal amount with exactly as many digits after
// the point as its currency has ("19.99" EUR, "1200" JPY) into minor
// units, digit by digit: no float on the way.
func parseAmount(amount, currency string) (Money, error) {
	digits, ok := Decimals[currency]
	if !ok {
		return Money{}, fmt.Errorf("currency %q: want EUR, USD or JPY", currency)
	}
	whole, frac, point := strings.Cut(amount, ".")
	if point != (digits > 0) || len(frac) != digits || whole == "" || len(whole) > 15 {
		return Money{}, fmt.Errorf("amount %q: want digits with %d after the point for %s", amount, digits, currency)
	}
	minor, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil || minor <= 0 || strings.ContainsAny(whole+frac, "+-") {
		return Money{}, fmt.Errorf("amount %q: want a positive amount of digits", amount)
	}
	return Money{Minor: minor, Currency: currency}, nil
}
