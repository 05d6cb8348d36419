package cli

import (
	"strings"
	"testing"
)

// TestAMistakesPageSaysWhatItDid: the page of a story played with a
// mistake says first what this run is (the variant, its outcome, as
// declared) and that the story's narration is the reference's; its
// verdict is red though declared, and says "as declared"; the
// reference's is green. On a projector green means "as it should be".
func TestAMistakesPageSaysWhatItDid(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"scenario", "after-send-before-sent", "--variant", "non-idempotent-consumer", "--format", "html"}, []string{
			`<p class="note">This run: variant non-idempotent-consumer (no inbox: applies every delivery it receives) ends DUPLICATE, as declared; see below. The story below is told with the reference, variant outbox:</p>`,
			`<p class="narrative reference">`,
			`<div class="verdict harm">`,
			`<span class="outcome">Outcome: DUPLICATE</span>, as declared:`,
		}},
		{[]string{"scenario", "after-send-before-sent", "--variant", "non-idempotent-consumer", "--format", "html", "--lang", "de"}, []string{
			`<p class="note">Dieser Lauf: Variante non-idempotent-consumer`,
			`<span class="outcome">Ergebnis: DUPLICATE</span>, wie erwartet:`,
		}},
		{[]string{"scenario", "after-send-before-sent", "--format", "html"}, []string{`<div class="verdict ok">`}},
		{[]string{"scenario", "after-send-before-sent", "--variant", "non-idempotent-consumer"}, []string{
			"This run: variant non-idempotent-consumer (no inbox: applies every delivery it\nreceives) ends DUPLICATE, as declared; see below. The story below is told with\nthe reference, variant outbox:\n\nThe most critical row"}},
		// An exploration that found nothing says so once, and what its
		// schedules went through, as the text does.
		{[]string{"explore", "--variant", "outbox", "--runs", "20", "--format", "html"}, []string{
			"<h1>No counterexample for outbox in 20 random schedules (seed 1).</h1>",
			"<p>Situations reached, in how many of the 20 schedules: "}},
	}
	for _, c := range cases {
		_, out, stderr := runLabrun(c.args...)
		for _, want := range c.want {
			if !strings.Contains(out, want) {
				t.Errorf("labrun %s does not say %q:\n%s%s", strings.Join(c.args, " "), want, out[:min(len(out), 3000)], stderr)
			}
		}
	}
}
