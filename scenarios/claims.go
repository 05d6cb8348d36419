package scenarios

import (
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"outboxlab/lang"
)

// A claim is one checkable statement of a course chapter (a statement
// about behaviour that a run can confirm or refute), with the labrun
// command that proves it and what that command must print. The claims
// are data (claims.txt, embedded into labrun): `labrun claims` lists them,
// `labrun claims --check` runs every one and fails when a run no longer
// prints what its claim says, and the READMEs' claims tables are its
// output. The format, one item a line, a blank line between claims:
//
//	# a comment (not part of any claim)
//	claim 000 §2                         where the chapter says it: chapter and section
//	en Saving the order, then publishing, loses the event when the process dies between the two.
//	de Erst die Bestellung speichern, dann veröffentlichen: stirbt der Prozess dazwischen, fehlt das Ereignis.
//	run scenario service.after-commit --variant dual-write     labrun's arguments
//	want Outcome: LOST (expected LOST)   a line the output must contain (one or more)
//	want-de Billing hält sie              the line before in German, where the German run prints it otherwise
//	count 2 broker: published e-5531     a line the output must contain exactly N times
//	count-de broker: veröffentlicht e-5531  the count's line in German
//	exit 0                               labrun's exit code (default 0)
//	shows en what the run shows, when the claim alone does not say it (optional)
//	shows de the same in German
//	disagrees                            the lab disagrees with the chapter as worded; shows says which is right and why
//
// A claim's run is played in the language asked for (labrun adds --lang
// en or --lang de): a want or count line is its English, want-de and
// count-de after it its German, where that differs. An outcome's line
// ("Outcome: LOST (expected LOST)") has its German without one.

// Claim is one checkable claim of a chapter and the run that proves it.
type Claim struct {
	// Where is the chapter and section: "000 §5", "004 Typische Fehler".
	Where string
	// Text is the claim as the lab reads the chapter.
	Text lang.Text
	// Run is labrun's arguments, Want the lines its output must contain
	// (in English and in German), Exit its exit code.
	Run  []string
	Want []lang.Text
	Exit int
	// Counts are lines the output must contain exactly so many times.
	Counts []Count
	// Shows says what the run shows ("" when the claim says it).
	Shows lang.Text
	// Disagrees marks a claim that the lab refutes as the chapter words
	// it; Shows says which is right and why.
	Disagrees bool
	// Line is the claim's first line in its file, for error messages.
	Line int
}

// Count is a line a claim's run must print exactly N times ("count 2
// broker: published e-5531": the message was handed over twice).
type Count struct {
	N    int
	Text lang.Text
}

// Chapter returns the chapter number the claim belongs to ("000").
func (c Claim) Chapter() string {
	ch, _, _ := strings.Cut(c.Where, " ")
	return ch
}

// Chapters are the course chapters claims may come from.
var Chapters = []string{"000", "001", "003", "004"}

//go:embed claims.txt
var claimsText string

// claims parses the embedded claims once.
var claims = sync.OnceValues(func() ([]Claim, error) { return ParseClaims("scenarios/claims.txt", claimsText) })

// Claims returns the claims of the four chapters, in the order of the
// chapters. A claims file that does not parse is a bug of the build,
// caught by TestClaimsParse: Claims panics with its file and line.
func Claims() []Claim {
	cs, err := claims()
	if err != nil {
		panic(err)
	}
	return slices.Clone(cs) // a caller may filter its copy in place (labrun claims --chapter)
}

// ErrClaims is wrapped by every error ParseClaims returns.
var ErrClaims = errors.New("claims file")

// ParseClaims reads a claims file (see Claim for the format). An error
// names the file and line and what is valid there.
func ParseClaims(name, text string) ([]Claim, error) {
	var out []Claim
	var cur *Claim
	var errs []error
	finish := func() {
		if cur == nil {
			return
		}
		if err := cur.validate(); err != nil {
			errs = append(errs, fmt.Errorf("%w: %s:%d: %v", ErrClaims, name, cur.Line, err))
		}
		out = append(out, *cur)
		cur = nil
	}
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			if line == "" {
				finish()
			}
			continue
		}
		key, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		if key == "claim" {
			finish()
			cur = &Claim{Where: rest, Line: i + 1}
			continue
		}
		if cur == nil {
			errs = append(errs, fmt.Errorf("%w: %s:%d: %q before the first \"claim\" line", ErrClaims, name, i+1, key))
			continue
		}
		if err := cur.set(key, rest); err != nil {
			errs = append(errs, fmt.Errorf("%w: %s:%d: %v", ErrClaims, name, i+1, err))
		}
	}
	finish()
	if len(out) == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%w: %s: no claim", ErrClaims, name))
	}
	return out, errors.Join(errs...)
}

