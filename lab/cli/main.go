// Package cli is labrun, the lab's command line, as a library: cmd/labrun is
// one line that runs it, and a course builds its own labrun with its
// learners' variants the same way (see Lab and the example). It prints the
// summary and the crash matrix, lists what the lab contains, plays back one
// run as a timeline, explores random schedules and computes backlogs.
//
//	labrun [summary]                one line per variant
//	labrun matrix [--variant V]... [--depth quick|course|full] [--format table|markdown|json|html] [--wide]
//	              [--max-attempts N] [--backoff-cap D] [--pause-cap D] [--retention D] [--batch N]
//	labrun grade --variant V [--depth quick|course|full] [--format text|json]
//	labrun list [--format text|json]
//	labrun scenario NAME|--file F [--variant V] [--seed N] [--relays N] [--poll] [--format text|json|mermaid|html|metrics]
//	                [--alert D] [--max-attempts N] [--backoff-cap D] [--pause-cap D] [--retention D] [--batch N]
//	labrun explore --variant V [--runs N] [--seed N] [--shard I/N] [--format text|json|html]
//	labrun explore merge FILE... [--format json|text|html]
//	labrun backlog --rate R --outage D --relay P [--broker B] [--consumer C] [--simulate] [--format text|json]
//	labrun claims [--chapter C] [--check] [--file F] [--format text|markdown|json]
//	labrun help [COMMAND]           what a command and each of its flags does
//
// Every command takes --lang en|de.
//
// Exit codes: 0 when everything matches what the variants declare, 1 when a
// cell disagrees, 2 on bad usage. Only this package prints, writes files
// or exits.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/variant"
)

// Lab is a labrun: the command that runs it, for the replay commands it
// prints, and the variants it grades beyond the lab's own.
type Lab struct {
	// Command runs this labrun, e.g. "go run ./cmd/labrun"; every replay
	// command printed starts with it.
	Command string
	// Variants are graded, listed and played next to the lab's own, by
	// every command.
	Variants []variant.Variant
}

// Main runs the lab on the process's arguments and exits with its code;
// learner-facing text is German when --lang de says so or, without the
// flag, LC_ALL or LANG (lang.Detect).
func (l Lab) Main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(collectorPercent)
	}
	def, _ := lang.Detect("", os.Getenv) // without a flag, never an error
	os.Exit(l.runIn(def, os.Args[1:], os.Stdout, os.Stderr))
}

// collectorPercent is the collector's GOGC for a labrun process (unless
// GOGC says otherwise). A grading makes thousands of small worlds, each
// garbage a moment later, over a live heap of a few megabytes: at Go's
// default of 100 the collector ran every few runs and took about a third
// of labrun's CPU; at 400 labrun spends about a quarter less CPU and its
// peak memory goes from about 30 to 60 MB (BENCHMARKS.md).
const collectorPercent = 400

// Run runs the lab on args and returns the exit code; its output is
// English unless args say --lang de.
func (l Lab) Run(args []string, stdout, stderr io.Writer) int {
	return l.runIn(lang.English, args, stdout, stderr)
}

// runIn is Run with def the language when args do not name one.
func (l Lab) runIn(def lang.Lang, args []string, stdout, stderr io.Writer) int {
	if err := scenarios.Register(l.Variants...); err != nil {
		fmt.Fprintf(stderr, "labrun: %v\n", err)
		return exitUsage
	}
	command := l.Command
	if command == "" {
		command = "labrun"
	}
	program.Store(&command)
	return runWith(def, args, stdout, stderr)
}

// program is the command that runs this labrun (Lab.Command), set by
// Lab.Run; labs that run at once (the report's tests) all set it.
var program atomic.Pointer[string]

// programName is the command that runs this labrun, as replay lines name
// it.
func programName() string {
	if p := program.Load(); p != nil {
		return *p
	}
	return "go run ./cmd/labrun"
}

// Exit codes.
const (
	exitOK       = 0
	exitMismatch = 1
	exitUsage    = 2
)

// usageError is bad input: exit 2 with one line on stderr, in the
// output's language when it has a text.
type usageError struct {
	msg  string
	text lang.Text
}

func (e usageError) Error() string { return e.in(lang.English) }

// in returns the message in l.
func (e usageError) in(l lang.Lang) string {
	if e.text.EN != "" {
		return e.text.In(l)
	}
	return e.msg
}

