package sim

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"outboxlab/broker"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/outbox"
)

// The faults of a process: it freezes, its transaction stays open, its
// clock runs wrong, it is killed, a commit of its does not arrive.

// stallPoints are where exploration lets a relay freeze: just before one
// of its effects.
var stallPoints = []string{outbox.BoundaryClaim.Before(), outbox.BoundarySend.Before(), outbox.BoundaryMark.Before()}

// isPoint reports whether point is of the form process.before-effect or
// process.after-effect.
func isPoint(point string) bool {
	return strings.Contains(point, ".before-") || strings.Contains(point, ".after-")
}

var slowCommit = withRows(FaultSpec{
	Kind: FaultSlowCommit, Form: "PROCESS FOR",
	Text: lang.Text{
		EN: "a service instance's transaction stays open before its commit, its ids drawn, while others commit",
		DE: "die Transaktion einer Service-Instanz bleibt vor ihrem Commit offen, ihre IDs gezogen, während andere committen",
	},
	parse: func(f *Fault, args []string, _ Known) error {
		if err := argsWant(FaultSlowCommit, args, 2, "PROCESS FOR"); err != nil {
			return err
		}
		f.Process = args[0]
		return durations(args[1:], &f.For)
	},
	validate: func(f Fault, c Config) error {
		if f.Process == "" || f.For <= 0 {
			return fmt.Errorf("sim: %s: needs a service instance such as service-1 and For > 0; got %q for %s", f.Kind, f.Process, f.For)
		}
		return pastHorizon(f, c)
	},
	install: func(w *world, f Fault) {
		f.Point = orders.BoundaryCommit.Before()
		w.stalls = append(w.stalls, f)
	},
	describe: func(f Fault) string { return fmt.Sprintf("%s %s for %s", f.Kind, f.Process, f.For) },
	draw: func(d *FaultDraw) (Fault, bool) {
		f := Fault{Process: "service"}
		if d.Services > 1 {
			f.Process = fmt.Sprintf("service-%d", 1+d.Src.Intn("slow-service", d.Services))
		}
		f.For = time.Duration(1+d.Src.Intn("slow-for", 10)) * time.Second
		return f, true
	},
}, FaultRow{Column: 200, Point: slowCommitRow})

// slowCommitRow is the slow-commit row: two service instances;
// service-1's transaction for o-1 stays open for 3 s before its commit,
// with its outbox id drawn, while service-2 commits o-2 and the relays
// send it. A relay must still find o-1's message when it commits.
func slowCommitRow() Point {
	return Point{ID: string(FaultSlowCommit), Kind: KindFault, Description: lang.Text{
		EN: "service-1's transaction stays open 3 s with its id drawn while service-2 commits",
		DE: "die Transaktion von service-1 bleibt 3 s offen, ihre ID gezogen, während service-2 committet",
	}, Services: 2, Faults: []Fault{
		{Kind: FaultSlowCommit, Process: "service-1", For: 3 * time.Second},
	}, Situations: []Situation{LateCommit}}
}

var clockSkew = withRows(FaultSpec{
	Kind: FaultClockSkew, Form: "PROCESS SKEW",
	Text: lang.Text{
		EN: "a process's own clock runs ahead (or behind) of the true time for the whole run; the database's stays true",
		DE: "die eigene Uhr eines Prozesses geht den ganzen Lauf über vor (oder nach); die der Datenbank bleibt richtig",
	},
	parse: func(f *Fault, args []string, _ Known) error {
		if err := argsWant(FaultClockSkew, args, 2, "PROCESS SKEW (negative: behind)"); err != nil {
			return err
		}
		f.Process = args[0]
		return durations(args[1:], &f.Skew)
	},
	validate: func(f Fault, _ Config) error {
		if f.Process == "" || f.Skew == 0 {
			return fmt.Errorf("sim: %s: needs a process and a Skew other than 0; got %q by %s", f.Kind, f.Process, f.Skew)
		}
		return nil
	},
	install:  func(*world, Fault) {}, // clockOf reads it when the process starts
	describe: func(f Fault) string { return fmt.Sprintf("%s %s by %s", f.Kind, f.Process, f.Skew) },
	draw: func(d *FaultDraw) (Fault, bool) {
		f := Fault{Process: fmt.Sprintf("relay-%d", 1+d.Src.Intn("skew-relay", d.Relays))}
		f.Skew = time.Duration(1+d.Src.Intn("skew", 90)) * time.Second
		if d.Src.Intn("skew-behind", 2) == 0 {
			f.Skew = -f.Skew
		}
		return f, true
	},
}, FaultRow{Column: 210, Point: clockSkewRow})

