// Command labrun-real runs the lab's crash matrix on real parts: the order
// service, relays and billing as processes over SQLite, killed by SIGKILL at
// every crash point the simulator has, frozen by SIGSTOP past their lease
// at the fault rows that stall them, judged by the core's checker, each
// cell beside the simulator's verdict. With --postgres the order database
// is on a throwaway PostgreSQL server it starts (Debian's postgresql
// package), the relays claim with FOR UPDATE SKIP LOCKED, and the rows and
// variants only PostgreSQL shows run too (slow-commit, cdc,
// claim-without-lock, offset-by-horizon).
//
//	labrun-real matrix [--postgres] [--variant V]... [--point P]... [--relays 2|3] [--full] [--races N]
//	                   [--shard I/N] [--workers N] [--format table|json]
//	labrun-real merge FILE...
//	labrun-real run --variant V --point P[@K] [--relays N] [--seed S] [--postgres]
//	labrun-real bench [--orders N]
//	labrun-real verify --relay 'CMD …' [--round R]... [--seed N]
//	labrun-real help [COMMAND]        what a command does and each of its flags (or COMMAND -h)
//
// Run it inside the real module: go run ./cmd/labrun-real matrix. It exits
// 1 when a cell differs from what the real parts must give, 2 on bad input.
// An interrupt (Ctrl-C, SIGTERM) stops its processes and its server and
// removes its temporary directories (package cleanup).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"outboxlab/real/cleanup"
	"outboxlab/real/sqlitelab"
)

func main() {
	sqlitelab.Child() // a child process of a run does its part and exits here
	cleanup.MustStart()
	code := run(os.Args[1:], os.Stdout, untilInterrupted{os.Stderr})
	if cleanup.Stopping() {
		select {} // the signal handler exits, with 128 + the signal's number
	}
	os.Exit(code)
}

// untilInterrupted writes to w until a signal interrupts the process:
// then what fails fails because the signal handler stops it (a server's
// initdb killed, a relay gone), and no failed cell or round is reported;
// the handler says what it stopped.
type untilInterrupted struct{ w io.Writer }

func (u untilInterrupted) Write(p []byte) (int, error) {
	if cleanup.Stopping() {
		return len(p), nil
	}
	return u.w.Write(p)
}

const usage = `usage:
  labrun-real matrix [--postgres] [--variant V]... [--point P]... [--relays 2|3] [--full] [--races N]
                     [--shard I/N] [--workers N] [--format table|json]
      every crash point and stall of the variants on real parts, beside the simulator's verdicts;
      --postgres: the order database on a PostgreSQL server of its own; --full: every occurrence
      of every point, and each race cell ten times (default: the runs that decide each cell)
  labrun-real merge FILE...
      the JSON of matrix --shard runs, merged into the unsharded matrix's JSON
  labrun-real run --variant V --point P[@K] [--relays N] [--seed S] [--postgres]
      one run on real parts: its timeline and verdict, and the simulator's for the same run
  labrun-real bench [--orders N]
      commits per second of the service, and orders per second end to end
` + verifyUsage

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

func run(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprintln(stderr, usage)
		return 2
	case isHelp(args[0]) || args[0] == "help" && len(args) == 1:
		printUsage(stdout)
		return 0
	case args[0] == "help":
		// labrun-real help COMMAND is labrun-real COMMAND -h.
		return run([]string{args[1], "-h"}, stdout, stderr)
	case args[0] == "merge" && len(args) > 1 && isHelp(args[1]):
		commandHelp(stdout, "merge", nil)
		return 0
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "labrun-real:", err)
		return 1
	}
	if args[0] == "verify" {
		return runVerify(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("labrun-real "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = quiet
	switch args[0] {
	case "matrix":
		return matrixCommand(fs, args[1:], exe, stdout, stderr)
	case "merge":
		return mergeCommand(args[1:], stdout, stderr)
	case "run":
		return runCommand(fs, args[1:], exe, stdout, stderr)
	case "bench":
		orders := fs.Int("orders", 1000, "orders to place (>= 1)")
		if err := fs.Parse(args[1:]); err != nil {
			return parseExit(err, stdout, "bench", fs)
		}
		if msg := badInput(fs, "--orders", *orders); msg != "" {
			fmt.Fprintf(stderr, "labrun-real bench: %s\n%s\n", msg, usage)
			return 2
		}
		t, err := sqlitelab.Measure(*orders, exe, nil)
		if err != nil {
			fmt.Fprintln(stderr, "labrun-real bench:", err)
			return 1
		}
		fmt.Fprintf(stdout, "%d orders on SQLite (WAL, synchronous=OFF)\n", t.Orders)
		fmt.Fprintf(stdout, "  service alone:  %d commits (order + outbox row) in %s: %.0f commits/s\n",
			t.Commits, t.CommitsTime.Round(time.Millisecond), float64(t.Commits)/t.CommitsTime.Seconds())
		fmt.Fprintf(stdout, "  end to end:     placed, relayed, billed and acknowledged in %s: %.0f orders/s (%s)\n",
			t.EndToEnd.Round(time.Millisecond), float64(t.Orders)/t.EndToEnd.Seconds(), t.Outcome)
		return 0
	}
	fmt.Fprintf(stderr, "labrun-real: unknown command %q (valid: matrix, merge, run, bench, verify, help)\n%s\n", args[0], usage)
	return 2
}

// badInput names what is wrong with the arguments left over and the one
// count flag, or returns "".
func badInput(fs *flag.FlagSet, name string, n int) string {
	switch {
	case fs.NArg() > 0:
		return fmt.Sprintf("unexpected argument %q", fs.Arg(0))
	case n < 1:
		return fmt.Sprintf("%s %d: want a number >= 1", name, n)
	}
	return ""
}
