package domain

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// The hand-written wire format is checked against encoding/json, the
// oracle: the writer must produce its bytes, and whatever the reader
// accepts encoding/json must accept and decode to the same event.

// anyString draws strings that need every kind of escaping: quotes,
// control characters, HTML characters, U+2028, invalid UTF-8.
func anyString(t *rapid.T, label string) string {
	return rapid.OneOf(
		rapid.String(),
		rapid.StringOf(rapid.SampledFrom([]rune("aZ09\"\\/<>&\b\f\n\r\t\x00\x1f\x7f é€\u2028\u2029\U0001F600"))),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
	).Draw(t, label)
}

func anyMoney(t *rapid.T, label string) Money {
	currency := rapid.SampledFrom([]Currency{"EUR", "JPY", "KWD", "XXX"}).Draw(t, label+".currency")
	return Money{Minor: rapid.Int64().Draw(t, label+".minor"), Currency: currency}
}

func anyTime(t *rapid.T, label string) time.Time {
	sec := rapid.Int64Range(-70_000_000_000, 260_000_000_000).Draw(t, label+".sec") // years -250 to 10,200
	nsec := rapid.Int64Range(0, 999_999_999).Draw(t, label+".nsec")
	zone := rapid.SampledFrom([]*time.Location{time.UTC, time.FixedZone("", 2*3600), time.FixedZone("", -(9*3600 + 30*60))}).Draw(t, label+".zone")
	return time.Unix(sec, nsec).In(zone)
}

func anyEvent(t *rapid.T) Event {
	id, seq := anyString(t, "id"), rapid.Int().Draw(t, "seq")
	switch rapid.IntRange(0, 3).Draw(t, "type") {
	case 0:
		return OrderAccepted{OrderID: id, Sequence: seq, Total: anyMoney(t, "total"), AcceptedAt: anyTime(t, "at"),
			CustomerID: rapid.OneOf(rapid.Just(""), rapid.String()).Draw(t, "customer")}
	case 1:
		return OrderAmended{OrderID: id, Sequence: seq, Amount: anyMoney(t, "amount"), Note: anyString(t, "note"), AmendedAt: anyTime(t, "at")}
	case 2:
		return OrderCancelled{OrderID: id, Sequence: seq, Reason: anyString(t, "reason"), CancelledAt: anyTime(t, "at")}
	default:
		return ClaimReleased{ClaimID: id, Sequence: seq, Amount: anyMoney(t, "amount"), ReleasedAt: anyTime(t, "at")}
	}
}

func TestPayloadIsWhatEncodingJSONWrites(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := anyEvent(t)
		got, gotErr := appendPayload(nil, e)
		want, wantErr := json.Marshal(e)
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("appendPayload error %v, json.Marshal error %v", gotErr, wantErr)
		}
		if string(got) != string(want) {
			t.Fatalf("payload differs from json.Marshal's:\n got %s\nwant %s", got, want)
		}
	})
}

func TestMoneyIsWhatEncodingJSONWrites(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := anyMoney(t, "m")
		got, gotErr := m.MarshalJSON()
		want, wantErr := json.Marshal(struct {
			Amount   string `json:"amount"`
			Currency string `json:"currency"`
		}{m.Amount(), string(m.Currency)})
		if gotErr != nil {
			if _, known := exponents[m.Currency]; known || wantErr != nil {
				t.Fatalf("MarshalJSON(%v): %v", m, gotErr)
			}
			return
		}
		if string(got) != string(want) {
			t.Fatalf("got %s, want %s", got, want)
		}
	})
}

// oracleMoney is money as encoding/json sees it: two strings.
type oracleMoney struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

func (m oracleMoney) parse() (Money, error) {
	parsed, err := ParseMoney(m.Amount, m.Currency)
	if err == nil && !parsed.IsPositive() {
		err = errors.New("not positive")
	}
	return parsed, err
}

// oracleDecode decodes a payload with encoding/json into plain structs with
// the events' fields, then parses the money.
func oracleDecode(typ, payload string) (Event, error) {
	unmarshal := func(v any) error { return json.Unmarshal([]byte(payload), v) }
	switch typ {
	case TypeOrderAccepted:
		var o struct {
			OrderID    string      `json:"orderId"`
			Sequence   int         `json:"sequence"`
			Total      oracleMoney `json:"total"`
			AcceptedAt time.Time   `json:"acceptedAt"`
			CustomerID string      `json:"customerId"`
		}
		if err := unmarshal(&o); err != nil {
			return nil, err
		}
		total, err := o.Total.parse()
		return OrderAccepted{OrderID: o.OrderID, Sequence: o.Sequence, Total: total, AcceptedAt: o.AcceptedAt, CustomerID: o.CustomerID}, err
	case TypeOrderAmended:
		var o struct {
			OrderID   string      `json:"orderId"`
			Sequence  int         `json:"sequence"`
			Amount    oracleMoney `json:"amount"`
			Note      string      `json:"note"`
			AmendedAt time.Time   `json:"amendedAt"`
		}
		if err := unmarshal(&o); err != nil {
			return nil, err
		}
		amount, err := o.Amount.parse()
		return OrderAmended{OrderID: o.OrderID, Sequence: o.Sequence, Amount: amount, Note: o.Note, AmendedAt: o.AmendedAt}, err
	case TypeOrderCancelled:
		var o struct {
			OrderID     string    `json:"orderId"`
			Sequence    int       `json:"sequence"`
			Reason      string    `json:"reason"`
			CancelledAt time.Time `json:"cancelledAt"`
		}
		err := unmarshal(&o)
		return OrderCancelled{OrderID: o.OrderID, Sequence: o.Sequence, Reason: o.Reason, CancelledAt: o.CancelledAt}, err
	case TypeClaimReleased:
		var o struct {
			ClaimID    string      `json:"claimId"`
			Sequence   int         `json:"sequence"`
			Amount     oracleMoney `json:"amount"`
			ReleasedAt time.Time   `json:"releasedAt"`
		}
		if err := unmarshal(&o); err != nil {
			return nil, err
		}
		amount, err := o.Amount.parse()
		return ClaimReleased{ClaimID: o.ClaimID, Sequence: o.Sequence, Amount: amount, ReleasedAt: o.ReleasedAt}, err
	}
	return nil, ErrUnknownEvent
}