// clockSkewRow is the clock-skew row: two relays; relay-2's clock runs
// 60 s ahead, longer than a lease, and relay-1 pauses for 10 s before a
// send, well within its 30 s lease. By relay-2's clock that lease expired
// long ago. A relay that judges leases by the database's clock is not
// fooled.
func clockSkewRow() Point {
	return Point{ID: string(FaultClockSkew), Kind: KindFault, Description: lang.Text{
		EN: "relay-2's clock runs a minute ahead while relay-1 pauses inside its lease",
		DE: "die Uhr von relay-2 geht eine Minute vor, während relay-1 innerhalb seiner Lease pausiert",
	}, Relays: 2, Faults: []Fault{
		{Kind: FaultClockSkew, Process: "relay-2", Skew: time.Minute},
		{Kind: FaultStall, Process: "relay-1", Point: outbox.BoundarySend.Before(), For: 10 * time.Second},
	}}
}

var kill = withRows(FaultSpec{
	Kind: FaultKill, Form: "PROCESS AT [FOR]",
	Text: lang.Text{
		EN: "a process is killed wherever it stands (a deploy, an OOM kill, a host lost) and restarts later, or never",
		DE: "ein Prozess wird beendet, wo er gerade steht (ein Deployment, ein OOM-Kill, ein verlorener Host), und startet später neu, oder nie",
	},
	parse: func(f *Fault, args []string, _ Known) error {
		if len(args) == 3 {
			if err := durations(args[2:], &f.For); err != nil {
				return err
			}
			args = args[:2]
		}
		if err := argsWant(FaultKill, args, 2, "PROCESS AT [FOR]"); err != nil {
			return err
		}
		f.Process = args[0]
		return durations(args[1:], &f.From)
	},
	validate: func(f Fault, _ Config) error {
		if f.Process == "" || f.From < 0 {
			return fmt.Errorf("sim: %s: needs a process and From >= 0; got %q at %s", f.Kind, f.Process, f.From)
		}
		return nil
	},
	install: func(w *world, f Fault) { w.planKill(f) },
	describe: func(f Fault) string {
		if f.For > 0 {
			return fmt.Sprintf("%s %s at %s for %s", f.Kind, f.Process, f.From, f.For)
		}
		return fmt.Sprintf("%s %s at %s", f.Kind, f.Process, f.From)
	},
	draw: func(d *FaultDraw) (Fault, bool) {
		processes := []string{"billing"}
		for i := 1; i <= d.Relays; i++ {
			processes = append(processes, fmt.Sprintf("relay-%d", i))
		}
		f := Fault{Process: processes[d.Src.Intn("kill-process", len(processes))]}
		f.From = time.Duration(d.Src.Intn("kill-at", 30)) * time.Second
		if f.Process == "relay-1" && d.Relays > 1 && !d.Lost && d.Src.Intn("kill-for-good", 3) == 0 {
			f.For, d.Lost = ForGood, true // its host is gone: the other relays must take over
		}
		return f, true
	},
}, FaultRow{Column: 170, Point: relayRestartRow}, FaultRow{Column: 180, Point: recoverConflictRow},
	FaultRow{Column: 190, Point: relayLostRow})

// relayRestartRow is the relay-restart row: two relays, each of which
// freezes just before its first send, holding its claim under a live 30 s
// lease: relay-1 for 10 s, relay-2 for 20 s. relay-1 is killed at 4 s,
// frozen, and restarts at 9 s and runs its recovery, which must release
// its own claim and leave relay-2's alone.
func relayRestartRow() Point {
	return Point{ID: "relay-restart", Kind: KindFault, Description: lang.Text{
		EN: "relay-1 is killed and restarts while relay-2 holds a live claim",
		DE: "relay-1 wird beendet und startet neu, während relay-2 einen noch gültigen Claim hält",
	}, Relays: 2, Faults: []Fault{
		{Kind: FaultStall, Process: "relay-1", Point: outbox.BoundarySend.Before(), For: 10 * time.Second},
		{Kind: FaultStall, Process: "relay-2", Point: outbox.BoundarySend.Before(), For: 20 * time.Second},
		{Kind: FaultKill, Process: "relay-1", From: 4 * time.Second},
	}, Situations: []Situation{ClaimReleased}}
}

