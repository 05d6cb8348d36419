package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"outboxlab/lang"
	"outboxlab/real/cleanup"
	"outboxlab/real/pglab"
	"outboxlab/real/verify"
)

const verifyUsage = `  labrun-real verify --relay 'CMD …' [--round R]... [--seed N] [--random N] [--lease D]
                     [--id-header H] [--mapping FILE] [--sent-by status|slot] [--workers N]
                     [--timeline] [--lang en|de] [--fault KIND@N]... [--repeat N]
      grades a relay program in any language (verify/CONTRACT.md) on PostgreSQL and a
      Kafka-protocol broker: SIGKILL at the broker's moment, SIGSTOP past the lease,
      outages, publish timeouts, killed database connections; --fault adds a fault to
      each round (a replay stages the round's own timing so), --repeat plays each N times
  labrun-real verify --consumer 'CMD …' [--round R]... [--seed N] [--random N] [--mapping FILE]
                     [--workers N] [--timeline] [--lang en|de]
      grades a consumer program in any language (verify/CONSUMERS.md) in a consumer group:
      SIGKILL after the effect and before its offset commit, and before the effect's commit;
      records delivered twice, reordered, late, unreadable; a zombie past the session timeout;
      rebalances, killed database connections, refused fetches`

// runVerify is "labrun-real verify": every round (or those named), each
// in a world of its own, with the replay command of each failure.
func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("labrun-real verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var rounds, faults list
	relay := fs.String("relay", "", "the command that starts one relay instance (run by /bin/sh -c)")
	consumer := fs.String("consumer", "", "the command that starts one consumer instance (run by /bin/sh -c), in place of --relay")
	fs.Var(&rounds, "round", "a round (repeatable; default: every one)")
	seed := fs.Uint64("seed", 1, "draws the random rounds and the workloads")
	random := fs.Int("random", 2, "random rounds after the standard ones (>= 0)")
	lease := fs.Duration("lease", verify.DefaultLease, "the lease handed to the relay (OUTBOX_LEASE_MS), >= 200ms")
	header := fs.String("id-header", verify.DefaultIDHeader, "the record header that carries the event id")
	mapping := fs.String("mapping", "", "a SQL file run after the contract's schema: your names over the table")
	sentBy := fs.String("sent-by", "status", "what makes a row sent: status (SENT or deleted) or slot (a CDC relay: the slot OUTBOX_SLOT confirmed past its commit)")
	timeline := fs.Bool("timeline", false, "print each round's whole timeline")
	workers := fs.Int("workers", 1, "rounds played at once, each in a world of its own (>= 1)")
	langFlag := fs.String("lang", "", "en or de (default: from LC_ALL or LANG)")
	fs.Var(&faults, "fault", "a fault KIND@N added to each round: KIND at the N-th produce request (repeatable)")
	repeat := fs.Int("repeat", 1, "plays each round N times and says how often it failed (>= 1)")
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
	case strings.TrimSpace(*relay) == "" && strings.TrimSpace(*consumer) == "":
		return bad("--relay is missing: the command that starts your relay, e.g. --relay 'java -jar relay.jar' (or --consumer 'CMD' to grade a consumer)")
	case *relay != "" && *consumer != "":
		return bad("--relay and --consumer: grade one program at a time")
	case *consumer != "" && relayOnly(fs) != "":
		return bad(relayOnly(fs) + " is the relay's: the consumer rounds hand their consumers no lease and publish with the contract's headers (verify/CONSUMERS.md)")
	case *workers < 1:
		return bad(fmt.Sprintf("--workers %d: want a number >= 1", *workers))
	case *repeat < 1:
		return bad(fmt.Sprintf("--repeat %d: want a number >= 1", *repeat))
	case *random < 0:
		return bad(fmt.Sprintf("--random %d: want a number >= 0", *random))
	case *lease < 200*time.Millisecond:
		return bad(fmt.Sprintf("--lease %s: want at least 200ms", *lease))
	case *header == "":
		return bad("--id-header is empty: want a header name, e.g. event-id")
	}
	all := verify.Rounds(*seed, *random)
	if *consumer != "" {
		all = verify.ConsumerRounds(*seed, *random)
	}
	selected, err := verify.Select(all, rounds)
	if err != nil {
		return bad("--round: " + err.Error())
	}
	for _, f := range faults {
		fault, err := verify.ParseFault(f)
		if err != nil {
			return bad("--fault: " + err.Error())
		}
		for i := range selected {
			selected[i] = selected[i].With(fault)
		}
	}
	by, err := verify.ParseSentBy(*sentBy)
	if err != nil {
		return bad(err.Error())
	}
	cfg := verify.Config{Relay: *relay, Consumer: *consumer, Seed: *seed, Lease: *lease, IDHeader: *header, SentBy: by, Pace: 30 * time.Millisecond, Quiesce: 15 * time.Second}
	if *mapping != "" {
		sql, err := os.ReadFile(*mapping)
		if err != nil {
			return bad("--mapping: " + err.Error())
		}
		cfg.Mapping = string(sql)
	}
	replay := func(res verify.Result) string { return replayCommand(args, res) }
	return verifyRounds(cfg, selected, *repeat, *workers, l, *timeline, replay, stdout, stderr)
}

