package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// AggregateOrder is the aggregate type of every order event.
const AggregateOrder = "Order"

// Event type names, as they appear on the wire.
const (
	TypeOrderAccepted  = "OrderAccepted"
	TypeOrderAmended   = "OrderAmended"
	TypeOrderCancelled = "OrderCancelled"
)

// Sentinel errors of Decode.
var (
	// ErrUnknownEvent means the record's event type is not one this code knows.
	ErrUnknownEvent = errors.New("unknown event type")
	// ErrUnknownVersion means the event type is known but not in this version.
	ErrUnknownVersion = errors.New("unknown event version")
	// ErrMalformedEvent means the payload does not satisfy the contract.
	ErrMalformedEvent = errors.New("malformed event")
)

// Event is a business fact about one aggregate, numbered by its sequence.
type Event interface {
	// EventType is the contract name, e.g. "OrderAccepted".
	EventType() string
	// AggregateID names the aggregate the event belongs to.
	AggregateID() string
	// Seq is the aggregate's version after this event: 1, 2, 3, ...
	Seq() int
}

// OrderAccepted says an order was accepted with a total. Contract v1; v2
// adds CustomerID, a compatible change: a v1 reader ignores the field.
type OrderAccepted struct {
	OrderID    string    `json:"orderId"`
	Sequence   int       `json:"sequence"`
	Total      Money     `json:"total"`
	AcceptedAt time.Time `json:"acceptedAt"`
	// CustomerID is new in v2; empty in v1.
	CustomerID string `json:"customerId,omitempty"`
}

// OrderAmended says an amount was added to an order. Contract v1.
type OrderAmended struct {
	OrderID   string    `json:"orderId"`
	Sequence  int       `json:"sequence"`
	Amount    Money     `json:"amount"`
	Note      string    `json:"note"`
	AmendedAt time.Time `json:"amendedAt"`
}

// OrderCancelled says an order was cancelled. Contract v1.
type OrderCancelled struct {
	OrderID     string    `json:"orderId"`
	Sequence    int       `json:"sequence"`
	Reason      string    `json:"reason"`
	CancelledAt time.Time `json:"cancelledAt"`
}

// EventType implements Event.
func (OrderAccepted) EventType() string { return TypeOrderAccepted }

// EventType implements Event.
func (OrderAmended) EventType() string { return TypeOrderAmended }

// EventType implements Event.
func (OrderCancelled) EventType() string { return TypeOrderCancelled }

// AggregateID implements Event.
func (e OrderAccepted) AggregateID() string { return e.OrderID }

// AggregateID implements Event.
func (e OrderAmended) AggregateID() string { return e.OrderID }

// AggregateID implements Event.
func (e OrderCancelled) AggregateID() string { return e.OrderID }

// Seq implements Event.
func (e OrderAccepted) Seq() int { return e.Sequence }

// Seq implements Event.
func (e OrderAmended) Seq() int { return e.Sequence }

// Seq implements Event.
func (e OrderCancelled) Seq() int { return e.Sequence }

// Record is an event as it travels: contract name and version, the aggregate
// it belongs to, its sequence number and the JSON payload. It holds only
// immutable fields, so it can be copied freely between stores and the broker.
type Record struct {
	Type          string
	Version       int
	AggregateType string
	AggregateID   string
	Sequence      int
	Payload       string
}

// versions lists the contract versions this code reads and writes.
var versions = map[string][]int{
	TypeOrderAccepted:  {1, 2},
	TypeOrderAmended:   {1},
	TypeOrderCancelled: {1},
	TypeClaimReleased:  {1},
	TypeOrderRow:       {1},
}

// VersionOf returns the contract version Encode writes for e: the lowest
// version that carries all of its fields, so that old readers keep working
// for as long as possible.
func VersionOf(e Event) int {
	if a, ok := e.(OrderAccepted); ok && a.CustomerID != "" {
		return 2
	}
	return 1
}

// Encode turns an event into a Record of the version VersionOf says.
func Encode(e Event) (Record, error) {
	payload, err := json.Marshal(e)
	if err != nil {
		return Record{}, fmt.Errorf("encode %s: %w", e.EventType(), err)
	}
	return Record{
		Type:          e.EventType(),
		Version:       VersionOf(e),
		AggregateType: aggregateType(e),
		AggregateID:   e.AggregateID(),
		Sequence:      e.Seq(),
		Payload:       string(payload),
	}, nil
}

