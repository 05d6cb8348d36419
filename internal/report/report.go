package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"

	"outboxlab/lang"
	"outboxlab/sim"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

// Run is one run as a page shows it.
type Run struct {
	// ID makes the run's anchors unique in its page ("run", "cell-3"): a
	// letter, then letters, digits and dashes.
	ID      string
	Title   string
	Summary string
	// Note says what the run is where the narrative does not tell it (a
	// story told with the reference, played with a mistake); it comes
	// before the narrative.
	Note      string
	Narrative string
	Outcome   variant.Outcome
	// Expected is what the variant declares for the run, or
	// variant.NotApplicable when it declares nothing for it (an exploration
	// of a variant that does not claim to be correct): the page then says
	// nothing of an expectation.
	Expected variant.Outcome
	// Violations are the run's, as check found them.
	Violations []check.Violation
	// Replay is the command that plays the run again.
	Replay string
	// Trace is the run's trace (sim.Config.Trace).
	Trace []sim.Event
}

// Options say how a page speaks.
type Options struct {
	// German selects the page's own words, and the outcomes' meanings
	// (variant.Outcome.Meaning), in German.
	German bool
}

// lang is the page's language.
func (o Options) lang() lang.Lang {
	if o.German {
		return lang.German
	}
	return lang.English
}

// meaning says what o means, in the page's language.
func (o Options) meaning(out variant.Outcome) string {
	return out.Meaning().In(o.lang())
}

// WriteRun writes a page with one run.
func WriteRun(w io.Writer, r Run, opts Options) error {
	view, err := runView(r, opts)
	if err != nil {
		return err
	}
	return write(w, page{Title: r.Title, Class: "run-page", Runs: []runPage{view}}, opts)
}

// WriteText writes a page that only says something: an exploration that
// found nothing.
func WriteText(w io.Writer, title string, opts Options) error {
	return write(w, page{Title: title, Class: "text-page"}, opts)
}

// WriteArticle writes a page of text in the lab's style: body is its
// HTML, written as it is (the caller escapes what it took from elsewhere).
func WriteArticle(w io.Writer, title, body string, opts Options) error {
	return write(w, page{Title: title, Class: "article-page", Body: template.HTML(body)}, opts)
}

// Matrix is a crash matrix as a page shows it: every cell, and the
// counterexample of each cell that is not OK.
type Matrix struct {
	Title    string
	Variants []string
	Points   []sim.Point
	Cells    []sim.Cell
	// Runs are the counterexamples, by Key(variant, point).
	Runs map[string]Run
	// Legend lists the marks and outcome words with their meanings.
	Legend [][2]string
	// Mark writes a cell in a character or two ("L", "D!"); the outcome
	// word is its tooltip. Nil writes the outcome word.
	Mark func(sim.Cell) string
}

// Key is the key of a cell's counterexample in Matrix.Runs.
func Key(variant, point string) string { return variant + "/" + point }

// WriteMatrix writes the matrix page: a table whose cells that are not OK
// link to their counterexample's run in the same page.
func WriteMatrix(w io.Writer, m Matrix, opts Options) error {
	words := wordsFor(opts)
	var b strings.Builder
	b.WriteString(`<table class="matrix"><thead><tr><th></th>`)
	for _, p := range m.Points {
		fmt.Fprintf(&b, `<th scope="col" title="%s">%s</th>`, esc(p.Description.In(opts.lang())), esc(p.ID))
	}
	b.WriteString(`</tr></thead><tbody>`)
	keys := make([]string, 0, len(m.Runs))
	for k := range m.Runs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	index := map[string]int{}
	for i, k := range keys {
		index[k] = i
	}
	for _, v := range m.Variants {
		fmt.Fprintf(&b, `<tr><th scope="row" class="v">%s</th>`, esc(v))
		for _, p := range m.Points {
			c, ok := cell(m.Cells, v, p.ID)
			switch {
			case !ok:
				b.WriteString(`<td></td>`)
			case c.Outcome == variant.NotApplicable:
				b.WriteString(`<td class="na">` + c.Outcome.Letter() + `</td>`)
			case c.Outcome == variant.OK && c.Matches():
				b.WriteString(`<td class="ok">✓</td>`)
			default:
				class := "bad"
				if !c.Matches() {
					class += " disagrees"
				}
				text := c.Outcome.String()
				if m.Mark != nil {
					text = m.Mark(c)
				} else if !c.Matches() {
					text += " !"
				}
				tip := lang.Textf(lang.Text{EN: "%s at %s: %s, expected %s", DE: "%s bei %s: %s, erwartet %s"}, v, p.ID, c.Outcome, c.Expected).In(opts.lang())
				cellHTML := fmt.Sprintf(`<abbr title="%s">%s</abbr>`, esc(tip), esc(text))
				if i, ok := index[Key(v, p.ID)]; ok {
					cellHTML = fmt.Sprintf(`<a href="#cell-%d" title="%s" aria-label="%s">%s</a>`, i, esc(tip), esc(tip), esc(text))
				}
				fmt.Fprintf(&b, `<td class="%s">%s</td>`, class, cellHTML)
			}
		}
		b.WriteString(`</tr>`)
	}
	b.WriteString(`</tbody></table><dl class="legend">`)
	for _, l := range m.Legend {
		fmt.Fprintf(&b, `<dt>%s</dt><dd>%s</dd>`, esc(l[0]), esc(l[1]))
	}
	b.WriteString(`</dl>`)
	if len(keys) > 0 {
		fmt.Fprintf(&b, `<p>%s</p>`, esc(words.CellHint))
	}
	p := page{Title: m.Title, Class: "matrix-page", Matrix: template.HTML(b.String())}
	for i, k := range keys {
		r := m.Runs[k]
		r.ID = fmt.Sprintf("cell-%d", i)
		view, err := runView(r, opts)
		if err != nil {
			return err
		}
		p.Runs = append(p.Runs, view)
	}
	return write(w, p, opts)
}

