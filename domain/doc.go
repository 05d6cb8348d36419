// Package domain holds the business model of the lab: orders, money and the
// events an order publishes to the rest of the world.
//
// # Money
//
// Money is an integer number of minor units (cents) plus an ISO 4217
// currency code. There are no floats anywhere: "10.00 EUR" is Money{1000,
// "EUR"}. ParseMoney rejects malformed amounts, too many decimals and unknown
// currencies; Add and Sub reject mixed currencies.
//
// # Orders
//
// An Order is an aggregate with a per-aggregate version. Every change
// (AcceptOrder, Amend, Cancel) bumps the version by one and returns the event
// that describes it. The event's sequence number is the version the change
// produced, so a consumer can tell duplicates, gaps and stale events apart.
//
// # Events are external contracts
//
// Events are versioned contracts (OrderAccepted v1 and v2, OrderAmended v1,
// OrderCancelled v1), encoded as JSON with encoding/json. Decode is strict
// where a contract needs it: every required field present and not null,
// money as a decimal string with its currency, amounts positive; fields it
// does not know are ignored, so that a later version's event still reads.
// OrderAccepted v2 adds a customer id: a compatible change, so both
// versions decode. Encode turns an event into a Record (type, version,
// aggregate id, sequence, payload); Decode turns a Record back into an
// event and fails with ErrUnknownEvent or ErrUnknownVersion rather than
// misread a contract it does not know.
package domain
