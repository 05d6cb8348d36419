package lang_test

import (
	"fmt"
	"testing"

	"outboxlab/lab/lang"
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
