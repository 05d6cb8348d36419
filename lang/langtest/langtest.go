package langtest

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// strong are English words a German sentence never uses, even once: one
// of them makes a line English.
var strong = map[string]bool{
	"the": true, "and": true, "of": true, "is": true, "are": true, "with": true,
	"without": true, "after": true, "before": true, "never": true, "every": true,
	"which": true, "that": true, "this": true, "its": true, "not": true, "but": true,
	"or": true, "at": true, "to": true, "from": true, "by": true, "for": true,
	"when": true, "has": true, "have": true, "been": true, "each": true, "it": true,
	"applied": true, "times": true, "expected": true, "should": true,
	"would": true, "could": true, "one": true, "usage": true, "legend": true,
	"points": true, "next": true, "findings": true, "violations": true,
	"outcome": true, "timeline": true, "shows": true, "changes": true,
	"committed": true, "passed": true, "graded": true, "runs": true, "more": true,
	"where": true, "what": true, "how": true, "else": true,
	"billed": true, "holds": true, "waiting": true, "default": true, "than": true,
}

// labels are English labels whose word a German sentence may borrow (the
// chapters speak of a Replay), but not as a label.
var labels = map[string]bool{"replay:": true, "Replay:": true, "failed:": true}

var (
	// commands are labrun's commands as it prints them: the program and
	// then its lowercase words and flags, one space apart.
	command  = regexp.MustCompile(`(?:go run \S+|go test \S+|\blabrun(?:-real)?)(?: (?:-{1,2}\S+|[a-z0-9][a-z0-9./@_=+:,|-]*|[A-Z]+))*`)
	backtick = regexp.MustCompile("`[^`]*`")
	quote    = regexp.MustCompile(`"[^"]*"|„[^“”]*[“”]`)
	tag      = regexp.MustCompile(`<[^>]*>`)
)

// English returns the lines of out that have English prose, each with the
// English words found in it, for a test's failure message.
func English(out string) []string {
	out = blankQuotes(out)
	var found []string
	for _, line := range strings.Split(out, "\n") {
		if words := englishWords(line); len(words) > 0 {
			found = append(found, strings.TrimSpace(line)+"   ["+strings.Join(words, " ")+"]")
		}
	}
	return found
}

// blankQuotes blanks out every quote in out, whose words are someone
// else's: a quote may run over a wrapped line, so it is blanked in the
// whole text, its line breaks kept.
func blankQuotes(out string) string {
	return quote.ReplaceAllStringFunc(out, func(q string) string {
		return strings.Map(func(r rune) rune {
			if r == '\n' {
				return r
			}
			return ' '
		}, q)
	})
}

// goNumber is a number as Go prints it and German does not: a duration of
// two units or with a decimal point (33m20s, 2m9.8s, 1.5s), or a whole
// number of five digits or more without the dots that group its
// thousands (600000; ids such as 000000000006 start with a zero).
var goNumber = regexp.MustCompile(`^(\d+h\d+m\d+(\.\d+)?s|\d+m\d+(\.\d+)?s|\d+\.\d+(s|ms)|[1-9]\d{4,})$`)

// money is an amount of money written as English writes it: a decimal
// point before the cents, and a currency.
var money = regexp.MustCompile(`\b\d+\.\d\d [A-Z]{3}\b`)

// Numbers returns the lines of out whose prose writes a number or a
// duration as Go does (see goNumber), or money with a decimal point, with
// the numbers found.
func Numbers(out string) []string {
	var found []string
	for _, line := range strings.Split(blankQuotes(out), "\n") {
		prose := command.ReplaceAllString(backtick.ReplaceAllString(line, " "), " ")
		numbers := money.FindAllString(prose, -1)
		for _, w := range strings.FieldsFunc(prose, func(r rune) bool {
			return unicode.IsSpace(r) || strings.ContainsRune(`,;()[]{}"'„“”!?…=|*<>/:`, r)
		}) {
			if goNumber.MatchString(strings.TrimRight(w, ".")) {
				numbers = append(numbers, w)
			}
		}
		if len(numbers) > 0 {
			found = append(found, strings.TrimSpace(line)+"   ["+strings.Join(numbers, " ")+"]")
		}
	}
	return found
}

// HTML is English for an HTML page: its tags, scripts and styles left
// out.
func HTML(page string) []string {
	for _, block := range []string{"script", "style"} {
		re := regexp.MustCompile(`(?s)<` + block + `[^>]*>.*?</` + block + `>`)
		page = re.ReplaceAllString(page, "\n")
	}
	page = strings.NewReplacer("&#39;", "'", "&quot;", `"`, "&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(tag.ReplaceAllString(page, "\n"))
	return English(page)
}

// englishWords returns the English words of line's prose.
func englishWords(line string) []string {
	line = backtick.ReplaceAllString(line, " ")
	line = command.ReplaceAllString(line, " ")
	var words []string
	for _, w := range strings.FieldsFunc(line, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(`,;()[]{}"'„“”!?…=|*<>`, r)
	}) {
		if labels[w] {
			words = append(words, w)
			continue
		}
		w = strings.TrimRight(w, ".:")
		if w == "" || strings.ContainsAny(w, "./-_:@#0123456789%+$") || w == strings.ToUpper(w) {
			continue
		}
		if lw := strings.ToLower(w); strong[lw] && !slices.Contains(words, lw) {
			words = append(words, lw)
		}
	}
	return words
}

// scheduleLine is a line of a schedule in story-file syntax (explore's
// shrunk counterexample: "at 0s: place o-3 27.32 CHF", "fault ...",
// "crash ...", "operator: ..."): a story file's words, which are the same in both
// languages.
var scheduleLine = regexp.MustCompile(`^  (at \S+: |fault |crash |operator: |(seed|relays|services) \d+$)`)

// WithoutSchedule leaves out of out the lines of a schedule in
// story-file syntax. A timeline's lines stay: the simulator writes them in
// both languages.
func WithoutSchedule(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		if !scheduleLine.MatchString(line) {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}
