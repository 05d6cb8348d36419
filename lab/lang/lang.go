package lang

import (
	"fmt"
	"strings"
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

// Textf formats both languages of format with the same arguments.
func Textf(format Text, args ...any) Text {
	t := Text{EN: fmt.Sprintf(format.EN, args...)}
	if format.DE != "" {
		t.DE = fmt.Sprintf(format.DE, args...)
	}
	return t
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