func cell(cells []sim.Cell, variant, point string) (sim.Cell, bool) {
	for _, c := range cells {
		if c.Variant == variant && c.Point.ID == point {
			return c, true
		}
	}
	return sim.Cell{}, false
}

//go:embed page.html
var pageHTML string

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

var pageTemplate = template.Must(template.New("page").Parse(pageHTML))

// page is what the template draws.
type page struct {
	Lang, Title, Class string
	Words              words
	Matrix             template.HTML
	Body               template.HTML
	Runs               []runPage
	Style              template.CSS
	Script             template.JS
}

type runPage struct {
	ID, Title, Summary, Note, Narrative string
	Outcome, Meaning                    string
	// Declared says how the outcome stands to the declaration ("as
	// declared", "but the variant declares OK"), "" where nothing is
	// declared; Class colours the verdict: ok (every invariant holds, as
	// declared), harm (a failure, even a declared one: red on a
	// projector), disagrees (not as declared).
	Declared, Class string
	Violations      []violationView
	Replay          string
	Last            int
	SVG, Final      template.HTML
	Data            template.JS
}

type violationView struct {
	Text, Meaning, Run, Href, At string
	Step                         int
	Linked                       bool
}

func write(w io.Writer, p page, opts Options) error {
	p.Lang, p.Words = "en", wordsFor(opts)
	if opts.German {
		p.Lang = "de"
	}
	p.Style, p.Script = template.CSS(pageCSS), template.JS(pageJS)
	if err := pageTemplate.Execute(w, p); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// runView prepares one run for the template.
func runView(r Run, opts Options) (runPage, error) {
	if !validID(r.ID) {
		return runPage{}, fmt.Errorf("report: run id %q: want a letter, then letters, digits and dashes", r.ID)
	}
	if len(r.Trace) == 0 {
		return runPage{}, fmt.Errorf("report: run %s has no trace (run it with sim.Config.Trace)", r.ID)
	}
	words := wordsFor(opts)
	v := runPage{ID: r.ID, Title: r.Title, Summary: r.Summary, Note: r.Note, Narrative: r.Narrative,
		Outcome: r.Outcome.String(), Meaning: opts.meaning(r.Outcome),
		Replay: r.Replay, Last: len(r.Trace) - 1}
	v.Declared, v.Class = verdictOf(r, opts.lang())
	for _, viol := range r.Violations {
		vv := violationView{Text: viol.In(opts.lang()), Meaning: opts.meaning(viol.Outcome), Run: r.ID}
		if i, ok := Where(r.Trace, viol); ok {
			vv.Linked, vv.Step, vv.Href = true, i, fmt.Sprintf("%s-e%d", r.ID, i)
			vv.At = fmt.Sprintf("%s %d (%s, %s %s)", words.EventWord, i+1, sim.TimeText(r.Trace[i].At).In(opts.lang()), r.Trace[i].Process, r.Trace[i].What().In(opts.lang()))
		}
		v.Violations = append(v.Violations, vv)
	}
	var svg strings.Builder
	writeSVG(&svg, r.ID, r.Trace, opts.lang())
	v.SVG = template.HTML(svg.String())
	v.Final = template.HTML(finalTables(r.Trace, opts.lang()))
	data, err := eventData(r.Trace, opts.lang())
	if err != nil {
		return runPage{}, err
	}
	v.Data = template.JS(data)
	return v, nil
}

func validID(id string) bool {
	if id == "" || !(id[0] >= 'a' && id[0] <= 'z' || id[0] >= 'A' && id[0] <= 'Z') {
		return false
	}
	return attr(id) == strings.ToLower(id)
}

// eventData is the JSON the page's script steps through: per event its
// text and its rows as [db, table, key, value, deleted].
func eventData(trace []sim.Event, l lang.Lang) (string, error) {
	type event struct {
		Text string  `json:"text"`
		Rows [][]any `json:"rows,omitempty"`
	}
	out := struct {
		Events []event `json:"events"`
	}{}
	for _, e := range trace {
		ev := event{Text: e.In(l)}
		for _, r := range e.Rows {
			deleted := 0
			if r.Deleted {
				deleted = 1
			}
			ev.Rows = append(ev.Rows, []any{r.DB, r.Table, r.Key, r.Value.In(l), deleted})
		}
		out.Events = append(out.Events, ev)
	}
	b, err := json.Marshal(out) // escapes <, > and &: safe inside a script element
	if err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	return string(b), nil
}

// finalTables renders the durable tables at the end of the run: what a
// printed page shows, and what a reader without script sees.
func finalTables(trace []sim.Event, l lang.Lang) string {
	tables := map[string]map[string]string{}
	var order []string
	for _, e := range trace {
		for _, r := range e.Rows {
			name := r.DB + "." + r.Table
			if tables[name] == nil {
				tables[name] = map[string]string{}
				order = append(order, name)
			}
			if r.Deleted {
				delete(tables[name], r.Key)
			} else {
				tables[name][r.Key] = r.Value.In(l)
			}
		}
	}
	first := []string{"orders.orders", "orders.outbox", "broker.log", "billing.inbox", "billing.ledger", "billing.accounts"}
	rank := func(name string) int {
		for i, f := range first {
			if f == name {
				return i
			}
		}
		return len(first)
	}
	sort.SliceStable(order, func(i, j int) bool {
		if rank(order[i]) != rank(order[j]) {
			return rank(order[i]) < rank(order[j])
		}
		return order[i] < order[j]
	})
	var b strings.Builder
	b.WriteString(`<div class="final-tables">`)
	for _, name := range order {
		fmt.Fprintf(&b, `<table class="rows"><caption>%s</caption>`, esc(name))
		keys := make([]string, 0, len(tables[name]))
		for k := range tables[name] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, `<tr><td>%s</td><td>%s</td></tr>`, esc(k), esc(tables[name][k]))
		}
		b.WriteString(`</table>`)
	}
	b.WriteString(`</div>`)
	return b.String()
}

// words are the page's own words.
type words struct {
	Outcome, WentWrong, Replay, Event, EventWord, Keys, NoScript, Tables, Final, CellHint, Deleted string
}

func wordsFor(opts Options) words {
	if opts.German {
		return words{Outcome: "Ergebnis", WentWrong: "schief ging es bei", Replay: "Wiederholen",
			Event: "Ereignis", EventWord: "Ereignis", Keys: "Pfeiltasten, Pos1, Ende: durch die Ereignisse gehen",
			NoScript: "Ohne Skript: das Diagramm, die Verweise und die Tabellen am Ende.", Tables: "Tabellen nach Ereignis",
			Final: "Die Tabellen am Ende des Laufs", CellHint: "Eine Zelle, die nicht ✓ ist, führt zu ihrem Gegenbeispiel.", Deleted: "(gelöscht)"}
	}
	return words{Outcome: "Outcome", WentWrong: "went wrong at", Replay: "Replay",
		Event: "Event", EventWord: "event", Keys: "arrow keys, Home, End: step through the events",
		NoScript: "Without script: the diagram, the links and the tables at the end.", Tables: "Tables after event",
		Final: "The tables at the end of the run", CellHint: "A cell that is not ✓ links to its counterexample.", Deleted: "(deleted)"}
}

// verdictOf says how a run's outcome stands to what its variant declares,
// and the verdict's colour: green only where every invariant holds; a
// failure is red even where declared (it says "as declared" beside it),
// and one that disagrees is marked as such.
func verdictOf(r Run, l lang.Lang) (declared, class string) {
	class = "harm"
	if r.Outcome == variant.OK {
		class = "ok"
	}
	switch {
	case r.Expected == variant.NotApplicable:
	case r.Outcome == r.Expected:
		declared = lang.Text{EN: "as declared", DE: "wie erwartet"}.In(l)
	default:
		declared = lang.Textf(lang.Text{EN: "but the variant declares %s", DE: "die Variante erwartet aber %s"}, r.Expected).In(l)
		class = "disagrees"
	}
	return declared, class
}
