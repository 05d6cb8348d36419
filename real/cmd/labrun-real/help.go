package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"

	"outboxlab/lang"
	"outboxlab/real/verify"
)

// commandDocs say what each command does, for the help: its synopsis and
// a sentence, in the order the usage lists them.
var commandDocs = []struct{ name, synopsis, about string }{
	{"matrix", "labrun-real matrix [--postgres] [--variant V]... [--point P]... [--relays 2|3] [--full] [--races N] [--shard I/N] [--workers N] [--format table|json]",
		"Every crash point and stall of the variants on real parts (processes over SQLite, or PostgreSQL with --postgres), killed by SIGKILL and frozen by SIGSTOP, each cell beside the simulator's verdict."},
	{"merge", "labrun-real merge FILE...",
		"The JSON of matrix --shard runs, merged into the unsharded matrix's JSON."},
	{"run", "labrun-real run --variant V --point P[@K] [--relays N] [--seed S] [--postgres]",
		"One run on real parts, as a cell's replay names it: its timeline and verdict, and the simulator's run of the same point."},
	{"bench", "labrun-real bench [--orders N]",
		"Commits per second of the service, and orders per second end to end, on SQLite."},
	{"verify", "labrun-real verify --relay 'CMD …' | --consumer 'CMD …' [--round R]... [--seed N] [--random N] [--lease D] [--id-header H] [--mapping FILE] [--sent-by status|slot] [--workers N] [--timeline] [--lang en|de] [--fault KIND@N]... [--repeat N]",
		"Grades a relay program in any language (verify/CONTRACT.md) on PostgreSQL and a Kafka-protocol broker: SIGKILL at the broker's moment, SIGSTOP past the lease, outages, publish timeouts, killed database connections; or, with --consumer, a consumer program (verify/CONSUMERS.md) in a consumer group: kills around its effect and its offset commit, records delivered twice, reordered, late or unreadable, a zombie past the session timeout, rebalances; each round in a world of its own, each failure with the command that replays it."},
}

// exitCodes say what labrun-real's exit status means.
const exitCodes = "Exit codes: 0 when every cell equals what the real parts must give (verify: every round passes; help: always), 1 when one differs (verify: a round fails), 2 on bad input (the message names what is wrong)."

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

// printUsage is labrun-real's help: every command with its synopsis and
// what it does, and the exit codes.
func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: labrun-real COMMAND [flags]   (inside the real module: go run ./cmd/labrun-real COMMAND)")
	fmt.Fprintln(w)
	for _, c := range commandDocs {
		fmt.Fprintf(w, "  %-7s %s\n", c.name, wrap(c.about, "          "))
		fmt.Fprintf(w, "          %s\n", wrapSynopsis(c.synopsis, "              "))
	}
	fmt.Fprintf(w, "  %-7s %s\n          labrun-real help [COMMAND]\n\n", "help", "What a command does and each of its flags (the same as labrun-real COMMAND -h).")
	fmt.Fprintln(w, wrap(exitCodes, ""))
}

// commandHelp is the help of one command: its synopsis, what it does,
// every flag with what it means and its default, verify's rounds, and
// the exit codes.
func commandHelp(w io.Writer, name string, fs *flag.FlagSet) {
	for _, c := range commandDocs {
		if c.name == name {
			fmt.Fprintf(w, "usage: %s\n\n%s\n", wrapSynopsis(c.synopsis, "    "), wrap(c.about, ""))
		}
	}
	if fs != nil {
		fmt.Fprintln(w)
		fs.VisitAll(func(f *flag.Flag) {
			value, usage := flag.UnquoteUsage(f)
			if value == "value" { // a repeatable flag: --variant V, --round R
				value = strings.ToUpper(f.Name[:1])
			}
			fmt.Fprintf(w, "  %s\n      %s", strings.TrimSpace("--"+f.Name+" "+value), wrap(usage, "      "))
			if !isZeroDefault(f) {
				fmt.Fprintf(w, " (default %s)", f.DefValue)
			}
			fmt.Fprintln(w)
		})
	}
	if name == "verify" {
		for _, set := range []struct {
			title  string
			rounds []verify.Round
		}{
			{"The rounds of a relay (--round R; random rounds follow them, drawn from --seed):", verify.Rounds(1, 0)},
			{"The rounds of a consumer (--consumer; --round R):", verify.ConsumerRounds(1, 0)},
		} {
			fmt.Fprintln(w, "\n"+set.title)
			column := 0
			for _, r := range set.rounds {
				column = max(column, len(r.Name))
			}
			for _, r := range set.rounds {
				fmt.Fprintf(w, "  %-*s  %s\n", column, r.Name, wrap(r.Text.EN, strings.Repeat(" ", column+4)))
			}
		}
	}
	fmt.Fprintf(w, "\n%s\n", wrap(exitCodes, ""))
}

// isZeroDefault reports whether a flag's default says nothing (false, 0,
// "", an empty list).
func isZeroDefault(f *flag.Flag) bool {
	if f.DefValue == "" || f.DefValue == "false" || f.DefValue == "0" {
		return true
	}
	zero := reflect.New(reflect.TypeOf(f.Value).Elem()).Interface().(flag.Value)
	return f.DefValue == zero.String()
}

// parseExit is the exit code of a flag set's error: 0 after the help it
// asked for, the command's, printed on stdout; 2 for bad input, which the
// flag package named on stderr (its own dump of the flags silenced by
// quiet).
func parseExit(err error, stdout io.Writer, name string, fs *flag.FlagSet) int {
	if errors.Is(err, flag.ErrHelp) {
		commandHelp(stdout, name, fs)
		return 0
	}
	return 2
}

// quiet is a flag set's Usage: the help is parseExit's to print.
func quiet() {}

// synopsisPart is a word of a synopsis, a flag in brackets kept whole.
var synopsisPart = regexp.MustCompile(`\[[^\]]*\](\.\.\.)?|'[^']*'|\S+`)

// wrapSynopsis is wrap for a synopsis: a bracketed flag stays on one line.
func wrapSynopsis(text, indent string) string {
	return strings.TrimPrefix(lang.WrapParts(indent, indent, synopsisPart.FindAllString(text, -1), 100), indent)
}

// wrap breaks text into lines of at most 100 columns, the lines after
// the first starting with indent (the first follows what the caller
// printed before it, as long as indent).
func wrap(text, indent string) string {
	return strings.TrimPrefix(lang.Wrap(indent, indent, text, 100), indent)
}
