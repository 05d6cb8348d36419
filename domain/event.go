package domain

import (
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
	var buf [256]byte // on the stack: the payload's only allocation is the string
	payload, err := appendPayload(buf[:0], e)
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
	if _, ok := e.(ClaimReleased); ok {
		return AggregateClaim
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
// what the payload alone can tell: amounts must be positive.
func decodePayload(typ, payload string) (Event, error) {
	var (
		e   Event
		err error
		r   = reader{s: payload}
	)
	switch typ {
	case TypeOrderAccepted:
		var v OrderAccepted
		r.object([]string{"orderId", "sequence", "total", "acceptedAt", "customerId"}, func(key string) {
			switch key {
			case "orderId":
				v.OrderID = r.string()
			case "sequence":
				v.Sequence = r.int()
			case "total":
				v.Total = r.money()
			case "acceptedAt":
				v.AcceptedAt = r.time()
			case "customerId":
				v.CustomerID = r.string()
			}
		})
		if err = r.end(); err == nil && !v.Total.IsPositive() {
			err = fmt.Errorf("total %s must be positive", v.Total)
		}
		e = v
	case TypeOrderAmended:
		var v OrderAmended
		r.object([]string{"orderId", "sequence", "amount", "note", "amendedAt"}, func(key string) {
			switch key {
			case "orderId":
				v.OrderID = r.string()
			case "sequence":
				v.Sequence = r.int()
			case "amount":
				v.Amount = r.money()
			case "note":
				v.Note = r.string()
			case "amendedAt":
				v.AmendedAt = r.time()
			}
		})
		if err = r.end(); err == nil && !v.Amount.IsPositive() {
			err = fmt.Errorf("amount %s must be positive", v.Amount)
		}
		e = v
	case TypeOrderCancelled:
		var v OrderCancelled
		r.object([]string{"orderId", "sequence", "reason", "cancelledAt"}, func(key string) {
			switch key {
			case "orderId":
				v.OrderID = r.string()
			case "sequence":
				v.Sequence = r.int()
			case "reason":
				v.Reason = r.string()
			case "cancelledAt":
				v.CancelledAt = r.time()
			}
		})
		err = r.end()
		e = v
	case TypeClaimReleased:
		var v ClaimReleased
		r.object([]string{"claimId", "sequence", "amount", "releasedAt"}, func(key string) {
			switch key {
			case "claimId":
				v.ClaimID = r.string()
			case "sequence":
				v.Sequence = r.int()
			case "amount":
				v.Amount = r.money()
			case "releasedAt":
				v.ReleasedAt = r.time()
			}
		})
		if err = r.end(); err == nil && !v.Amount.IsPositive() {
			err = fmt.Errorf("amount %s must be positive", v.Amount)
		}
		e = v
	default:
		return nil, fmt.Errorf("%w (known: %s, %s, %s, %s)", ErrUnknownEvent,
			TypeOrderAccepted, TypeOrderAmended, TypeOrderCancelled, TypeClaimReleased)
	}
	return e, err
}
