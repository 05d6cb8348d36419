package scenarios_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestParseFileNamesTheLineAndWhatIsValid: every kind of mistake in a
// scenario file is an error naming the file, the line and what is valid.
func TestParseFileNamesTheLineAndWhatIsValid(t *testing.T) {
	cases := []struct{ text, want string }{
		{"summary s\nworkload standard\nfault reodrer o-1#1\n", `f.txt:3: unknown fault "reodrer" (valid: broker-outage`},
		{"summary s\nworkload standard\ncrash relay.after-send@0\n", `f.txt:3: scenario "relay.after-send@0": occurrence "0" is not a whole number >= 1`},
		{"summary s\nworkload standrad\n", `f.txt:2: unknown workload "standrad" (valid: standard, one-order, orders N EVERY)`},
		{"summary s\nat 1s place o-1 10.001 EUR\n", `f.txt:2: invalid money: amount "10.001" has 3 decimals, EUR allows 2`},
		{"summary s\nat 2s place o-1 1.00 EUR\nat 1s cancel o-1\n", `f.txt:3: at 1s is earlier than the command before it`},
		{"summary s\nat 1x place o-1 1.00 EUR\n", `f.txt:2: duration "1x": want e.g. 40s, 1m30s, 8d or 8d1m`},
		{"summary s\nworkload standard\nfault stall relay-1 40s\n", `f.txt:3: want "fault stall PROCESS POINT FOR"`},
		{"summary s\nworkload standard\nfault commit-failure relay.send@1\n", `f.txt:3: fault commit-failure "relay.send@1": want BOUNDARY@K with K >= 1 and a boundary of service.commit,`},
		{"summary s\nworkload standard\nfault commit-failure relay.claim@0\n", `f.txt:3: fault commit-failure "relay.claim@0": want BOUNDARY@K`},
		{"summary s\nworkload standard\nfault reorder o-1\n", `f.txt:3: target "o-1" is not ORDER#SEQUENCE, e.g. o-1#2`},
		{"summary s\nworkload standard\nvariant nope\n", `f.txt:3: unknown variant "nope" (valid: outbox,`},
		{"summary s\nworkload standard\nrelays 0\n", `f.txt:3: relays "0" is not a whole number >= 1`},
		{"summary s\nworkload standard\nfrobnicate\n", `f.txt:3: unknown line "frobnicate" (valid: summary,`},
		{"summary s\nworkload standard\nrelays 99999\n", `f.txt:3: relays 99999 is too many (at most 100)`},
		{"summary s\nworkload standard\nrelays 99999999999999999999\n", `f.txt:3: relays 99999999999999999999 is too many (at most 100`},
		{"summary s\nworkload standard\nservices 101\n", `f.txt:3: services 101 is too many (at most 100`},
		{"summary s\nworkload standard\nfault duplicate-delivery o-9#1\n", `f.txt:3: fault duplicate-delivery o-9#1: the workload makes no event o-9#1 (its events: o-1#1..3, o-2#1..2, o-3#1)`},
		{"summary s\nfault reorder o-1#4\nworkload standard\n", `f.txt:2: fault reorder o-1#4: the workload makes no event o-1#4 (its events: o-1#1..3,`},
		{"summary s\nworkload standard\nfault wrong-currency o-1#1\n", `f.txt:3: fault wrong-currency o-1#1: o-1#1 is made by a place command; want an amendment's event`},
		{"summary s\nworkload standard\ncrash relay.after-sned@1\n", `f.txt:3: crash relay.after-sned@1: variant outbox never reaches relay.after-sned in this story (the points it reaches: consumer.after-ack, consumer.after-commit,`},
		{"summary s\nworkload standard\ncrash relay.after-send@99\n", `f.txt:3: crash relay.after-send@99: variant outbox reaches relay.after-send 6 time(s) in this story, not 99`},
		{"summary s\nworkload standard\nvariant dual-write\ncrash relay.after-claim@1\n", `f.txt:4: crash relay.after-claim@1: variant dual-write never reaches relay.after-claim in this story`},
		{"summary s\nworkload standard\nfault stall relay-3 relay.before-send 40s\n", `f.txt:3: fault stall relay-3 relay.before-send 40s: this story has no process relay-3 (its processes: service, relay-1, billing; relays and services lines add more)`},
		{"summary s\nworkload standard\nfault stall relay-1 relay.before-sned 40s\n", `f.txt:3: fault stall relay-1 relay.before-sned 40s: variant outbox never reaches relay.before-sned`},
		{"summary s\nworkload standard\nfault kill relay-2 4s\n", `f.txt:3: fault kill relay-2 4s: this story has no process relay-2`},
		{"summary s\nworkload standard\nservices 2\nfault slow-commit service 3s\n", `f.txt:4: fault slow-commit service 3s: this story has no process service (its processes: service-1, service-2, relay-1, billing;`},
		// A freeze past the horizon: the lab's bound, not a point the
		// variant never reaches, nor a run that never quiesces.
		{"summary s\nworkload one-order\nfault stall relay-1 relay.before-send 12h\n", `f.txt:3: fault stall relay-1 relay.before-send 12h: a freeze of 12h0m0s runs past the run's horizon: a phase ends 6h0m0s after it began, and a process frozen that long never moves again in it (at most 5h59m59s`},
		{"summary s\nworkload standard\nservices 2\nfault slow-commit service-1 1000h\n", `f.txt:4: fault slow-commit service-1 1000h: a freeze of 1000h0m0s runs past the run's horizon`},
		{"workload standard\n", `f.txt: no summary line`},
		{"summary s\n", `f.txt: no workload`},
	}
	for _, c := range cases {
		_, err := scenarios.ParseFile("f.txt", c.text)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ParseFile(%q): err = %v, want one starting %q", c.text, err, c.want)
		}
	}
}

