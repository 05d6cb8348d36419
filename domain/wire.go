package domain

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// The wire format of events is JSON, written and read by hand here rather
// than through encoding/json's reflection, which cost about 3.4 µs per
// message, most of what the simulator may spend on one (BENCHMARKS.md).
//
// The writer produces exactly the bytes json.Marshal produces for the same
// event, and the reader accepts a subset of what json.Unmarshal accepts and
// decodes it to the same value; wire_test.go checks both against
// encoding/json. Where the reader is stricter it refuses what a contract
// should not contain: null for a field, a key that differs from a field's
// name only in case, a string with invalid UTF-8 or a lone surrogate.

// appendPayload appends e's JSON payload to b.
func appendPayload(b []byte, e Event) ([]byte, error) {
	var err error
	switch e := e.(type) {
	case OrderAccepted:
		b = appendKey(b, '{', "orderId")
		b = appendString(b, e.OrderID)
		b = appendKey(b, ',', "sequence")
		b = strconv.AppendInt(b, int64(e.Sequence), 10)
		b = appendKey(b, ',', "total")
		if b, err = appendMoney(b, e.Total); err != nil {
			return nil, err
		}
		b = appendKey(b, ',', "acceptedAt")
		if b, err = appendTime(b, e.AcceptedAt); err != nil {
			return nil, err
		}
		if e.CustomerID != "" {
			b = appendKey(b, ',', "customerId")
			b = appendString(b, e.CustomerID)
		}
	case OrderAmended:
		b = appendKey(b, '{', "orderId")
		b = appendString(b, e.OrderID)
		b = appendKey(b, ',', "sequence")
		b = strconv.AppendInt(b, int64(e.Sequence), 10)
		b = appendKey(b, ',', "amount")
		if b, err = appendMoney(b, e.Amount); err != nil {
			return nil, err
		}
		b = appendKey(b, ',', "note")
		b = appendString(b, e.Note)
		b = appendKey(b, ',', "amendedAt")
		if b, err = appendTime(b, e.AmendedAt); err != nil {
			return nil, err
		}
	case OrderCancelled:
		b = appendKey(b, '{', "orderId")
		b = appendString(b, e.OrderID)
		b = appendKey(b, ',', "sequence")
		b = strconv.AppendInt(b, int64(e.Sequence), 10)
		b = appendKey(b, ',', "reason")
		b = appendString(b, e.Reason)
		b = appendKey(b, ',', "cancelledAt")
		if b, err = appendTime(b, e.CancelledAt); err != nil {
			return nil, err
		}
	case ClaimReleased:
		b = appendKey(b, '{', "claimId")
		b = appendString(b, e.ClaimID)
		b = appendKey(b, ',', "sequence")
		b = strconv.AppendInt(b, int64(e.Sequence), 10)
		b = appendKey(b, ',', "amount")
		if b, err = appendMoney(b, e.Amount); err != nil {
			return nil, err
		}
		b = appendKey(b, ',', "releasedAt")
		if b, err = appendTime(b, e.ReleasedAt); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("no wire format for %T", e)
	}
	return append(b, '}'), nil
}