// recoverConflictRow is the recover-conflict row: relay-1 freezes before
// its first send, holding its claim, is killed at 4 s and restarts at 9 s;
// its recovery reads the claim, writes its release and freezes 40 s before
// the commit, past the claim's 30 s lease, while relay-2 takes the claim
// over, sends and marks it. The database refuses relay-1's release:
// another transaction committed the row first. For a recovery that is the
// end of a race, as for a mark: the relay runs on, it is not an error
// (Relay.Run stops at the error of its recovery).
func recoverConflictRow() Point {
	return Point{ID: "recover-conflict", Kind: KindFault, Description: lang.Text{
		EN: "relay-1 restarts and freezes 40 s inside its recovery while relay-2 takes its claim over: its release is refused",
		DE: "relay-1 startet neu und friert 40 s in seiner Wiederherstellung ein, während relay-2 seinen Claim übernimmt: seine Freigabe wird abgewiesen",
	}, Relays: 2, MinRelays: 2, Faults: []Fault{
		{Kind: FaultStall, Process: "relay-1", Point: outbox.BoundarySend.Before(), For: 10 * time.Second},
		{Kind: FaultKill, Process: "relay-1", From: 4 * time.Second},
		{Kind: FaultStall, Process: "relay-1", Point: outbox.BoundaryRecover.Before(), For: 40 * time.Second},
	}, Situations: []Situation{LeaseTakenOver, WriteConflict}}
}

// relayLostRow is the relay-lost row: two relays; relay-1 freezes before
// its first send, holding its claim, is killed at 2 s and does not come
// back before the check (its host is gone). relay-2 must take the claim
// over once its lease runs out: that is what a lease is for.
func relayLostRow() Point {
	return Point{ID: "relay-lost", Kind: KindFault, Description: lang.Text{
		EN: "relay-1 dies holding a claim and never comes back; relay-2 must take it over",
		DE: "relay-1 stirbt mit einem Claim und kommt nie zurück; relay-2 muss ihn übernehmen",
	}, Relays: 2, MinRelays: 2, Faults: []Fault{
		{Kind: FaultStall, Process: "relay-1", Point: outbox.BoundarySend.Before(), For: 10 * time.Second},
		{Kind: FaultKill, Process: "relay-1", From: 2 * time.Second, For: 1000 * time.Hour},
	}, Situations: []Situation{LeaseTakenOver}}
}

// planKill adds f to the kills still to happen, in time order.
func (w *world) planKill(f Fault) {
	i := len(w.kills)
	for i > 0 && w.kills[i-1].From > f.From {
		i--
	}
	w.kills = slices.Insert(w.kills, i, f)
}

// ErrCommitFailed is what a process gets from a commit that a
// commit-failure fault fails: nothing was committed.
var ErrCommitFailed = errors.New("commit failed: the connection to the database was lost (nothing committed)")

