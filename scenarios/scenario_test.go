package scenarios_test

import (
	"slices"
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

// TestEveryCrashRowIsABoundarysPoint: a crash row's id is a point of a
// boundary a component declares (scenarios.Boundaries), the one place a crash
// point is named; a row whose id names none would never fire.
func TestEveryCrashRowIsABoundarysPoint(t *testing.T) {
	if got := rowsWithoutBoundary(scenarios.CrashPoints); len(got) > 0 {
		t.Errorf("crash rows whose point no component declares: %q (scenarios/boundaries.go lists every declared boundary)", got)
	}
	// A row with a slip in its id, as a new row could have it.
	if got := rowsWithoutBoundary([]string{"relay.after-claim", "relay.after-clam", "relay.during-send"}); !slices.Equal(got, []string{"relay.after-clam", "relay.during-send"}) {
		t.Errorf("rows with slips: got %q, want both named", got)
	}
}

// rowsWithoutBoundary returns the points that are no declared
// boundary's Before or After.
func rowsWithoutBoundary(points []string) []string {
	var out []string
	for _, p := range points {
		if !slices.ContainsFunc(scenarios.Boundaries(), func(b scenarios.BoundarySpec) bool { return b.Before() == p || b.After() == p }) {
			out = append(out, p)
		}
	}
	return out
}
