package scenarios_test

import (
	"strings"
	"testing"

	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestCatalogue runs every named scenario with its own variant and with
// every correct variant: the outcome is the one expected, and every
// scenario tells its story (a summary, and a narrative naming its seed).
func TestCatalogue(t *testing.T) {
	for _, sc := range scenarios.Catalogue() {
		t.Run(sc.Name, func(t *testing.T) {
			if sc.Summary.EN == "" || sc.Narrative.EN == "" || !strings.Contains(sc.Narrative.EN, "hapter") {
				t.Errorf("scenario %s lacks a summary or a narrative that names its chapter's passage", sc.Name)
			}
			names := []string{"outbox", "listen-to-yourself", "cdc"}
			if sc.Variant != "" {
				names = []string{sc.Variant}
			}
			for _, name := range names {
				v, err := scenarios.FindVariant(name)
				if err != nil {
					t.Fatal(err)
				}
				cfg := sc.Configure(v, scenarios.MatrixSeed)
				if v.MaxRelays > 0 && cfg.Relays > v.MaxRelays {
					continue // the story needs more relays than the variant has (sim.Run says so)
				}
				res, err := sim.Run(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if want := sc.Expected(v); res.Outcome != want {
					t.Errorf("%s with %s: %s %v, want %s", sc.Name, name, res.Outcome, res.Violations, want)
				}
				if strings.HasPrefix(sc.Name, "mistake/") && res.Outcome == variant.OK {
					t.Errorf("%s: the mistake's own scenario shows nothing wrong", sc.Name)
				}
			}
		})
	}
}

func TestFindScenario(t *testing.T) {
	for _, name := range []string{"happy-path", "relay.after-send", "relay.after-send@3", "publish-timeout-stored", "mistake/dual-write"} {
		if _, err := scenarios.FindScenario(name); err != nil {
			t.Errorf("FindScenario(%q): %v", name, err)
		}
	}
	for _, name := range []string{"", "nope", "publish-timeout-stored@2", "relay.after-send@0", "relay-after-nothing", "relay.after-send@1+nope"} {
		if _, err := scenarios.FindScenario(name); err == nil {
			t.Errorf("FindScenario(%q) accepted", name)
		}
	}
}

// TestEveryPointSaysWhatHappens: every matrix point has a one-line
// description for labrun list.
func TestEveryPointSaysWhatHappens(t *testing.T) {
	for _, p := range scenarios.Points() {
		if p.Description.EN == "" || p.Description.DE == "" {
			t.Errorf("point %s has no description in English or in German: %+v (its row's Description)", p.ID, p.Description)
		}
	}
}
