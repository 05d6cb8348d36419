package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"outboxlab/lab/lang"
	"outboxlab/real/pglab"
	"outboxlab/real/verify"
)

const verifyUsage = `  labrun-real verify --relay 'CMD …' [--round R]... [--seed N] [--random N] [--lease D]
                     [--id-header H] [--mapping FILE] [--workers N] [--timeline] [--lang en|de]
      grades a relay program in any language (verify/CONTRACT.md) on PostgreSQL and a
      Kafka-protocol broker: SIGKILL at the broker's moment, SIGSTOP past the lease,
      outages, publish timeouts, killed database connections`

// runVerify is "labrun-real verify": every round (or those named), each
// in a world of its own, with the replay command of each failure.
func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("labrun-real verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var rounds list
	relay := fs.String("relay", "", "the command that starts one relay instance (run by /bin/sh -c)")
	fs.Var(&rounds, "round", "a round (repeatable; default: every one)")
	seed := fs.Uint64("seed", 1, "draws the random rounds and the workloads")
	random := fs.Int("random", 2, "random rounds after the standard ones (>= 0)")
	lease := fs.Duration("lease", verify.DefaultLease, "the lease handed to the relay (OUTBOX_LEASE_MS), >= 200ms")
	header := fs.String("id-header", verify.DefaultIDHeader, "the record header that carries the event id")
	mapping := fs.String("mapping", "", "a SQL file run after the contract's schema: your names over the table")
	timeline := fs.Bool("timeline", false, "print each round's whole timeline")
	workers := fs.Int("workers", 1, "rounds played at once, each in a world of its own (>= 1)")
	langFlag := fs.String("lang", "", "en or de (default: from LC_ALL or LANG)")
	fs.Usage = quiet
	if err := fs.Parse(args); err != nil {
		return parseExit(err, stdout, "verify", fs)
	}
	l, err := lang.Detect(*langFlag, os.Getenv)
	bad := func(msg string) int {
		fmt.Fprintf(stderr, "labrun-real verify: %s\nusage:\n%s\n", msg, verifyUsage)
		return 2
	}
	switch {
	case err != nil:
		return bad("--lang " + err.Error())
	case fs.NArg() > 0:
		return bad(fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	case strings.TrimSpace(*relay) == "":
		return bad("--relay is missing: the command that starts your relay, e.g. --relay 'java -jar relay.jar'")
	case *workers < 1:
		return bad(fmt.Sprintf("--workers %d: want a number >= 1", *workers))
	case *random < 0:
		return bad(fmt.Sprintf("--random %d: want a number >= 0", *random))
	case *lease < 200*time.Millisecond:
		return bad(fmt.Sprintf("--lease %s: want at least 200ms", *lease))
	case *header == "":
		return bad("--id-header is empty: want a header name, e.g. event-id")
	}
	selected, err := verify.Select(verify.Rounds(*seed, *random), rounds)
	if err != nil {
		return bad("--round: " + err.Error())
	}
	cfg := verify.Config{Relay: *relay, Seed: *seed, Lease: *lease, IDHeader: *header, Pace: 30 * time.Millisecond, Quiesce: 15 * time.Second}
	if *mapping != "" {
		sql, err := os.ReadFile(*mapping)
		if err != nil {
			return bad("--mapping: " + err.Error())
		}
		cfg.Mapping = string(sql)
	}
	replay := func(r verify.Round) string { return replayCommand(args, r) }
	return verifyRounds(cfg, selected, *workers, l, *timeline, replay, stdout, stderr)
}

type played struct {
	res verify.Result
	err error
}

// verifyRounds plays the rounds, workers at once, and prints each in
// order as soon as it and those before it are done.
func verifyRounds(cfg verify.Config, rounds []verify.Round, workers int, l lang.Lang, all bool, replay func(verify.Round) string, stdout, stderr io.Writer) int {
	server, err := pglab.StartServer()
	if err != nil {
		fmt.Fprintln(stderr, "labrun-real verify:", err)
		return 1
	}
	defer server.Stop()
	cfg.Server = server
	// An interrupt ends the rounds in progress, so that no relay, each in
	// a process group of its own that the terminal's SIGINT does not
	// reach, outlives the run, and the server stops.
	interrupt, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	cfg.Stop = interrupt.Done()
	start := time.Now()
	done := make([]chan played, len(rounds))
	slots := make(chan struct{}, workers)
	for i, r := range rounds {
		done[i] = make(chan played, 1)
		go func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			res, err := verify.RunRound(cfg, r)
			done[i] <- played{res, err}
		}()
	}
	var results []verify.Result
	code := 0
	for i, r := range rounds {
		p := <-done[i]
		res, err := p.res, p.err
		if err != nil {
			if errors.Is(err, verify.ErrInterrupted) {
				err = fmt.Errorf("%w: its relays were killed", err)
			}
			fmt.Fprintf(stderr, "labrun-real verify: round %s: %v\n", r.Name, err)
			for _, rest := range done[i+1:] {
				<-rest // their worlds end before the server does
			}
			if errors.Is(err, verify.ErrCannotRun) || errors.Is(err, verify.ErrMapping) {
				return 2
			}
			return 1
		}
		verify.WriteRound(stdout, res, l, replay(r), all)
		if !res.OK() {
			code = 1
		}
		results = append(results, res)
	}
	verify.WriteSummary(stdout, results, l, time.Since(start))
	return code
}

// replayCommand is the command that plays round r again: the same
// arguments, with only r selected.
func replayCommand(args []string, r verify.Round) string {
	var kept []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "round" || name == "timeline" {
			if !hasValue && name == "round" {
				i++
			}
			continue
		}
		kept = append(kept, quote(a))
	}
	return "go run ./cmd/labrun-real verify " + strings.Join(append(kept, "--round", r.Name), " ")
}

// quote quotes a shell word that needs it.
func quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