func aggregateType(e Event) string {
	switch e.(type) {
	case ClaimReleased:
		return AggregateClaim
	case OrderRow:
		return "orders" // a table, not an aggregate the service chose
	}
	return AggregateOrder
}

// Decode turns a Record back into an event. It refuses rather than guesses:
// an unknown type or version, a payload that is not valid JSON, fields
// missing, or a payload that disagrees with the record's aggregate id or
// sequence are errors.
func Decode(rec Record) (Event, error) {
	if known, ok := versions[rec.Type]; ok && !slices.Contains(known, rec.Version) {
		return nil, fmt.Errorf("decode %s v%d: %w (known: %v)", rec.Type, rec.Version, ErrUnknownVersion, known)
	}
	e, err := decodePayload(rec.Type, rec.Payload)
	switch {
	case errors.Is(err, ErrUnknownEvent):
		return nil, fmt.Errorf("decode %q: %w", rec.Type, err)
	case err != nil:
		return nil, fmt.Errorf("decode %s v%d: %w: %w", rec.Type, rec.Version, ErrMalformedEvent, err)
	}
	if e.AggregateID() == "" || e.AggregateID() != rec.AggregateID || e.Seq() != rec.Sequence || e.Seq() < 1 {
		return nil, fmt.Errorf("decode %s v%d: %w: payload names %q #%d, record names %q #%d",
			rec.Type, rec.Version, ErrMalformedEvent, e.AggregateID(), e.Seq(), rec.AggregateID, rec.Sequence)
	}
	return e, nil
}

// decodePayload reads the JSON payload of an event of type typ, and checks
// what the payload alone can tell: the fields a contract requires are
// there (a missing or null field decodes as its zero value, which no
// required field may have) and amounts are positive. Fields it does not
// know are ignored: a later version may add them.
func decodePayload(typ, payload string) (Event, error) {
	switch typ {
	case TypeOrderAccepted:
		var v OrderAccepted
		if err := json.Unmarshal([]byte(payload), &v); err != nil {
			return nil, err
		}
		return v, errors.Join(present("orderId", v.OrderID != ""), present("acceptedAt", !v.AcceptedAt.IsZero()), positive("total", v.Total))
	case TypeOrderAmended:
		var v OrderAmended
		if err := json.Unmarshal([]byte(payload), &v); err != nil {
			return nil, err
		}
		return v, errors.Join(present("orderId", v.OrderID != ""), present("amendedAt", !v.AmendedAt.IsZero()), positive("amount", v.Amount))
	case TypeOrderCancelled:
		var v OrderCancelled
		if err := json.Unmarshal([]byte(payload), &v); err != nil {
			return nil, err
		}
		return v, errors.Join(present("orderId", v.OrderID != ""), present("cancelledAt", !v.CancelledAt.IsZero()))
	case TypeClaimReleased:
		var v ClaimReleased
		if err := json.Unmarshal([]byte(payload), &v); err != nil {
			return nil, err
		}
		return v, errors.Join(present("claimId", v.ClaimID != ""), present("releasedAt", !v.ReleasedAt.IsZero()), positive("amount", v.Amount))
	case TypeOrderRow:
		var v OrderRow
		if err := json.Unmarshal([]byte(payload), &v); err != nil {
			return nil, err
		}
		return v, errors.Join(present("id", v.ID != ""), present("status", v.Status != ""), positive("total", v.Total))
	}
	return nil, fmt.Errorf("%w (known: %s, %s, %s, %s, %s)", ErrUnknownEvent,
		TypeOrderAccepted, TypeOrderAmended, TypeOrderCancelled, TypeClaimReleased, TypeOrderRow)
}

// present returns an error naming field unless ok.
func present(field string, ok bool) error {
	if !ok {
		return fmt.Errorf("field %q is missing", field)
	}
	return nil
}

// positive returns an error unless m is a positive amount.
func positive(field string, m Money) error {
	switch {
	case m.Currency == "":
		return fmt.Errorf("field %q is missing", field)
	case !m.IsPositive():
		return fmt.Errorf("%s %s must be positive", field, m)
	}
	return nil
}