var commitFailure = FaultSpec{
	Kind: FaultCommitFailure, Form: "BOUNDARY@K[-L] [TARGET]",
	Text: lang.Text{
		EN: "the K-th commit at a boundary does not reach the database (a connection lost): nothing committed, the process gets an error; with -L, every commit from the K-th to the L-th, a burst (a database that flaps); with a TARGET, the commits about that message (billing's of its delivery, a relay's after its send)",
		DE: "der K-te Commit an einer Grenze erreicht die Datenbank nicht (eine verlorene Verbindung): nichts committet, der Prozess bekommt einen Fehler; mit -L jeder Commit vom K-ten bis zum L-ten, eine Serie (eine Datenbank, die flackert); mit einem TARGET die Commits zu dieser Nachricht (der von Billing zu ihrer Zustellung, der eines Relays nach ihrem Senden)",
	},
	parse: func(f *Fault, args []string, known Known) error {
		if len(args) < 1 || len(args) > 2 {
			return fmt.Errorf("want \"fault %s BOUNDARY@K[-L] [TARGET]\" (e.g. relay.claim@2, consumer.commit@1-3 o-1#1)", FaultCommitFailure)
		}
		boundary, at, _ := strings.Cut(args[0], "@")
		from, to, burst := strings.Cut(at, "-")
		k, convErr := strconv.Atoi(from)
		l := k
		if burst {
			var err error
			if l, err = strconv.Atoi(to); err != nil {
				convErr = err
			}
		}
		f.Point, f.Occurrence = boundary, k
		if l > k {
			f.Burst = l - k + 1
		}
		if convErr != nil || k < 1 || l < k || !slices.Contains(known.CommitBoundaries, boundary) {
			return fmt.Errorf("fault commit-failure %q: want BOUNDARY@K with K >= 1 and a boundary of %s (or BOUNDARY@K-L, K <= L: the K-th to the L-th in a row)", args[0], strings.Join(known.CommitBoundaries, ", "))
		}
		if f.Burst > MaxCommitBurst {
			return fmt.Errorf("fault commit-failure %q: a burst of %d failed commits in a row: %w (at most %d)", args[0], f.Burst, ErrBurstTooLong, MaxCommitBurst)
		}
		if len(args) == 2 {
			t, err := ParseTarget(args[1])
			if err != nil {
				return fmt.Errorf("fault commit-failure: %w", err)
			}
			f.Target = t
		}
		return nil
	},
	validate: func(f Fault, _ Config) error {
		if f.Burst > MaxCommitBurst {
			return fmt.Errorf("sim: %s %s@%d: a burst of %d failed commits in a row: %w (at most %d)", f.Kind, f.Point, f.Occurrence, f.Burst, ErrBurstTooLong, MaxCommitBurst)
		}
		if process, effect, ok := strings.Cut(f.Point, "."); !ok || process == "" || effect == "" || f.Occurrence < 1 || f.Burst < 0 {
			return fmt.Errorf("sim: %s: needs a commit boundary (PROCESS.EFFECT: relay.claim), Occurrence >= 1 and Burst >= 0; got %q@%d, Burst %d", f.Kind, f.Point, f.Occurrence, f.Burst)
		}
		if process, _, _ := strings.Cut(f.Point, "."); f.Target != (broker.Target{}) && process != roleConsumer && process != roleRelay {
			return fmt.Errorf("sim: %s %s: a commit at %s is about no one message: aim at a consumer's or a relay's boundary, or at none", f.Kind, f.Target, f.Point)
		}
		return nil
	},
	install: func(w *world, f Fault) { w.failures = append(w.failures, plannedFailure{Fault: f}) },
	describe: func(f Fault) string {
		s := fmt.Sprintf("%s %s@%d", f.Kind, f.Point, f.Occurrence)
		if f.Burst > 1 {
			s += fmt.Sprintf("-%d", f.Occurrence+f.Burst-1)
		}
		if f.Target != (broker.Target{}) {
			s += " " + f.Target.String()
		}
		return s
	},
	NotDrawn: "drawn on its own, up to twice a schedule, aimed at a commit boundary of any variant (scenarios.CommitBoundaries), and in one schedule of four as a burst of two to five in a row (lab/explore's widen)",
}

// MaxCommitBurst bounds a burst of failed commits: a database that fails
// more commits in a row than this is down, not flickering, and a variant
// that waits it out would be charged with what the lab's bound of steps
// did (the reference is OK at bursts of thousands; exploration draws two
// to five).
const MaxCommitBurst = 100

// ErrBurstTooLong is the error of a burst of failed commits longer than
// MaxCommitBurst.
var ErrBurstTooLong = errors.New("a database that fails this many commits in a row is down, not flickering")

// pastHorizon refuses a freeze as long as the run's horizon: the frozen
// process would never move again in its phase, and the run would charge
// the variant with what the lab's bound did.
func pastHorizon(f Fault, c Config) error {
	if f.For >= c.Horizon {
		return fmt.Errorf("sim: %s %s for %s: runs past the run's horizon of %s a phase (at most %s)", f.Kind, f.Process, f.For, c.Horizon, c.Horizon-time.Second)
	}
	return nil
}