// usagef is a usage error in both languages, format's arguments in both.
func usagef(format lang.Text, args ...any) error {
	return usageError{text: lang.Textf(format, args...)}
}

// usageFrom is err as a usage error, in both languages where err has a
// lang.Error.
func usageFrom(err error) error {
	return usageError{text: lang.Text{EN: lang.Message(err, lang.English), DE: lang.Message(err, lang.German)}}
}

// usageText is a usage error in both languages.
func usageText(t lang.Text) error { return usageError{text: t} }

// wholeNumber parses a flag's whole number >= lowest, and says "too large"
// when it is one but does not fit.
func wholeNumber(flagName, text string, lowest uint64) (uint64, error) {
	n, err := strconv.ParseUint(text, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, usagef(lang.Text{EN: "%s %q is too large (at most %d)", DE: "%s %q ist zu groß (höchstens %d)"}, flagName, text, uint64(math.MaxUint64))
	case err != nil || n < lowest:
		return 0, usagef(lang.Text{EN: "%s %q is not a whole number >= %d", DE: "%s %q ist keine ganze Zahl >= %d"}, flagName, text, lowest)
	}
	return n, nil
}

// errMismatch is returned by a command whose output disagrees with a
// declaration; the output itself says where.
var errMismatch = errors.New("mismatch")

// subcommand is one of labrun's commands.
type subcommand struct {
	name string
	run  func(args []string, stdout io.Writer) error
}

// commands are labrun's commands; each declares its flags and says what
// it does (see newFlags), and the help is made from that. A function, not
// a variable: `labrun claims --check` runs the other commands.
func commands() []subcommand {
	return []subcommand{
		{"summary", runSummary},
		{"matrix", runMatrix},
		{"grade", runGrade},
		{"list", runList},
		{"scenario", runScenario},
		{"explore", runExplore},
		{"backlog", runBacklog},
		{"claims", runClaims},
	}
}

// findCommand returns the command called name.
func findCommand(name string) (subcommand, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return subcommand{}, false
}

func commandNames() string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// run is labrun in English unless args say --lang de.
func run(args []string, stdout, stderr io.Writer) int {
	return runWith(lang.English, args, stdout, stderr)
}

// runWith runs labrun with def the language when args do not name one.
func runWith(def lang.Lang, args []string, stdout, stderr io.Writer) int {
	name := "summary"
	switch {
	case len(args) > 0 && args[0] == "help":
		return helpFor(def, args[1:], stdout, stderr)
	case len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		name, args = args[0], args[1:]
	case slices.ContainsFunc(args, isHelp):
		// `labrun -h`, `labrun --lang de --help`: every command, not
		// the summary's flags.
		out := &errWriter{w: stdout, lang: def}
		if _, err := parse(newFlags("help", "", lang.Text{}, out), slices.DeleteFunc(slices.Clone(args), isHelp)); err != nil {
			return reportUsage(stderr, "labrun", err, out)
		}
		printUsage(out)
		return exitOK
	}
	c, ok := findCommand(name)
	if !ok {
		fmt.Fprintf(stderr, "labrun: unknown command %q (valid: %s; `labrun help` says what each does)\n", name, commandNames())
		return exitUsage
	}
	out := &errWriter{w: stdout, lang: def}
	err := c.run(args, out)
	var ue usageError
	switch {
	case out.err != nil:
		fmt.Fprintf(stderr, "labrun %s: writing the output: %v\n", name, out.err)
		return exitUsage
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		return reportUsage(stderr, "labrun "+name, err, out)
	case errors.Is(err, errMismatch):
		return exitMismatch
	default:
		fmt.Fprintf(stderr, "labrun %s: %v\n", name, err)
		return exitMismatch
	}
}

// reportUsage prints a usage error in the output's language and returns
// exit code 2.
func reportUsage(stderr io.Writer, who string, err error, out *errWriter) int {
	var ue usageError
	if !errors.As(err, &ue) {
		ue = usageFrom(err).(usageError)
	}
	fmt.Fprintf(stderr, "%s: %s\n", who, ue.in(langOf(out)))
	return exitUsage
}

// errWriter keeps the first error of writing the output, so that a
// command that wrote into a closed pipe or a full disk says so and exits 2
// instead of reporting success.
type errWriter struct {
	w    io.Writer
	err  error
	lang lang.Lang
}

func (e *errWriter) language() lang.Lang { return e.lang }

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }
