package mutation

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestTheHTMLPageSaysWhatTheMarkdownSays: both pages of the annotated
// reference, written from the saved results, are the ones in docs (a
// reason or a line changed since needs the pages written again), and
// carry the same lines, the same notes under them and the same
// survivors; the HTML escapes the source it shows.
func TestTheHTMLPageSaysWhatTheMarkdownSays(t *testing.T) {
	ms, err := Generate("../..", Reference)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("../../docs/why.results.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved, err := ReadResults(f)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string][]Result{}
	for _, r := range saved {
		byKey[r.Key] = append(byKey[r.Key], r)
	}
	var rs []Result
	for _, m := range ms {
		r := byKey[m.Key][0]
		byKey[m.Key] = byKey[m.Key][1:]
		r.ID = m.ID
		rs = append(rs, r)
	}
	a := NewAnalysis(ms, rs, 0)
	var md, page bytes.Buffer
	if err := a.WritePage(&md, "../.."); err != nil {
		t.Fatal(err)
	}
	if err := a.WriteHTML(&page, "../.."); err != nil {
		t.Fatal(err)
	}
	for file, got := range map[string][]byte{"../../docs/why.md": md.Bytes(), "../../docs/why.html": page.Bytes()} {
		if saved, err := os.ReadFile(file); err != nil || !bytes.Equal(saved, got) {
			t.Errorf("%s is not the page the saved results make (%v): go run ./cmd/labwhy --from docs/why.results.json", file, err)
		}
	}
	html := page.String()
	if n, m := strings.Count(html, `<span class="note">`), strings.Count(md.String(), "↳"); n != m || n == 0 {
		t.Errorf("%d notes in the HTML, %d in the Markdown", n, m)
	}
	if n, m := strings.Count(html, `<span class="line"`), strings.Count(md.String(), "\n")-strings.Count(md.String(), "↳"); n == 0 || n > m {
		t.Errorf("%d source lines in the HTML, at most %d lines in the Markdown", n, m)
	}
	for _, want := range []string{
		`<h2 id="outbox-relay-go">outbox/relay.go</h2>`,
		`<h2 id="survivors">Survivors</h2>`,
		"overall         345",
		`if r.Clock.Now().Before(r.pausedUntil) {`,   // a line of source
		`return len(batch) &lt; r.cfg.BatchSize`,     // escaped
		`(ClaimDue) deletes <code>if blocked[agg] {`, // a survivor, its code set as code
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the HTML page has no %q", want)
		}
	}
}