// appendKey appends the separator, the quoted key and a colon. Keys are
// plain ASCII names that need no escaping.
func appendKey(b []byte, sep byte, key string) []byte {
	b = append(b, sep, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// appendMoney appends {"amount":"10.00","currency":"EUR"}.
func appendMoney(b []byte, m Money) ([]byte, error) {
	if _, ok := exponents[m.Currency]; !ok {
		return nil, fmt.Errorf("%w: unknown currency %q", ErrMoney, m.Currency)
	}
	b = appendKey(b, '{', "amount")
	b = append(b, '"') // digits, a point and a sign need no escaping
	b = m.appendAmount(b)
	b = append(b, '"')
	b = appendKey(b, ',', "currency")
	b = appendString(b, string(m.Currency))
	return append(b, '}'), nil
}

// appendTime appends t as a quoted RFC 3339 time with sub-second precision,
// as time.Time's MarshalJSON does.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	b = append(b, '"')
	b, err := t.AppendText(b)
	if err != nil {
		return nil, err
	}
	return append(b, '"'), nil
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string escaped as encoding/json escapes
// it: quotes, backslashes and control characters; <, > and & for HTML;
// U+2028 and U+2029 for JavaScript; invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Errors of the payload reader: every one wraps errSyntax, and a payload
// that ends too early gets errTruncated.
var (
	errSyntax    = errors.New("invalid JSON")
	errTruncated = fmt.Errorf("%w: unexpected end of input", errSyntax)
)

// maxDepth bounds the nesting of values the reader skips.
const maxDepth = 1000

// reader reads one JSON payload. It keeps the first error and then reads
// nothing more, so a decoder can read a whole object and check once.
type reader struct {
	s     string
	i     int
	depth int // arrays and objects being skipped
	err   error
}

func (r *reader) fail(format string, args ...any) {
	switch {
	case r.err != nil:
	case r.i >= len(r.s):
		r.err = errTruncated
	default:
		r.err = fmt.Errorf("%w: offset %d: %s", errSyntax, r.i, fmt.Sprintf(format, args...))
	}
}

func (r *reader) space() {
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// consume skips white space and then the byte c, or fails.
func (r *reader) consume(c byte) {
	r.space()
	if r.err == nil && (r.i >= len(r.s) || r.s[r.i] != c) {
		r.fail("want %q", c)
		return
	}
	r.i++
}

// peek skips white space and reports the next byte (0 at the end).
func (r *reader) peek() byte {
	r.space()
	if r.err != nil || r.i >= len(r.s) {
		return 0
	}
	return r.s[r.i]
}

// object reads an object, calling field to read the value of each member
// whose key is one of names. Other members are skipped, unless their key
// matches one of names but for case: encoding/json would read those into
// the field, so the reader refuses them.
func (r *reader) object(names []string, field func(key string)) {
	r.consume('{')
	if r.peek() == '}' {
		r.i++
		return
	}
	for r.err == nil {
		key := r.string()
		r.consume(':')
		if r.err != nil {
			return
		}
		known := false
		for _, n := range names {
			if key == n {
				known = true
				break
			}
			if strings.EqualFold(key, n) {
				r.fail("key %q: the field is %q", key, n)
				return
			}
		}
		if known {
			field(key)
		} else {
			r.skip()
		}
		switch r.peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			return
		default:
			r.fail("want ',' or '}'")
		}
	}
}

// end checks that nothing but white space follows the value.
func (r *reader) end() error {
	r.space()
	if r.err == nil && r.i != len(r.s) {
		r.fail("data after the value")
	}
	return r.err
}

// string reads a string, unescaping it.
func (r *reader) string() string {
	r.consume('"')
	if r.err != nil {
		return ""
	}
	start := r.i
	for r.i < len(r.s) { // the common case: nothing to unescape
		c := r.s[r.i]
		if c == '"' {
			r.i++
			return r.s[start : r.i-1]
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		r.i++
	}
	buf := []byte(r.s[start:r.i])
	for r.i < len(r.s) {
		c := r.s[r.i]
		switch {
		case c == '"':
			r.i++
			return string(buf)
		case c < 0x20:
			r.fail("control character in string")
			return ""
		case c == '\\':
			var ok bool
			if buf, ok = r.escape(buf); !ok {
				return ""
			}
		case c >= utf8.RuneSelf:
			rn, size := utf8.DecodeRuneInString(r.s[r.i:])
			if rn == utf8.RuneError && size == 1 {
				r.fail("invalid UTF-8 in string")
				return ""
			}
			buf = append(buf, r.s[r.i:r.i+size]...)
			r.i += size
		default:
			buf = append(buf, c)
			r.i++
		}
	}
	r.fail("unterminated string")
	return ""
}

// escape reads the escape sequence at r.i and appends what it stands for.
func (r *reader) escape(buf []byte) ([]byte, bool) {
	if r.i+1 >= len(r.s) {
		r.fail("unterminated escape")
		return buf, false
	}
	c := r.s[r.i+1]
	r.i += 2
	switch c {
	case '"', '\\', '/':
		return append(buf, c), true
	case 'b':
		return append(buf, '\b'), true
	case 'f':
		return append(buf, '\f'), true
	case 'n':
		return append(buf, '\n'), true
	case 'r':
		return append(buf, '\r'), true
	case 't':
		return append(buf, '\t'), true
	case 'u':
		rn, ok := r.hex4()
		if !ok {
			return buf, false
		}
		if utf16.IsSurrogate(rn) {
			if !strings.HasPrefix(r.s[r.i:], `\u`) {
				r.fail("lone surrogate")
				return buf, false
			}
			r.i += 2
			lo, ok := r.hex4()
			if !ok {
				return buf, false
			}
			if rn = utf16.DecodeRune(rn, lo); rn == utf8.RuneError {
				r.fail("invalid surrogate pair")
				return buf, false
			}
		}
		return utf8.AppendRune(buf, rn), true
	}
	r.fail("invalid escape \\%c", c)
	return buf, false
}

func (r *reader) hex4() (rune, bool) {
	if r.i+4 > len(r.s) {
		r.fail("short \\u escape")
		return 0, false
	}
	var n rune
	for _, c := range []byte(r.s[r.i : r.i+4]) {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			r.fail("invalid \\u escape")
			return 0, false
		}
		n = n<<4 | rune(d)
	}
	r.i += 4
	return n, true
}

// int reads an integer: a JSON number without fraction or exponent that
// fits an int.
func (r *reader) int() int {
	r.space()
	start := r.i
	if r.i < len(r.s) && r.s[r.i] == '-' {
		r.i++
	}
	switch {
	case r.i < len(r.s) && r.s[r.i] == '0':
		r.i++
	case r.i < len(r.s) && r.s[r.i] >= '1' && r.s[r.i] <= '9':
		for r.i < len(r.s) && r.s[r.i] >= '0' && r.s[r.i] <= '9' {
			r.i++
		}
	default:
		r.fail("want an integer")
		return 0
	}
	if r.i < len(r.s) && (r.s[r.i] == '.' || r.s[r.i] == 'e' || r.s[r.i] == 'E') {
		r.fail("want an integer, not a fraction or exponent")
		return 0
	}
	n, err := strconv.Atoi(r.s[start:r.i])
	if err != nil {
		r.fail("integer %s out of range", r.s[start:r.i])
	}
	return n
}

// time reads an RFC 3339 time as time.Time's UnmarshalJSON does: from the
// raw string, so an escape in it is an error there and here.
func (r *reader) time() time.Time {
	r.consume('"')
	if r.err != nil {
		return time.Time{}
	}
	end := strings.IndexByte(r.s[r.i:], '"')
	if end < 0 {
		r.fail("unterminated string")
		return time.Time{}
	}
	raw := r.s[r.i : r.i+end]
	var t time.Time
	if err := t.UnmarshalText([]byte(raw)); err != nil || strings.ContainsAny(raw, "\\") {
		r.fail("want an RFC 3339 time, got %q", raw)
		return time.Time{}
	}
	r.i += end + 1
	return t
}

// money reads {"amount":"10.00","currency":"EUR"} and parses it; its
// errors wrap ErrMoney, but for a payload that simply ends.
func (r *reader) money() Money {
	var amount, currency string
	r.object([]string{"amount", "currency"}, func(key string) {
		if key == "amount" {
			amount = r.string()
		} else {
			currency = r.string()
		}
	})
	if r.err != nil {
		if !errors.Is(r.err, ErrMoney) && r.err != errTruncated {
			r.err = fmt.Errorf("%w: %w", ErrMoney, r.err)
		}
		return Money{}
	}
	m, err := ParseMoney(amount, currency)
	if err != nil {
		r.err = err
	}
	return m
}

// skip reads any value and throws it away.
func (r *reader) skip() {
	if r.depth > maxDepth {
		r.fail("nested deeper than %d", maxDepth)
		return
	}
	r.depth++
	defer func() { r.depth-- }()
	switch c := r.peek(); {
	case c == '"':
		r.string()
	case c == '{':
		r.object(nil, nil)
	case c == '[':
		r.i++
		if r.peek() == ']' {
			r.i++
			return
		}
		for r.err == nil {
			r.skip()
			switch r.peek() {
			case ',':
				r.i++
			case ']':
				r.i++
				return
			default:
				r.fail("want ',' or ']'")
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		r.number()
	case c == 't':
		r.literal("true")
	case c == 'f':
		r.literal("false")
	case c == 'n':
		r.literal("null")
	default:
		r.fail("want a value")
	}
}

func (r *reader) literal(word string) {
	if !strings.HasPrefix(r.s[r.i:], word) {
		r.fail("want %s", word)
		return
	}
	r.i += len(word)
}

// number reads any JSON number.
func (r *reader) number() {
	digits := func() int {
		n := 0
		for r.i < len(r.s) && r.s[r.i] >= '0' && r.s[r.i] <= '9' {
			r.i++
			n++
		}
		return n
	}
	if r.s[r.i] == '-' {
		r.i++
	}
	if r.i < len(r.s) && r.s[r.i] == '0' {
		r.i++
	} else if digits() == 0 {
		r.fail("want a digit")
		return
	}
	if r.i < len(r.s) && r.s[r.i] == '.' {
		r.i++
		if digits() == 0 {
			r.fail("want a digit after '.'")
			return
		}
	}
	if r.i < len(r.s) && (r.s[r.i] == 'e' || r.s[r.i] == 'E') {
		r.i++
		if r.i < len(r.s) && (r.s[r.i] == '+' || r.s[r.i] == '-') {
			r.i++
		}
		if digits() == 0 {
			r.fail("want a digit in the exponent")
		}
	}
}
