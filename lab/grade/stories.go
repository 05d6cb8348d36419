package grade

import (
	"strings"
	"testing"

	"outboxlab/lab/verdict"
	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// gradeStories plays opts.Stories with v and fails t once for each that
// breaks what v declares for it: its outcome, an error a process should
// have handled, a crash it swallowed, a panic. Each failure says what
// went wrong, its hint and the command that replays the story. It
// reports whether every story passed.
func gradeStories(t testing.TB, v variant.Variant, opts Options, l lang.Lang, command string) bool {
	t.Helper()
	passed := true
	for _, name := range opts.Stories {
		run, err := scenarios.ParseRun(name)
		if err != nil {
			t.Fatalf("grade: story %s: %v", name, err)
		}
		sc, err := scenarios.Find(run)
		if err != nil {
			t.Fatalf("grade: story %s: %v", name, err)
		}
		run.Variant, run.Seed = v.Name, sc.Seed
		res, err := sim.Run(sc.Config(v, run))
		if err != nil {
			t.Fatalf("grade: story %s: %v", name, err)
		}
		if msg := storyFailure(sc, v, res, opts, l); msg != "" {
			passed = false
			t.Errorf("%s\n%s", msg, verdict.Command("    "+lang.Text{EN: "replay", DE: "Wiederholen"}.In(l)+": ", command+" "+run.TestFlags(), width))
		}
	}
	return passed
}

// storyFailure says what went wrong in a story's run, with its hint, or
// "" for nothing.
func storyFailure(sc scenarios.Scenario, v variant.Variant, res sim.Result, opts Options, l lang.Lang) string {
	want := sc.Expected(v)
	head := lang.Textf(lang.Text{EN: "story %s (%s):", DE: "Geschichte %s (%s):"}, sc.Name, sc.Summary)
	var what, hint lang.Text
	switch {
	case res.Outcome != want:
		what = lang.Textf(lang.Text{EN: "%s, where the variant declares %s", DE: "%s, wo die Variante %s erwartet"}, res.Outcome, want)
		if len(res.Violations) > 0 {
			what = lang.Join([]lang.Text{what, res.Violations[0].Detail}, ": ")
		}
		hint = opts.Hints[res.Outcome]
	case len(res.Unhandled) > 0:
		what = lang.Join([]lang.Text{verdict.CauseUnhandled.Text(), quoted(res.Unhandled[0])}, ": ")
		hint = verdict.Group{Cause: verdict.CauseUnhandled}.Hint()
	case len(res.Swallowed) > 0 || len(res.Panics) > 0:
		cause := verdict.CauseSwallowedCrash
		detail := strings.Join(res.Swallowed, "; ")
		if len(res.Panics) > 0 {
			cause, detail = verdict.CausePanic, res.Panics[0]
		}
		what = lang.Join([]lang.Text{cause.Text(), quoted(detail)}, ": ")
		hint = verdict.Group{Cause: cause}.Hint()
	default:
		return ""
	}
	if h, ok := opts.PointHints[sc.Name]; ok {
		hint = h
	}
	out := lang.Wrap("", "  ", head.In(l)+" "+what.In(l), width)
	if hint.EN != "" {
		out += "\n" + lang.Wrap("    "+lang.Text{EN: "hint", DE: "Hinweis"}.In(l)+": ", "      ", hint.In(l), width)
	}
	return out
}

// quoted is what a process said, as it said it: quoted in German.
func quoted(s string) lang.Text { return lang.Text{EN: s, DE: "„" + s + "“"} }
