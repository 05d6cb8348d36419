// Package cli is labrun, the lab's command line, as a library: cmd/labrun is
// one line that runs it, and a course builds its own labrun with its
// learners' variants the same way (see Lab and the example). It prints the
// summary and the crash matrix, lists what the lab contains, plays back one
// run as a timeline, explores random schedules and computes backlogs.
//
//	labrun                          a summary: one line per variant
//	labrun matrix [--variant V]... [--format table|markdown|json] [--wide]
//	labrun list [--format text|json]
//	labrun scenario NAME|--file F [--variant V] [--seed N] [--relays N] [--format text|json|mermaid]
//	labrun explore --variant V [--runs N] [--seed N] [--format text|json]
//	labrun backlog --rate R --outage D --relay P [--simulate] [--format text|json]
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
	"strconv"
	"strings"
	"sync/atomic"

	"outboxlab/lab/variant"
	"outboxlab/scenarios"
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
// learner-facing text is German when LANG or LC_ALL says de.
func (l Lab) Main() {
	germanByDefault = germanEnv()
	os.Exit(l.Run(os.Args[1:], os.Stdout, os.Stderr))
}

// Run runs the lab on args and returns the exit code.
func (l Lab) Run(args []string, stdout, stderr io.Writer) int {
	if err := scenarios.Register(l.Variants...); err != nil {
		fmt.Fprintf(stderr, "labrun: %v\n", err)
		return exitUsage
	}
	command := l.Command
	if command == "" {
		command = "labrun"
	}
	program.Store(&command)
	return run(args, stdout, stderr)
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

// usageError is bad input: exit 2 with one line on stderr.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// wholeNumber parses a flag's whole number >= lowest, and says "too large"
// when it is one but does not fit.
func wholeNumber(flagName, text string, lowest uint64) (uint64, error) {
	n, err := strconv.ParseUint(text, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, usagef("%s %q is too large (at most %d)", flagName, text, uint64(math.MaxUint64))
	case err != nil || n < lowest:
		return 0, usagef("%s %q is not a whole number >= %d", flagName, text, lowest)
	}
	return n, nil
}

// errMismatch is returned by a command whose output disagrees with a
// declaration; the output itself says where.
var errMismatch = errors.New("mismatch")

var commands = []struct {
	name, synopsis string
	run            func(args []string, stdout io.Writer) error
}{
	{"summary", "summary   (the same as labrun without a command)", runSummary},
	{"matrix", "matrix [--variant V]... [--format table|markdown|json] [--wide]", runMatrix},
	{"list", "list [--format text|json]", runList},
	{"scenario", "scenario NAME|--file F [--variant V] [--seed N] [--relays N] [--format text|json|mermaid]", runScenario},
	{"explore", "explore --variant V [--runs N] [--seed N] [--format text|json]", runExplore},
	{"backlog", "backlog --rate R --outage D --relay P [--simulate] [--format text|json]", runBacklog},
}

func commandNames() string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

func run(args []string, stdout, stderr io.Writer) int {
	name := "summary"
	switch {
	case len(args) > 0 && isHelp(args[0]):
		printUsage(stdout) // `labrun -h` lists the commands; `labrun matrix -h` its flags
		return exitOK
	case len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		name, args = args[0], args[1:]
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		out := &errWriter{w: stdout, de: germanByDefault}
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
			fmt.Fprintf(stderr, "labrun %s: %s\n", name, ue.msg)
			return exitUsage
		case errors.Is(err, errMismatch):
			return exitMismatch
		default:
			fmt.Fprintf(stderr, "labrun %s: %v\n", name, err)
			return exitMismatch
		}
	}
	if name == "help" {
		printUsage(stdout)
		return exitOK
	}
	fmt.Fprintf(stderr, "labrun: unknown command %q (valid: %s)\n", name, commandNames())
	return exitUsage
}

// errWriter keeps the first error of writing the output, so that a
// command that wrote into a closed pipe or a full disk says so and exits 2
// instead of reporting success.
type errWriter struct {
	w   io.Writer
	err error
	de  bool // German (see tr)
}

func (e *errWriter) german() bool { return e.de }

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: labrun [command] [flags]   (no command: summary)")
	for _, c := range commands {
		fmt.Fprintf(w, "  labrun %s\n", c.synopsis)
	}
	fmt.Fprintln(w, "Run `labrun COMMAND -h` for a command's flags.")
}

// flags is a command's flag set: errors become usage errors instead of an
// exit, and -h prints the synopsis and the flags to stdout.
type flags struct {
	*flag.FlagSet
	synopsis string
	stdout   io.Writer
}

func newFlags(name, synopsis string, stdout io.Writer) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // errors are reported once, by run
	out, _ := stdout.(*errWriter)
	fs.Var(langFlag{out}, "lang", "the language of the output: en or de (default: de when LANG or LC_ALL starts with de)")
	return &flags{FlagSet: fs, synopsis: synopsis, stdout: stdout}
}

func (f *flags) help() {
	fmt.Fprintf(f.stdout, "usage: labrun %s\n", f.synopsis)
	f.SetOutput(f.stdout)
	f.PrintDefaults()
	f.SetOutput(io.Discard)
}

// parse parses flags, accepting positional arguments before and after them,
// and returns the positional arguments.
func parse(fs *flags, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.help()
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// formatFlag adds --format with the given choices; the first is the default.
func (f *flags) formatFlag(choices ...string) *choice {
	c := &choice{value: choices[0], choices: choices}
	f.Var(c, "format", "output format: "+strings.Join(choices, ", "))
	return c
}

// parseFlagsOnly parses a command that takes no positional argument.
func parseFlagsOnly(fs *flags, args []string) error {
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q (%s takes only flags)", rest[0], fs.Name())
	}
	return nil
}

// choice is a flag whose value must be one of a fixed set.
type choice struct {
	value   string
	choices []string
}

func (c *choice) String() string { return c.value }

func (c *choice) Set(s string) error {
	for _, v := range c.choices {
		if v == s {
			c.value = s
			return nil
		}
	}
	return fmt.Errorf("%q is not one of %s", s, strings.Join(c.choices, ", "))
}

// list is a repeatable flag.
type list []string

func (l *list) String() string { return strings.Join(*l, ",") }

func (l *list) Set(s string) error {
	*l = append(*l, s)
	return nil
}