// set reads one line of a claim.
func (c *Claim) set(key, rest string) error {
	switch key {
	case "en":
		c.Text.EN = rest
	case "de":
		c.Text.DE = rest
	case "run":
		c.Run = strings.Fields(rest)
	case "want":
		c.Want = append(c.Want, wantText(rest))
	case "want-de":
		if len(c.Want) == 0 {
			return fmt.Errorf("want-de %q before a want line: it is the German of the want line before it", rest)
		}
		c.Want[len(c.Want)-1].DE = rest
	case "count":
		n, text, _ := strings.Cut(rest, " ")
		k, err := strconv.Atoi(n)
		if err != nil || k < 0 || strings.TrimSpace(text) == "" {
			return fmt.Errorf("count %q: want \"count N TEXT\", e.g. \"count 2 broker: published e-5531\"", rest)
		}
		c.Counts = append(c.Counts, Count{N: k, Text: lang.Plain(strings.TrimSpace(text))})
	case "count-de":
		if len(c.Counts) == 0 {
			return fmt.Errorf("count-de %q before a count line: it is the German of the count line before it", rest)
		}
		c.Counts[len(c.Counts)-1].Text.DE = rest
	case "exit":
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 || n > 2 {
			return fmt.Errorf("exit %q: want 0, 1 or 2 (labrun's exit codes)", rest)
		}
		c.Exit = n
	case "shows":
		l, text, _ := strings.Cut(rest, " ")
		switch l {
		case "en":
			c.Shows.EN = strings.TrimSpace(text)
		case "de":
			c.Shows.DE = strings.TrimSpace(text)
		default:
			return fmt.Errorf("shows %q: want \"shows en TEXT\" or \"shows de TEXT\"", l)
		}
	case "disagrees":
		c.Disagrees = true
	default:
		return fmt.Errorf("unknown line %q (valid: claim, en, de, run, want, want-de, count, count-de, exit, shows en, shows de, disagrees, # comment)", key)
	}
	return nil
}

// validate says what a claim lacks.
func (c Claim) validate() error {
	var missing []string
	chapter := c.Chapter()
	known := false
	for _, ch := range Chapters {
		known = known || ch == chapter
	}
	switch {
	case !known:
		return fmt.Errorf("claim %q: want a chapter first (%s), then the section", c.Where, strings.Join(Chapters, ", "))
	case !strings.Contains(c.Where, " "):
		return fmt.Errorf("claim %q: want the section after the chapter, e.g. \"000 §5\"", c.Where)
	}
	if c.Text.EN == "" {
		missing = append(missing, "en")
	}
	if c.Text.DE == "" {
		missing = append(missing, "de")
	}
	if len(c.Run) == 0 {
		missing = append(missing, "run")
	}
	if len(c.Want) == 0 && len(c.Counts) == 0 {
		missing = append(missing, "want (or count)")
	}
	if (c.Shows.EN == "") != (c.Shows.DE == "") {
		missing = append(missing, "shows in both languages")
	}
	if c.Disagrees && c.Shows.EN == "" {
		missing = append(missing, "shows (a claim the lab disagrees with says which is right and why)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("claim %q lacks %s", c.Where, strings.Join(missing, ", "))
	}
	if len(c.Run) > 0 && (c.Run[0] == "claims" || c.Run[0] == "help") {
		return fmt.Errorf("claim %q: run %q: a claim's run is a run of the lab, not labrun %s", c.Where, strings.Join(c.Run, " "), c.Run[0])
	}
	return nil
}

// OutcomeLine is the line that ends a scenario's run: its outcome and
// what its variant declares, in both languages (labrun scenario prints
// it; a claim's want of it has its German from it).
var OutcomeLine = lang.Text{EN: "Outcome: %s (expected %s)", DE: "Ergebnis: %s (erwartet %s)"}

// wantText is a want line in both languages: an outcome's line as
// OutcomeLine writes it, any other the same in both until want-de says
// its German.
func wantText(en string) lang.Text {
	var got, want string
	if n, err := fmt.Sscanf(en, "Outcome: %s (expected %s", &got, &want); err == nil && n == 2 && strings.HasSuffix(want, ")") {
		if t := lang.Textf(OutcomeLine, got, strings.TrimSuffix(want, ")")); t.EN == en {
			return t
		}
	}
	return lang.Plain(en)
}
