package lang_test

import (
	"fmt"
	"testing"
	"time"

	"outboxlab/lang"
)

func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		flag string
		vars map[string]string
		want lang.Lang
	}{
		{"", nil, lang.English},
		{"", map[string]string{"LANG": "de_DE.UTF-8"}, lang.German},
		{"", map[string]string{"LC_ALL": "en_US.UTF-8", "LANG": "de_DE.UTF-8"}, lang.English},
		{"", map[string]string{"LC_ALL": "de_AT", "LANG": "en_US"}, lang.German},
		{"en", map[string]string{"LANG": "de_DE.UTF-8"}, lang.English},
		{"de", nil, lang.German},
	} {
		got, err := lang.Detect(tc.flag, env(tc.vars))
		if err != nil || got != tc.want {
			t.Errorf("Detect(%q, %v) = %v, %v; want %v", tc.flag, tc.vars, got, err, tc.want)
		}
	}
	if _, err := lang.Detect("fr", env(nil)); err == nil || err.Error() != `"fr" is not a language: want one of en, de` {
		t.Errorf("Detect(fr): %v", err)
	}
}

func TestTextFallsBackToEnglish(t *testing.T) {
	if got := (lang.Text{EN: "only English"}).In(lang.German); got != "only English" {
		t.Errorf("got %q", got)
	}
	if got := lang.Textf(lang.Text{EN: "%d runs"}, 3).In(lang.German); got != "3 runs" {
		t.Errorf("got %q", got)
	}
}

func ExampleTextf() {
	msg := lang.Textf(lang.Text{
		EN: "billing applied the change %d times",
		DE: "Billing hat die Änderung %d-mal angewendet",
	}, 2)
	fmt.Println(msg.In(lang.English))
	fmt.Println(msg.In(lang.German))
	// Output:
	// billing applied the change 2 times
	// Billing hat die Änderung 2-mal angewendet
}

func TestNumbersAndDurationsInGerman(t *testing.T) {
	for _, c := range []struct {
		got  lang.Text
		want lang.Text
	}{
		{lang.Count(600000), lang.Text{EN: "600000", DE: "600.000"}},
		{lang.Count(2000), lang.Text{EN: "2000", DE: "2.000"}},
		{lang.Count(-1234567), lang.Text{EN: "-1234567", DE: "-1.234.567"}},
		{lang.Count(999), lang.Plain("999")},
		{lang.Duration(2000 * time.Second), lang.Text{EN: "33m20s", DE: "33 min 20 s"}},
		{lang.Duration(26*time.Hour + 1500*time.Millisecond), lang.Text{EN: "26h0m1.5s", DE: "26 h 1,5 s"}},
		{lang.Duration(129800 * time.Millisecond), lang.Text{EN: "2m9.8s", DE: "2 min 9,8 s"}},
		{lang.Duration(125 * time.Millisecond), lang.Text{EN: "125ms", DE: "125 ms"}},
		{lang.Duration(14944 * time.Millisecond), lang.Text{EN: "14.944s", DE: "14,944 s"}}, // not d.Seconds()'s 14,943999999999999
		{lang.Decimal(2.5, 6), lang.Text{EN: "2.5", DE: "2,5"}},
		{lang.Decimal(600000, 6), lang.Text{EN: "600000", DE: "600.000"}},
		{lang.Duration(0), lang.Plain("0s")},
	} {
		if c.got != c.want {
			t.Errorf("got %+v, want %+v", c.got, c.want)
		}
	}
	got := lang.Textf(lang.Text{EN: "%s messages after %s", DE: "%s Nachrichten nach %s"}, lang.Count(600000), lang.Duration(20*time.Minute))
	if want := (lang.Text{EN: "600000 messages after 20m0s", DE: "600.000 Nachrichten nach 20 min"}); got != want {
		t.Errorf("Textf with Count and Duration: %+v, want %+v", got, want)
	}
}

func TestMessageOfAWrappedError(t *testing.T) {
	err := fmt.Errorf("--variant: %w", lang.Errorf(lang.Text{EN: "unknown variant %q", DE: "unbekannte Variante %q"}, "nope"))
	if got := lang.Message(err, lang.German); got != `--variant: unbekannte Variante "nope"` {
		t.Errorf("German: %q", got)
	}
	if got := lang.Message(err, lang.English); got != err.Error() {
		t.Errorf("English: %q, want %q", got, err.Error())
	}
	if got := lang.Message(fmt.Errorf("plain"), lang.German); got != "plain" {
		t.Errorf("a plain error: %q", got)
	}
}

func TestAmountAndMoney(t *testing.T) {
	for en, de := range map[string]string{"20.09": "20,09", "1250.00": "1.250,00", "-25.00": "-25,00", "1200": "1.200", "0.10": "0,10", "12345678.90": "12.345.678,90"} {
		if got := lang.Amount(en); got.EN != en || got.DE != de {
			t.Errorf("Amount(%q) = %+v, want %q in German", en, got, de)
		}
	}
	if got := lang.Money("20.09", "EUR").In(lang.German); got != "20,09 EUR" {
		t.Errorf("Money in German = %q, want 20,09 EUR", got)
	}
}