// agreesWithOracle fails t if the reader accepts a payload that
// encoding/json refuses or decodes differently. It reports whether the
// reader accepted it.
func agreesWithOracle(t interface{ Fatalf(string, ...any) }, typ, payload string) bool {
	got, err := decodePayload(typ, payload)
	if err != nil {
		return false
	}
	want, oracleErr := oracleDecode(typ, payload)
	if oracleErr != nil {
		t.Fatalf("%s %q: reader accepts %+v, encoding/json refuses: %v", typ, payload, got, oracleErr)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%s %q: reader and encoding/json differ (-json +reader):\n%s", typ, payload, diff)
	}
	return true
}

func TestReaderReadsWhatTheWriterWrites(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := anyEvent(t)
		payload, err := appendPayload(nil, e)
		if err != nil {
			t.Skip("not encodable")
		}
		_, oracleErr := oracleDecode(e.EventType(), string(payload))
		if accepted := agreesWithOracle(t, e.EventType(), string(payload)); !accepted && oracleErr == nil {
			_, err := decodePayload(e.EventType(), string(payload))
			t.Fatalf("reader refuses %s, which encoding/json reads: %v", payload, err)
		}
	})
}

func TestReaderIsStricterOnlyWhereItSays(t *testing.T) {
	const head = `{"orderId":"o-1","sequence":1,"total":{"amount":"10.00","currency":"EUR"}`
	for _, c := range []struct{ name, payload string }{
		{"null field", `{"orderId":null,"sequence":1,"total":{"amount":"10.00","currency":"EUR"}}`},
		{"key in other case", head + `,"OrderID":"o-1"}`},
		{"key in other case, inside money", `{"orderId":"o-1","sequence":1,"total":{"Amount":"10.00","currency":"EUR"}}`},
		{"invalid UTF-8", head + `,"customerId":"` + "\xff" + `"}`},
		{"lone surrogate", head + `,"customerId":"\ud800"}`},
		{"reversed surrogates", head + `,"customerId":"\udc00\ud800"}`},
	} {
		if _, err := decodePayload(TypeOrderAccepted, c.payload); !errors.Is(err, errSyntax) {
			t.Errorf("%s: %s: err = %v, want %v", c.name, c.payload, err, errSyntax)
		}
		if _, err := oracleDecode(TypeOrderAccepted, c.payload); err != nil {
			t.Errorf("%s: encoding/json refuses %s too (%v): the case shows nothing", c.name, c.payload, err)
		}
	}
}

func TestReaderAcceptsWhatJSONAllows(t *testing.T) {
	for _, payload := range []string{
		" {\n\t\"orderId\" : \"o-1\" , \"sequence\":1,\r\"total\":{\"amount\":\"10.00\",\"currency\":\"EUR\"}}\n ",
		`{"orderId":"o-\u0031","sequence":1,"total":{"amount":"10.00","currency":"EUR"},"extra":[1,-2.5e+3,{"a":[]},true,false,null,"\ud83d\ude00"]}`,
		`{"orderId":"x","orderId":"o-1","sequence":1,"total":{"amount":"10.00","currency":"EUR"},"acceptedAt":"2026-01-01T01:00:00+01:00"}`,
		`{"orderId":"o-\/\"\\\b\f\n\r\t","sequence":-0,"total":{"amount":"1","currency":"JPY"}}`,
	} {
		if !agreesWithOracle(t, TypeOrderAccepted, payload) {
			_, err := decodePayload(TypeOrderAccepted, payload)
			t.Errorf("reader refuses %s: %v", payload, err)
		}
	}
}

func FuzzReaderAgreesWithEncodingJSON(f *testing.F) {
	for _, e := range []Event{
		OrderAccepted{OrderID: "o-1", Sequence: 1, Total: MustMoney("10.00", "EUR"), CustomerID: "c-<1>"},
		OrderAmended{OrderID: "o-1", Sequence: 2, Amount: MustMoney("1.50", "EUR"), Note: "x\ny"},
		OrderCancelled{OrderID: "o-1", Sequence: 3, Reason: "\u2028"},
		ClaimReleased{ClaimID: "4711", Sequence: 1, Amount: MustMoney("1250.00", "EUR")},
	} {
		p, _ := appendPayload(nil, e)
		f.Add(e.EventType(), string(p))
	}
	f.Add(TypeOrderAccepted, `{"orderId":"o-1","sequence":1e0,"total":{"amount":"1","currency":"EUR"},"x":[[{}]]}`)
	f.Fuzz(func(t *testing.T, typ, payload string) {
		agreesWithOracle(t, typ, payload)
	})
}
