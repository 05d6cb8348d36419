package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/internal/longtest"
	"outboxlab/lang"
	"outboxlab/scenarios"
)

// TestEveryClaimPrintsWhatItSays holds every claim of the chapters to its
// run: a run that no longer prints what its claim says (another outcome,
// a line gone, another exit code) fails here, naming the command. go test
// ./... checks the first claim of each chapter whose run grades nothing
// at depth course; the long form checks every claim.
func TestEveryClaimPrintsWhatItSays(t *testing.T) {
	if !longtest.Long(t, "long_cli") {
		var some []scenarios.Claim
		chapters := map[string]bool{}
		for _, c := range scenarios.Claims() {
			if !chapters[c.Chapter()] && !gradesAtCourse(c.Run) {
				chapters[c.Chapter()] = true
				some = append(some, c)
			}
		}
		var out strings.Builder
		if err := checkClaims(&out, some); err != nil || strings.Count(out.String(), "✓ ") != len(scenarios.Chapters) {
			t.Fatalf("a claim of each chapter: %v\n%s", err, out.String())
		}
		return
	}
	code, stdout, stderr := runLabrun("claims", "--check")
	if code != 0 {
		t.Fatalf("labrun claims --check: exit %d\n%s%s", code, stdout, stderr)
	}
	if n, want := strings.Count(stdout, "✓ "), len(scenarios.Claims()); n != want {
		t.Fatalf("%d claims checked, want %d:\n%s", n, want, stdout)
	}
}

// TestAClaimWhoseRunChangedIsCaught is the check failing: a claim whose
// run prints another outcome, and one whose run exits otherwise, are
// named with what differs, and the check exits 1.
func TestAClaimWhoseRunChangedIsCaught(t *testing.T) {
	file := filepath.Join(t.TempDir(), "claims.txt")
	text := `claim 000 §2
en The reference loses the event when the service dies after its commit.
de Die Referenz verliert das Ereignis, wenn der Service nach seinem Commit stirbt.
run scenario service.after-commit --variant outbox
want Outcome: LOST

claim 000 §6
en The critical row sends again.
de Die kritische Zeile sendet noch einmal.
run scenario after-send-before-sent --variant non-idempotent-consumer
want Outcome: DUPLICATE
exit 1
`
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runLabrun("claims", "--check", "--file", file)
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, stdout)
	}
	for _, want := range []string{
		"✗ 000 §2",
		`no line says "Outcome: LOST"`,
		"✗ 000 §6",
		"exit 0, the claim wants 1", // the variant declares DUPLICATE there: labrun agrees
		"2 of 2 claims no longer print what they say",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the check does not say %q:\n%s", want, stdout)
		}
	}
}

// TestABadClaimsFileIsRefusedNamingTheLine: exit 2, the file and line,
// and what is valid there.
func TestABadClaimsFileIsRefusedNamingTheLine(t *testing.T) {
	file := filepath.Join(t.TempDir(), "claims.txt")
	if err := os.WriteFile(file, []byte("claim 007 §1\nen x\nde y\nrun scenario happy-path\nwant OK\nsays nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runLabrun("claims", "--file", file)
	if code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	for _, want := range []string{file + ":1", "want a chapter first (000, 001, 003, 004)", file + ":6", `unknown line "says"`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q: %s", want, stderr)
		}
	}
}

// TestEveryChapterHasClaims: the list covers the four chapters, and every
// claim has its German.
func TestEveryChapterHasClaims(t *testing.T) {
	count := map[string]int{}
	for _, c := range scenarios.Claims() {
		count[c.Chapter()]++
	}
	for _, ch := range scenarios.Chapters {
		if count[ch] == 0 {
			t.Errorf("chapter %s has no claim", ch)
		}
	}
}

// TestEveryClaimPrintsWhatItSaysInGerman is the German check of every
// claim: its run with --lang de prints each want in German (OUTBOXLAB_LONG=1,
// the long job; go test ./... checks the claims of one German run in
// TestAClaimSaysWhatTheGermanRunPrints).
func TestEveryClaimPrintsWhatItSaysInGerman(t *testing.T) {
	longtest.Only(t, "long_german", "one run's claims in German, and every claim in English")
	code, stdout, stderr := runLabrun("claims", "--check", "--lang", "de")
	if code != 0 {
		t.Fatalf("labrun claims --check --lang de: exit %d\n%s%s", code, stdout, stderr)
	}
	if n, want := strings.Count(stdout, "✓ "), len(scenarios.Claims()); n != want {
		t.Fatalf("%d claims checked, want %d:\n%s", n, want, stdout)
	}
}

// TestAClaimSaysWhatTheGermanRunPrints: under --lang de a claim quotes
// what the German run prints and its command carries --lang de, and
// labrun claims --check --lang de checks that against the German run (the
// claims of one run, with a crash and counted lines in its timeline and
// an outcome; every claim in German: the long job).
func TestAClaimSaysWhatTheGermanRunPrints(t *testing.T) {
	var cs []scenarios.Claim
	for _, c := range scenarios.Claims() {
		if strings.Join(c.Run, " ") == "scenario after-send-before-sent" {
			cs = append(cs, c)
		}
	}
	if len(cs) < 2 {
		t.Fatalf("%d claims run scenario after-send-before-sent, want the ones the test reads", len(cs))
	}
	out := &langBuffer{l: lang.German}
	if err := checkClaims(out, cs); err != nil {
		t.Fatalf("the claims of scenario after-send-before-sent in German:\n%s", out.String())
	}
	_, list, _ := runLabrun("claims", "--chapter", "000", "--lang", "de")
	for _, want := range []string{
		"go run ./cmd/labrun scenario after-send-before-sent --lang de\n  → „relay-1 Absturz relay.after-send“; OK; 3× „broker: veröffentlicht“",
		"LOST; „committet, aber Billing hat sie nie angewendet“",
	} {
		if !strings.Contains(list, want) {
			t.Errorf("labrun claims --lang de does not say %q:\n%s", want, list)
		}
	}
	if strings.Contains(list, "committed, but billing") || strings.Contains(list, "Every cell matches") {
		t.Errorf("labrun claims --lang de quotes the English run")
	}
}
