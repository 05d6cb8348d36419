package langtest

import (
	"strings"
	"testing"
)

func TestEnglishIsFound(t *testing.T) {
	for _, line := range []string{
		"DUPLICATE o-1#1: billing applied the change 2 times",
		"  replay: go run ./cmd/labrun scenario relay.after-send --variant dual-write",
		"Legend: ✓ all invariants hold",
		"usage: labrun labrun",
		"<td>expected OK</td>",
	} {
		if got := English(line); len(got) != 1 {
			t.Errorf("English(%q) = %q, want the line", line, got)
		}
	}
	if got := HTML("<p>the <b>change</b> was</p>"); len(got) == 0 {
		t.Errorf("HTML: no English found in an English page")
	}
}

func TestGermanIdsCommandsAndOutcomesPass(t *testing.T) {
	for _, line := range []string{
		"DUPLICATE o-1#1: Billing hat die Änderung 2-mal angewendet",
		"  wiederholen: go run ./cmd/labrun scenario relay.after-send --variant dual-write --lang de",
		"  go run ./cmd/labrun scenario mistake/dual-write --lang de   die Geschichte eines Fehlers als Zeitleiste",
		"Legende: ✓ alle Invarianten gelten",
		"mark-before-send         LOST bei relay.after-mark (+8 weitere)",
		"siehe `labrun help matrix`, `the run prints this`",
		"relay-1 crash relay.after-send; IN_FLIGHT o-1#1",
		"Ohne Bereinigung hinterlassen 2 Ereignisse/s 172.800 SENT-Zeilen am Tag",
		"LOST o-1#3: Billing hält sie: „failed 3 times: add 0.10 EUR\n    to 19.99 USD: currency mismatch“)",
	} {
		if got := English(line); len(got) != 0 {
			t.Errorf("English(%q) = %q, want none", line, got)
		}
	}
	page := "<style>p { color: the }</style><p>die <b>Änderung</b></p><script>if (a && the) {}</script>"
	if got := HTML(page); len(got) != 0 {
		t.Errorf("HTML(%q) = %q, want none", page, strings.Join(got, "\n"))
	}
}

func TestGoNumbersAreFound(t *testing.T) {
	for _, line := range []string{
		"Rückstau nach einem Ausfall von 20m0s: 600000 Nachrichten",
		"Abbau: 33m20s",
		"abgebaut in 2m9.8s",
	} {
		if got := Numbers(line); len(got) != 1 {
			t.Errorf("Numbers(%q) = %q, want the line", line, got)
		}
	}
	for _, line := range []string{
		"Rückstau nach einem Ausfall von 20 min: 600.000 Nachrichten",
		"eine Dauer wie 20m, 1h30m oder 90s",
		"UNSAFE: Journal 000000000006: o-1 mit 60,07 EUR belastet",
		"  Wiederholen: go run ./cmd/labrun backlog --rate 500 --outage 1h30m --relay 800",
		"Seed 1, Kapitel 004, 2.000 am Tag",
	} {
		if got := Numbers(line); len(got) != 0 {
			t.Errorf("Numbers(%q) = %q, want none", line, got)
		}
	}
}

func TestWithoutScheduleKeepsTheProseAndTheTimeline(t *testing.T) {
	out := "Szenario gap, Variante outbox, Seed 1\n00:00:00.011 service   Wirkung     service.commit\n" +
		"                        orders: o-1 v1 ACCEPTED 19,99 EUR\n  at 0s: place o-3 27.32 CHF\nErgebnis: OK (erwartet OK)"
	want := "Szenario gap, Variante outbox, Seed 1\n00:00:00.011 service   Wirkung     service.commit\n" +
		"                        orders: o-1 v1 ACCEPTED 19,99 EUR\nErgebnis: OK (erwartet OK)"
	if got := WithoutSchedule(out); got != want {
		t.Errorf("WithoutSchedule = %q, want %q", got, want)
	}
}

func TestATimelineInEnglishIsFound(t *testing.T) {
	for _, line := range []string{
		"00:00:00.024 relay-1   crash   relay.after-send\n                        0 open transactions aborted; restart at 00:00:05.024",
		"                        broker: delivered e-6aaa407bc219b7cd OrderAccepted o-1#1 to billing",
	} {
		if got := English(line); len(got) == 0 {
			t.Errorf("English(%q): none found", line)
		}
	}
	if got := Numbers("                        orders: o-1 v1 ACCEPTED 19.99 EUR"); len(got) != 1 {
		t.Errorf("Numbers: money with a decimal point not found")
	}
}