// TestAFaultMayAimAtAnOrderPlacedFurtherDown: the references are checked
// once the whole file is read, and what exists passes.
func TestAFaultMayAimAtAnOrderPlacedFurtherDown(t *testing.T) {
	text := "summary s\nfault reorder o-1#1\nfault stall relay-2 relay.before-send 40s\ncrash relay.after-send@6\nrelays 2\nworkload standard\n"
	if _, err := scenarios.ParseFile("f.txt", text); err != nil {
		t.Fatal(err)
	}
}

// TestParseFileBuildsTheRun: a file with every kind of line configures the
// run it says.
func TestParseFileBuildsTheRun(t *testing.T) {
	f, err := scenarios.ParseFile("stories/070-two.txt", `# Two relays.
# A second line.
#de Zwei Relays.
#de Eine zweite Zeile.
#define is narrative, not German
summary two relays and a stall
summary-de zwei Relays und ein Einfrieren
seed 7
relays 2
services 2
restart-delay 1h
at 0s place o-1 10.00 EUR
at 2s amend o-1 2.50 EUR gift wrap
cleanup 8d1m
crash relay.after-claim@2
fault stall relay-1 relay.before-send 40s
fault clock-skew relay-2 -1m

--- expected
anything
`)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "two" || f.Seed != 7 || f.Narrative.EN != "Two relays. A second line. define is narrative, not German" || f.Expected != "anything\n" {
		t.Fatalf("parsed %q seed %d narrative %q expected %q", f.Name, f.Seed, f.Narrative, f.Expected)
	}
	if f.Narrative.DE != "Zwei Relays. Eine zweite Zeile." || f.Summary.DE != "zwei Relays und ein Einfrieren" {
		t.Fatalf("German: summary %q narrative %q", f.Summary.DE, f.Narrative.DE)
	}
	cfg := f.Configure(variant.Outbox(), f.Seed)
	if cfg.Relays != 2 || cfg.Services != 2 || cfg.RestartDelay != time.Hour || len(cfg.Workload) != 2 ||
		cfg.Workload[1].Text != "gift wrap" || cfg.Cleanups[0] != 8*24*time.Hour+time.Minute ||
		cfg.Crashes[0] != (sim.Crash{Point: "relay.after-claim", Occurrence: 2}) || cfg.Faults[1].Skew != -time.Minute {
		t.Fatalf("config %+v", cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestAFileFailsACommitAsTheFailureSweepDoes: "fault commit-failure
// consumer.commit@1" in a story is the failure sweep's run of that name,
// event for event, so that a line exploration prints can be written into a
// story.
func TestAFileFailsACommitAsTheFailureSweepDoes(t *testing.T) {
	f, err := scenarios.ParseFile("f.txt", "summary s\nworkload standard\nfault commit-failure consumer.commit@1\n")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.FindScenario("commit-failure:consumer.commit@1")
	if err != nil {
		t.Fatal(err)
	}
	var traces [2]string
	for i, cfg := range []sim.Config{f.Configure(variant.Outbox(), scenarios.MatrixSeed), sc.Configure(variant.Outbox(), scenarios.MatrixSeed)} {
		cfg.Trace = true
		res, err := sim.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.CommitFailures != 1 {
			t.Fatalf("run %d: %d commit failures, want 1", i, res.CommitFailures)
		}
		traces[i] = fmt.Sprint(res.Trace)
	}
	if traces[0] != traces[1] {
		t.Error("the file's run and the failure sweep's differ")
	}
}
