package verify_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"outboxlab/real/verify"
)

// The consumers under consumers/, built into a directory of their own
// (a relay and a consumer are both called reference), graded as
// labrun-real verify --consumer grades them. One round of the reference
// runs without -short; the whole set runs with OUTBOXLAB_VERIFY=1, as
// CI's consumers step does.

// consumerConfig is the configuration of the consumer rounds of program,
// a consumer under consumers/.
func consumerConfig(t *testing.T, program string) verify.Config {
	t.Helper()
	cfg := serverConfig(t)
	if err := build("./consumers", "consumers"); err != nil {
		t.Fatal(err)
	}
	cfg.Consumer = filepath.Join(bin, "consumers", program)
	return cfg
}

// playConsumer plays the named consumer rounds in parallel subtests and
// hands each result to want.
func playConsumer(t *testing.T, cfg verify.Config, names []string, want func(t *testing.T, res verify.Result)) {
	playOf(t, cfg, verify.ConsumerRounds(cfg.Seed, 2), names, want)
}

// TestTheReferenceConsumerPasses: the lab's reference consumer, a
// program that knows only the contract, passes the round of the zombie:
// stopped with its transaction open past the session timeout while
// another instance takes its partitions over.
func TestTheReferenceConsumerPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("plays real processes for seconds; without -short it runs")
	}
	playConsumer(t, consumerConfig(t, "reference"), []string{"stall"}, passes)
}

// TestTheReferenceConsumerPassesEveryRound: and every other round, the
// random ones of seed 1 too.
func TestTheReferenceConsumerPassesEveryRound(t *testing.T) {
	if !long() {
		t.Skip("every round runs with OUTBOXLAB_VERIFY=1 (CI's consumers step)")
	}
	cfg := consumerConfig(t, "reference")
	var names []string
	for _, r := range verify.ConsumerRounds(cfg.Seed, 2) {
		if r.Name != "stall" {
			names = append(names, r.Name)
		}
	}
	playConsumer(t, cfg, names, passes)
}

// TestEachBrokenConsumerFailsAsNamed: each broken consumer, the reference
// with one step replaced, fails the round that shows its mistake with the
// verdict its doc names (the checker's outcome, or a breach of a rule the
// checker does not judge). A race (a zombie and the instance that took
// its partitions) may need more than one round to show: up to three
// tries.
func TestEachBrokenConsumerFailsAsNamed(t *testing.T) {
	if !long() {
		t.Skip("the broken consumers run with OUTBOXLAB_VERIFY=1 (CI's consumers step)")
	}
	for _, tc := range []struct {
		consumer, round string
		want            string // a word of the round's verdict, or one violation's outcome
	}{
		{"dedup-outside-tx", "stall", "DUPLICATE"},
		{"auto-commit", "kill-before-effect", "LOST"},
		{"arrival-order", "reorder", "OUT_OF_ORDER"},
		{"max-version", "gap", "LOST"},
		{"dead-letters-transient", "db-connection-killed", "GAVE_UP"},
		{"zombie-memory", "stall", "DUPLICATE"},
		{"float-amounts", "three-instances", "MISMATCH"},
		{"no-dedup", "published-twice", "DUPLICATE"},
		{"no-dedup", "kill-after-effect", "DUPLICATE"},
		{"no-dedup", "delivered-twice", "DUPLICATE"},
		{"sticky-memory", "rebalance", "LOST"},
		{"retries-poison", "poison", "STUCK"},
		{"no-version-check", "unknown-version", "PHANTOM"},
		{"dies-on-fetch-error", "fetch-refused", "STUCK"},
		{"ignores-sigterm", "three-instances", verify.IgnoredSIGTERM},
		{"dead-letters-key", "poison", "MISMATCH"},
		{"gives-no-partition-back", "rebalance", "NOT MADE"},
		{"lenient-amounts", "poison", "PHANTOM"},
		{"skips-unknown-type", "unknown-version", "LOST"},
		{"commits-polled-on-stop", "rebalance", "LOST"},
	} {
		t.Run(tc.consumer+"/"+tc.round, func(t *testing.T) {
			t.Parallel()
			cfg := consumerConfig(t, tc.consumer)
			rounds, _ := verify.Select(verify.ConsumerRounds(cfg.Seed, 0), []string{tc.round})
			var res verify.Result
			for try := 1; try <= 3; try++ {
				var err error
				if res, err = verify.RunRound(cfg, rounds[0]); err != nil {
					t.Fatal(err)
				}
				if !res.OK() {
					break
				}
			}
			said := strings.Split(res.Verdict(), ", ")
			for _, v := range res.Violations {
				said = append(said, v.Outcome.String())
			}
			if !slices.Contains(said, tc.want) {
				t.Errorf("%s at %s: %s, want %s\n%s", tc.consumer, tc.round, res.Verdict(), tc.want, explain(res))
			}
		})
	}
}

// TestAConsumerInPython: a consumer written in Python from the contract
// (its own names through the mapping; librdkafka's auto-commit of the
// offsets it stores after each effect) passes every standard round. It
// needs Python 3 with psycopg2 and confluent-kafka (Debian:
// python3-psycopg2 python3-confluent-kafka).
func TestAConsumerInPython(t *testing.T) {
	if !long() {
		t.Skip("the Python consumer runs with OUTBOXLAB_VERIFY=1 (CI's consumers step)")
	}
	python, err := pythonWithClients()
	if err != nil {
		t.Skip(err)
	}
	cfg := consumerConfig(t, "reference")
	cfg.Consumer = python + " consumers/python/consumer.py"
	mapping, err := os.ReadFile("consumers/python/mapping.sql")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Mapping = string(mapping)
	var names []string
	for _, r := range verify.ConsumerRounds(cfg.Seed, 0) {
		names = append(names, r.Name)
	}
	playConsumer(t, cfg, names, passes)
}

// TestTheConsumersKnowOnlyTheContract: no consumer program depends on a
// package of the lab; the only package of this module they import is
// their own library, consumers/consumer.
func TestTheConsumersKnowOnlyTheContract(t *testing.T) {
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "list", "-deps", "-f", "{{.ImportPath}}", "./consumers/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	n := 0
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "outboxlab") && !strings.HasPrefix(pkg, "outboxlab/real/verify/consumers/") {
			t.Errorf("a consumer depends on %s, a package of the lab", pkg)
		}
		n++
	}
	if n < 50 {
		t.Fatalf("go list ./consumers/... named %d packages: did it list the consumers?\n%s", n, out)
	}
}
