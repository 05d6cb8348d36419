package mistakes_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A mistake is the reference with its marked change and nothing else
// (STYLE.md: someone who runs diff between the reference and a mistake
// sees the mistake and nothing else). A marked change is a region of the
// mistake's function: a "// MISTAKE:" comment and the lines after it, to
// the first blank line or the end of the block the comment stands in. A
// line the reference has and the mistake does not counts as inside when
// it is missing next to such a region (a deletion is marked where it
// was).

// unmarked returns the changed lines of wrong against ref (both as
// normalize returns them) that lie outside every MISTAKE region, the
// signature (the first line) aside. A deletion counts as marked when a
// region's line stands right before or after where it was.
func unmarked(ref, wrong []string) []string {
	// A reference that is itself a mistake (dual-write, for
	// dual-write-retry) has marks of its own: comments, not its code.
	ref = slices.DeleteFunc(slices.Clone(ref), func(l string) bool { return strings.Contains(l, "// MISTAKE:") })
	marked := regions(wrong)
	diff, _ := lineDiff(ref, wrong)
	var out []string
	j := 0 // the line of wrong the diff stands at
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		if signature := l[2:] == ref[0] || l[2:] == wrong[0]; signature && strings.HasPrefix(strings.TrimSpace(l[2:]), "func") {
			if strings.HasPrefix(l, "+ ") {
				j++
			}
			continue
		}
		switch {
		case strings.HasPrefix(l, "+ "):
			if !marked[j] {
				out = append(out, l)
			}
			j++
		case strings.HasPrefix(l, "- "):
			near := j > 0 && marked[j-1] || j < len(marked) && marked[j]
			if !near {
				out = append(out, l)
			}
		default:
			j++
		}
	}
	return out
}

// unhook writes a frame's hooks (frameHooks) back as the reference has
// them: a mistake built on a frame calls the hook where the reference
// calls its own function, and that is the frame's change, not the
// mistake's.
func unhook(lines []string) []string {
	out := slices.Clone(lines)
	for i, l := range out {
		for _, hook := range frameHookOf {
			if strings.TrimSpace(l) == hook[0] {
				out[i] = strings.Replace(l, hook[0], hook[1], 1)
			}
		}
	}
	return out
}

// frameHookOf pairs each frame hook with the reference line it stands
// for.
var frameHookOf = [][2]string{{"batch, err := r.claim()", "batch, err := r.ClaimDue()"}}

// regions marks the lines of a function that lie in a MISTAKE region.
func regions(lines []string) []bool {
	marked := make([]bool, len(lines))
	for i, l := range lines {
		if !strings.Contains(l, "// MISTAKE:") {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, "\t"))
		for k := i; k < len(lines); k++ {
			lk := lines[k]
			if k > i && (strings.TrimSpace(lk) == "" || len(lk)-len(strings.TrimLeft(lk, "\t")) < indent) {
				break
			}
			marked[k] = true
		}
	}
	return marked
}

// TestNoMistakeChangesALineOutsideItsMark: every mistake's function (not
// the frames, which checkFrame holds to their hooks) differs from the
// reference function it changes only inside its MISTAKE regions.
func TestNoMistakeChangesALineOutsideItsMark(t *testing.T) {
	for _, c := range changes {
		if strings.HasPrefix(c.mistake, "(frame)") {
			continue
		}
		ref, err := source(c.reference)
		if err != nil {
			t.Fatal(err)
		}
		wrong, err := source(c.wrong)
		if err != nil {
			t.Fatal(err)
		}
		if out := unmarked(normalize(ref), unhook(normalize(wrong))); len(out) > 0 {
			t.Errorf("%s (%s.%s in %s) changes the reference's %s.%s outside its // MISTAKE: marks:\n%s\nmark the change, or undo it: a reader who diffs the two must see the mistake and nothing else",
				c.mistake, c.wrong.recv, c.wrong.name, c.wrong.file, c.reference.recv, c.reference.name, strings.Join(out, "\n"))
		}
	}
}

// TestAChangeOutsideAMarkIsFound is the check failing: a mistake changed
// in a line outside its mark (as a hand copy drifts when the reference
// moves on and the copy does not), a line deleted far from its mark, and
// the change inside the mark, which passes.
func TestAChangeOutsideAMarkIsFound(t *testing.T) {
	ref := []string{
		"func (r *Relay) Recover() (int, error) {",
		"\ttx := r.DB.Begin(r.cfg.Owner)",
		"\tdefer tx.Rollback()",
		"\tif m.Status == InFlight && m.LeaseOwner == r.cfg.Owner {",
		"\t\treleased++",
		"\t}",
		"\treturn released, nil",
		"}",
	}
	marked := []string{
		"func (r *recoverAllRelay) recover() (int, error) {",
		"\ttx := r.DB.Begin(r.cfg.Owner)",
		"\tdefer tx.Rollback()",
		"\t// MISTAKE: every IN_FLIGHT message.",
		"\tif m.Status == InFlight {",
		"\t\treleased++",
		"\t}",
		"\treturn released, nil",
		"}",
	}
	if out := unmarked(ref, marked); len(out) > 0 {
		t.Errorf("the marked change alone: %q, want nothing", out)
	}
	drifted := slices.Clone(marked)
	drifted[1] = "\ttx := r.DB.Begin(\"relay\")" // outside the mark
	if out := unmarked(ref, drifted); !slices.Equal(out, []string{"+ \ttx := r.DB.Begin(\"relay\")", "- \ttx := r.DB.Begin(r.cfg.Owner)"}) {
		t.Errorf("a line changed outside the mark: %q, want it found", out)
	}
	deleted := slices.Delete(slices.Clone(marked), 1, 2) // the transaction, away from the mark
	if out := unmarked(ref, deleted); len(out) != 1 || !strings.Contains(out[0], "tx := r.DB.Begin") {
		t.Errorf("a line deleted outside the mark: %q, want it found", out)
	}
}

// withoutReference are the marked functions that change no function of
// the reference, and why.
var withoutReference = map[string]string{
	"newidonresend.go (freshIDs) Publish":       "new-id-on-resend's broker: the reference has no step between the outbox row and the broker that could make an id",
	"nobackoff.go () NoBackoff":                 "a configuration mistake: its change is outbox.Config's backoff, which TestEachMistakeIsTheReferenceWithOneChange cannot diff",
	"noretrylimit.go () NoRetryLimit":           "a configuration mistake: its change is outbox.Config's MaxAttempts, which TestEachMistakeIsTheReferenceWithOneChange cannot diff",
	"nonidempotent.go () NonIdempotentConsumer": "its constructor only chooses the consumer's functions; the changed functions (handleWithoutInbox, applyWithoutInbox) are paired themselves",
}

// TestEveryMarkHasItsReference: every function of the mistakes with a
// MISTAKE mark is paired with the reference function it changes
// (changes), so that no mistake escapes the diff.
func TestEveryMarkHasItsReference(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, b, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			body := string(b[fset.Position(fd.Body.Pos()).Offset:fset.Position(fd.Body.End()).Offset])
			key := fmt.Sprintf("%s (%s) %s", file, receiver(fd), fd.Name.Name)
			if !strings.Contains(body, "// MISTAKE:") || file == "diff_test.go" || file == "marks_test.go" || withoutReference[key] != "" {
				continue
			}
			if !slices.ContainsFunc(changes, func(c change) bool {
				return c.wrong == fn{file, receiver(fd), fd.Name.Name}
			}) {
				t.Errorf("%s has a MISTAKE mark and no pair in diff_test.go's changes: add the reference function it changes (or to withoutReference, why it has none)", key)
			}
		}
	}
}
