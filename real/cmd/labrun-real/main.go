// Command labrun-real runs the lab's crash matrix on real parts: the order
// service, relays and billing as processes over SQLite, killed by SIGKILL at
// the crash points, judged by the core's checker, each cell beside the
// simulator's verdict. With --postgres the order database is on a
// throwaway PostgreSQL server it starts (Debian's postgresql package), and
// the relays claim with FOR UPDATE SKIP LOCKED.
//
//	labrun-real matrix [--postgres] [--variant V]... [--point P]... [--workers N]
//	labrun-real bench [--orders N]
//	labrun-real verify --relay 'CMD …' [--round R]... [--seed N]
//
// Run it inside the real module: go run ./cmd/labrun-real matrix. It exits
// 1 when a cell differs from the simulator, 2 on bad input.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"outboxlab/lab/check"
	"outboxlab/real/cleanup"
	"outboxlab/real/pglab"
	"outboxlab/real/sqlitelab"
	"outboxlab/scenarios"
)

func main() {
	sqlitelab.Child() // a child process of a run does its part and exits here
	cleanup.MustStart()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  labrun-real matrix [--postgres] [--variant V]... [--point P]... [--workers N]
      every crash point of the variants on real parts, beside the simulator's verdicts;
      --postgres: the order database on a PostgreSQL server of its own
  labrun-real bench [--orders N]
      commits per second of the service, and orders per second end to end
` + verifyUsage

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
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
	switch args[0] {
	case "matrix":
		var variants, points list
		fs.Var(&variants, "variant", "a variant (repeatable; default: "+strings.Join(sqlitelab.VariantNames(), ", ")+"; with --postgres also cdc)")
		fs.Var(&points, "point", "a crash point (repeatable; default: every one)")
		workers := fs.Int("workers", 4, "cells run at once (>= 1)")
		postgres := fs.Bool("postgres", false, "the order database on a PostgreSQL server started for the run")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		if msg := badInput(fs, "--workers", *workers); msg != "" {
			fmt.Fprintf(stderr, "labrun-real matrix: %s\n%s\n", msg, usage)
			return 2
		}
		cfg := sqlitelab.MatrixConfig{Variants: variants, Points: points, Program: exe, Workers: *workers}
		if *postgres {
			server, err := pglab.StartServer()
			if err != nil {
				fmt.Fprintln(stderr, "labrun-real matrix:", err)
				return 1
			}
			defer server.Stop()
			for range *workers {
				dsn, err := server.EmptyDatabase(context.Background())
				if err != nil {
					fmt.Fprintln(stderr, "labrun-real matrix:", err)
					return 1
				}
				cfg.Postgres = append(cfg.Postgres, dsn)
			}
		}
		return matrix(stdout, stderr, cfg)
	case "bench":
		orders := fs.Int("orders", 1000, "orders to place (>= 1)")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
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
		fmt.Fprintf(stdout, "%d orders on SQLite (WAL, synchronous=NORMAL)\n", t.Orders)
		fmt.Fprintf(stdout, "  service alone:  %d commits (order + outbox row) in %s: %.0f commits/s\n",
			t.Commits, t.CommitsTime.Round(time.Millisecond), float64(t.Commits)/t.CommitsTime.Seconds())
		fmt.Fprintf(stdout, "  end to end:     placed, relayed, billed and acknowledged in %s: %.0f orders/s (%s)\n",
			t.EndToEnd.Round(time.Millisecond), float64(t.Orders)/t.EndToEnd.Seconds(), t.Outcome)
		return 0
	}
	fmt.Fprintf(stderr, "labrun-real: unknown command %q (valid: matrix, bench, verify)\n%s\n", args[0], usage)
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

func matrix(stdout, stderr io.Writer, cfg sqlitelab.MatrixConfig) int {
	start := time.Now()
	cells, err := sqlitelab.Matrix(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "labrun-real matrix:", err)
		if errors.Is(err, sqlitelab.ErrUnknown) || errors.Is(err, sqlitelab.ErrNotInMatrix) {
			return 2
		}
		return 1
	}
	wall := time.Since(start)
	variants, points := cfg.Variants, cfg.Points
	if len(variants) == 0 {
		variants = sqlitelab.MatrixVariants(len(cfg.Postgres) > 0)
	}
	if len(points) == 0 {
		points = sqlitelab.Points()
	}
	fmt.Fprintf(stdout, "Crash matrix on real parts: %d variant(s) x %d crash points, standard workload (%d commands)\n",
		len(variants), len(points), len(scenarios.Workload()))
	if len(cfg.Postgres) > 0 {
		fmt.Fprintf(stdout, "Orders and outbox on PostgreSQL (relays claim with FOR UPDATE SKIP LOCKED), billing and broker on SQLite,\n")
		fmt.Fprintf(stdout, "one process per service, relay and billing, killed by SIGKILL\n\n")
	} else {
		fmt.Fprintf(stdout, "SQLite files in WAL mode, one process per service, relay and billing, killed by SIGKILL\n\n")
	}
	fmt.Fprintf(stdout, "%-24s", "variant")
	for i := range points {
		fmt.Fprintf(stdout, " %2d", i+1)
	}
	fmt.Fprintln(stdout)
	runs, differ := 0, []sqlitelab.Cell{}
	for vi, v := range variants {
		fmt.Fprintf(stdout, "%-24s", v)
		for pi := range points {
			c := cells[vi*len(points)+pi]
			runs += c.Runs
			mark := " "
			if !c.Agrees() {
				mark = "!"
				differ = append(differ, c)
			}
			fmt.Fprintf(stdout, " %s%s", mark, letter(c.Outcome))
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintln(stdout, "\nPoints:")
	for i, p := range points {
		fmt.Fprintf(stdout, "  %2d %-24s %s\n", i+1, p, scenarios.Descriptions[p])
	}
	fmt.Fprintln(stdout, "\n✓ all invariants hold   - never reached   ! differs from the simulator")
	fmt.Fprintln(stdout, "L LOST  P PHANTOM  D DUPLICATE  O OUT_OF_ORDER  M MISMATCH  U UNSAFE  S STUCK  G GAVE_UP  R STORM")
	fmt.Fprintf(stdout, "\n%d runs on real parts in %s (%d at once).\n", runs, wall.Round(time.Second), cfg.Workers)
	if len(differ) == 0 {
		fmt.Fprintln(stdout, "Every cell equals the simulator's (go run ./cmd/labrun matrix in the core).")
		return 0
	}
	fmt.Fprintf(stdout, "%d cell(s) differ from the simulator:\n\n", len(differ))
	for _, c := range differ {
		fmt.Fprintln(stdout, sqlitelab.Explain(c))
	}
	return 1
}

// letter is the matrix's one-character form of an outcome word, as labrun
// prints it.
func letter(word string) string {
	if word == sqlitelab.NotApplicable {
		return "-"
	}
	o, err := check.ParseOutcome(word)
	if err != nil {
		return "?"
	}
	return map[check.Outcome]string{check.OK: "✓", check.Lost: "L", check.Phantom: "P", check.Duplicate: "D",
		check.OutOfOrder: "O", check.Mismatch: "M", check.Unsafe: "U", check.Stuck: "S", check.GaveUp: "G", check.Storm: "R"}[o]
}
