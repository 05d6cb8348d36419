package sqlitelab

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"outboxlab/real/cleanup"
	"outboxlab/variant"
)

func TestMain(m *testing.M) {
	testVariants = append(brokenPorts, portConfirmsFirst) // before Child: the children run them too
	Child()
	cleanup.MustStart()
	os.Exit(m.Run())
}

// program returns how a test starts its children: this test binary, which
// runs Child first and no test.
func program(t *testing.T) (string, []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe, []string{"-test.run=^$"}
}

func TestTheReferenceWithoutACrashIsOK(t *testing.T) {
	exe, args := program(t)
	res, err := Run(Config{Variant: "outbox", Relays: 2, Program: exe, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != variant.OK || res.Fired || len(res.Deaths) != 0 {
		t.Fatalf("outcome %s, fired %v, deaths %v\n%v\n%s", res.Outcome, res.Fired, res.Deaths, res.Violations, timeline(res))
	}
	t.Logf("%d commits in %s", res.Commits, res.Wall)
}

func TestAKilledRelayDiesBySignalAndANewProcessTakesOver(t *testing.T) {
	exe, args := program(t)
	res, err := Run(Config{Variant: "outbox", Relays: 1, Crash: "relay.after-send", Occurrence: 2, Program: exe, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Fired || len(res.Deaths) != 1 {
		t.Fatalf("fired %v, deaths %v\n%s", res.Fired, res.Deaths, timeline(res))
	}
	d := res.Deaths[0]
	if d.Process != "relay-1" || d.Signal != syscall.SIGKILL || d.Successor == 0 || d.Successor == d.PID {
		t.Fatalf("death %+v, want relay-1 killed by SIGKILL and a new process after it\n%s", d, timeline(res))
	}
	if said := fmt.Sprintf("started, pid %d", d.Successor); !strings.Contains(timeline(res), said) {
		t.Fatalf("the successor never ran (no %q)\n%s", said, timeline(res))
	}
	if res.Outcome != variant.OK {
		t.Fatalf("outcome %s: %v\n%s", res.Outcome, res.Violations, timeline(res))
	}
}

func timeline(res Result) string {
	s := ""
	for _, l := range res.Timeline {
		s += l + "\n"
	}
	s += fmt.Sprintf("outcome %s\n", res.Outcome)
	for _, v := range res.Violations {
		s += "  " + v.String() + "\n"
	}
	return s
}
