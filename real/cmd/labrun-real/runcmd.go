package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"outboxlab/real/pglab"
	"outboxlab/real/sqlitelab"
	"outboxlab/variant"
)

// runCommand runs one run on real parts, as a cell's replay names it, and
// prints its timeline and verdict beside the simulator's run of the same
// point.
func runCommand(fs *flag.FlagSet, args []string, exe string, stdout, stderr io.Writer) int {
	name := fs.String("variant", "", "the variant (required)")
	point := fs.String("point", "", "a crash point with its occurrence (relay.after-send@2), or a fault row (stall)")
	relays := fs.Int("relays", 1, "relays (1 to 3; a fault row sets its own)")
	seed := fs.Uint64("seed", 1, "the seed of the run's own choices (message ids, idle pauses)")
	postgres := fs.Bool("postgres", false, "the order database on a PostgreSQL server started for the run")
	if err := fs.Parse(args); err != nil {
		return parseExit(err, stdout, "run", fs)
	}
	if msg := badInput(fs, "--relays", *relays); msg != "" || *name == "" || *point == "" {
		if msg == "" {
			msg = "want --variant and --point"
		}
		fmt.Fprintf(stderr, "labrun-real run: %s\n%s\n", msg, usage)
		return 2
	}
	rc, err := sqlitelab.RunConfig(*name, *point, *relays, *postgres)
	if err != nil {
		fmt.Fprintln(stderr, "labrun-real run:", err)
		return 2
	}
	rc.Program, rc.Seed = exe, *seed
	if *postgres {
		server, err := pglab.StartServer()
		if err != nil {
			fmt.Fprintln(stderr, "labrun-real run:", err)
			return 1
		}
		defer server.Stop()
		if rc.Postgres, err = server.EmptyDatabase(context.Background()); err != nil {
			fmt.Fprintln(stderr, "labrun-real run:", err)
			return 1
		}
	}
	res, err := sqlitelab.Run(rc)
	if err != nil {
		fmt.Fprintln(stderr, "labrun-real run:", err)
		if errors.Is(err, sqlitelab.ErrUnknown) || errors.Is(err, sqlitelab.ErrNotInMatrix) {
			return 2
		}
		return 1
	}
	fmt.Fprintf(stdout, "%s at %s, %d relay(s), seed %d, on real parts:\n", rc.Variant, *point, rc.Relays, rc.Seed)
	for _, l := range res.Timeline {
		fmt.Fprintf(stdout, "  %s\n", l)
	}
	if rc.Crash != "" && !res.Fired {
		fmt.Fprintf(stdout, "the crash point was reached fewer than %d times: %s\n", rc.Occurrence, variant.NotApplicable)
	}
	fmt.Fprintf(stdout, "verdict: %s\n", res.Outcome)
	for _, v := range res.Violations {
		fmt.Fprintf(stdout, "  %s\n", v)
	}
	lines, err := sqlitelab.SimTimeline(rc)
	if err != nil {
		fmt.Fprintln(stderr, "labrun-real run: the simulator:", err)
		return 1
	}
	fmt.Fprintln(stdout, "\nthe same run in the simulator:")
	for _, l := range lines {
		fmt.Fprintf(stdout, "  %s\n", l)
	}
	fmt.Fprintln(stdout, "replay: "+sqlitelab.Replay(rc))
	return 0
}