// relayOnly names a flag that only grading a relay takes, if one was
// given, else "".
func relayOnly(fs *flag.FlagSet) string {
	named := ""
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "lease" || f.Name == "id-header" || f.Name == "sent-by" || f.Name == "fault" {
			named = "--" + f.Name
		}
	})
	return named
}

type played struct {
	res verify.Result
	err error
}

// verifyRounds plays the rounds, each repeat times, workers at once, and
// prints each round in order as soon as it and those before it are done.
func verifyRounds(cfg verify.Config, rounds []verify.Round, repeat, workers int, l lang.Lang, all bool, replay func(verify.Result) string, stdout, stderr io.Writer) int {
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
	done := playAll(cfg, rounds, repeat, workers)
	var results []verify.Result
	code := 0
	for i, r := range rounds {
		var reps []verify.Result
		for _, p := range done[i] {
			got := <-p
			if got.err != nil {
				return playError(got.err, r, done[i+1:], stderr)
			}
			reps = append(reps, got.res)
		}
		shown := reps[0]
		if j := slices.IndexFunc(reps, func(res verify.Result) bool { return !res.OK() }); j >= 0 {
			shown, code = reps[j], 1
		}
		if repeat > 1 {
			shown.Repeats = reps
		}
		verify.WriteRound(stdout, shown, l, replay(shown), all)
		results = append(results, shown)
	}
	verify.WriteSummary(stdout, results, l, time.Since(start))
	return code
}

// playAll starts every repetition of every round, workers at once; each
// delivers its result on its own channel.
func playAll(cfg verify.Config, rounds []verify.Round, repeat, workers int) [][]chan played {
	done := make([][]chan played, len(rounds))
	slots := make(chan struct{}, workers)
	for i, r := range rounds {
		for range repeat {
			ch := make(chan played, 1)
			done[i] = append(done[i], ch)
			go func() {
				slots <- struct{}{}
				defer func() { <-slots }()
				res, err := verify.RunRound(cfg, r)
				ch <- played{res, err}
			}()
		}
	}
	return done
}

// playError reports the harness's error in round r and waits for the
// rounds after it, whose worlds end before the server does. An interrupt
// is no error to report: the signal handler says what it stopped.
func playError(err error, r verify.Round, rest [][]chan played, stderr io.Writer) int {
	for _, reps := range rest {
		for _, p := range reps {
			<-p
		}
	}
	if errors.Is(err, verify.ErrInterrupted) {
		waitForHandler() // it reports what it stopped, and exits
		return 1
	}
	fmt.Fprintf(stderr, "labrun-real verify: round %s: %v\n", r.Name, err)
	if errors.Is(err, verify.ErrCannotRun) || errors.Is(err, verify.ErrMapping) {
		return 2
	}
	return 1
}

// replayCommand is the command that plays a round again: the same
// arguments, with only its round selected, once, and the round's own
// timing the harness can stage (a produce request late past its lease)
// as a fault.
func replayCommand(args []string, res verify.Result) string {
	var kept []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "round" || name == "timeline" || name == "repeat" {
			if !hasValue && name != "timeline" {
				i++
			}
			continue
		}
		kept = append(kept, quote(a))
	}
	kept = append(kept, "--round", res.Round.Name)
	if res.Late != nil {
		kept = append(kept, "--fault", res.Late.Fault().String())
	}
	return "go run ./cmd/labrun-real verify " + strings.Join(kept, " ")
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

// waitForHandler waits, a second at most, until the signal handler of
// package cleanup took the signal that interrupted the rounds (both got
// it): main then leaves the exit to it.
func waitForHandler() {
	for deadline := time.Now().Add(time.Second); !cleanup.Stopping() && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
	}
}
