package lang

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Lang is the language of what a learner reads.
type Lang int

// The two languages of the lab.
const (
	English Lang = iota
	German
)

// Codes are the values --lang and -lab.lang accept.
var Codes = []string{"en", "de"}

// String returns the language's code, "en" or "de".
func (l Lang) String() string {
	if l == German {
		return "de"
	}
	return "en"
}

// Parse turns a code ("en", "de") into a Lang.
func Parse(code string) (Lang, error) {
	switch code {
	case "en":
		return English, nil
	case "de":
		return German, nil
	}
	return English, fmt.Errorf("%q is not a language: want one of %s", code, strings.Join(Codes, ", "))
}

// Detect returns the language a flag asks for, or, when the flag is empty,
// the environment's: German when LC_ALL (or, if that is unset, LANG)
// starts with "de", English otherwise. getenv is os.Getenv outside tests.
func Detect(flag string, getenv func(string) string) (Lang, error) {
	if flag != "" {
		return Parse(flag)
	}
	for _, name := range []string{"LC_ALL", "LANG"} {
		if v := getenv(name); v != "" {
			if strings.HasPrefix(v, "de") {
				return German, nil
			}
			return English, nil
		}
	}
	return English, nil
}

// Text is one learner-facing text in both languages. DE may be empty
// while a text waits for its translation; In then prints EN.
type Text struct{ EN, DE string }

// In returns the text in l.
func (t Text) In(l Lang) string {
	if l == German && t.DE != "" {
		return t.DE
	}
	return t.EN
}

// Textf formats both languages of format with the same arguments; an
// argument that is a Text (a nested sentence, a Count, a Duration) is
// formatted in each language as that language's.
func Textf(format Text, args ...any) Text {
	t := Text{EN: fmt.Sprintf(format.EN, in(args, English)...)}
	if format.DE != "" {
		t.DE = fmt.Sprintf(format.DE, in(args, German)...)
	}
	return t
}

// in returns args with every Text among them put into l.
func in(args []any, l Lang) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if t, ok := a.(Text); ok {
			a = t.In(l)
		}
		out[i] = a
	}
	return out
}

// Count is a whole number as each language writes it: 600000 in English
// (as the lab always printed it), 600.000 in German, where a dot groups
// the thousands from 10.000 on (and 2.000 as the chapters write it).
func Count(n int64) Text {
	en := strconv.FormatInt(n, 10)
	digits, sign := en, ""
	if n < 0 {
		digits, sign = en[1:], "-"
	}
	if len(digits) <= 3 {
		return Plain(en)
	}
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(d)
	}
	return Text{EN: en, DE: sign + b.String()}
}

// Duration is a span of time as each language writes it: Go's 33m20s in
// English, "33 min 20 s" in German (h, min and s, seconds with a decimal
// comma, "800 ms" below a second; zero parts left out).
func Duration(d time.Duration) Text {
	if d <= 0 || d%time.Millisecond != 0 {
		return Plain(d.String())
	}
	en := d.String()
	if d < time.Second {
		return Text{EN: en, DE: strconv.FormatInt(int64(d/time.Millisecond), 10) + " ms"}
	}
	var parts []string
	if h := d / time.Hour; h > 0 {
		parts = append(parts, Count(int64(h)).DE+" h")
		d -= h * time.Hour
	}
	if m := d / time.Minute; m > 0 {
		parts = append(parts, strconv.FormatInt(int64(m), 10)+" min")
		d -= m * time.Minute
	}
	if d > 0 {
		sec := strconv.FormatFloat(float64(d/time.Millisecond)/1000, 'f', -1, 64) // 14.944, not d.Seconds()'s 14.943999999999999
		parts = append(parts, strings.Replace(sec, ".", ",", 1)+" s")
	}
	return Text{EN: en, DE: strings.Join(parts, " ")}
}

// Decimal is a number as each language writes it: 2.5 in English, 2,5 in
// German, whole numbers as Count writes them while they have at most
// digits digits; at most digits significant digits (1e+12 stays so).
func Decimal(x float64, digits int) Text {
	if x == math.Trunc(x) && math.Abs(x) < math.Pow10(digits) {
		return Count(int64(x))
	}
	en := strconv.FormatFloat(x, 'g', digits, 64)
	return Text{EN: en, DE: strings.Replace(en, ".", ",", 1)}
}

// Amount is a decimal amount as each language writes it, from its English
// form (domain.Money.Amount: "1250.00", "-25.00", "1200"): the same in
// English (as story files write money), in German with a decimal comma
// and the thousands grouped by dots as Count groups them ("1.250,00").
func Amount(en string) Text {
	sign, digits := "", en
	if rest, ok := strings.CutPrefix(en, "-"); ok {
		sign, digits = "-", rest
	}
	whole, cents, dot := strings.Cut(digits, ".")
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return Plain(en) // not a number: as it is
	}
	de := sign + Count(n).In(German)
	if dot {
		de += "," + cents
	}
	return Text{EN: en, DE: de}
}

// Money is an amount and its currency as each language writes it: "1250.00
// EUR" in English, "1.250,00 EUR" in German (see Amount).
func Money(amount, currency string) Text {
	if currency == "" { // no money at all: its amount alone
		return Amount(amount)
	}
	return Textf(Plain("%s %s"), Amount(amount), currency)
}

// Join joins texts with sep in each language.
func Join(texts []Text, sep string) Text {
	var en, de []string
	for _, t := range texts {
		en = append(en, t.EN)
		de = append(de, t.In(German))
	}
	return Text{EN: strings.Join(en, sep), DE: strings.Join(de, sep)}
}

// Plain is a text that reads the same in both languages: an id, a
// command, a number.
func Plain(s string) Text { return Text{EN: s, DE: s} }

// Error is an error a learner reads (a bad name, a bad value), in both
// languages; Error() is its English.
type Error struct{ Text Text }

func (e *Error) Error() string { return e.Text.EN }

// Errorf is Textf as an *Error.
func Errorf(format Text, args ...any) error { return &Error{Textf(format, args...)} }

// Message returns err's message in l: an *Error in err's chain in l, with
// the English context that wraps it (as fmt.Errorf("...: %w") puts it
// before) kept; any other error as it is.
func Message(err error, l Lang) string {
	msg := err.Error()
	var e *Error
	if errors.As(err, &e) {
		if prefix, ok := strings.CutSuffix(msg, e.Error()); ok {
			return prefix + e.Text.In(l)
		}
	}
	return msg
}
