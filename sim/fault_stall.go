package sim

import (
	"fmt"
	"time"

	"outboxlab/lang"
	"outboxlab/outbox"
)

// stall freezes a process at a crash point's place for a while; its rows
// are the lease's: what one guarantees, and what a fence must refuse.
var stall = withRows(FaultSpec{
	Kind: FaultStall, Form: "PROCESS POINT FOR",
	Text: lang.Text{
		EN: "a process freezes (a GC pause, a frozen VM) at a crash point's place for a while, then resumes where it stood",
		DE: "ein Prozess friert an der Stelle eines Crash-Punkts eine Weile ein (eine GC-Pause, eine angehaltene VM) und macht dann weiter, wo er stand",
	},
	parse: func(f *Fault, args []string, _ Known) error {
		if err := argsWant(FaultStall, args, 3, "PROCESS POINT FOR"); err != nil {
			return err
		}
		f.Process, f.Point = args[0], args[1]
		return durations(args[2:], &f.For)
	},
	validate: func(f Fault, c Config) error {
		if f.Process == "" || f.For <= 0 || !isPoint(f.Point) {
			return fmt.Errorf("sim: %s: needs a process, a crash point such as relay.before-send, and For > 0; got %q at %q for %s", f.Kind, f.Process, f.Point, f.For)
		}
		return pastHorizon(f, c)
	},
	install:  func(w *world, f Fault) { w.stalls = append(w.stalls, f) },
	describe: func(f Fault) string { return fmt.Sprintf("%s %s at %s for %s", f.Kind, f.Process, f.Point, f.For) },
	draw: func(d *FaultDraw) (Fault, bool) {
		f := Fault{Process: fmt.Sprintf("relay-%d", 1+d.Src.Intn("stall-relay", d.Relays))}
		f.Point = stallPoints[d.Src.Intn("stall-point", len(stallPoints))]
		f.For = time.Duration(1+d.Src.Intn("stall-for", 90)) * time.Second
		return f, true
	},
}, FaultRow{Column: 120, Point: stallRow}, FaultRow{Column: 130, Point: stallOutageRow},
	FaultRow{Column: 140, Point: stallReleaseRow}, FaultRow{Column: 150, Point: markConflictRow},
	FaultRow{Column: 160, Point: failureConflictRow})

// stallRow is the stall row: two relays; relay-1 freezes just before its
// first send, longer than its 30 s lease, while relay-2 takes the lease
// over, sends and marks; then relay-1 resumes where it stood.
func stallRow() Point {
	f := Fault{Kind: FaultStall, Process: "relay-1", Point: outbox.BoundarySend.Before(), For: 40 * time.Second}
	return Point{ID: string(FaultStall), Kind: KindFault, Description: lang.Text{
		EN: "relay-1 freezes 40 s before a send, past its 30 s lease, while relay-2 runs",
		DE: "relay-1 friert 40 s vor einem Senden ein, über seine 30-s-Lease hinaus, während relay-2 läuft",
	}, Faults: []Fault{f}, Relays: 2,
		Situations: []Situation{LeaseTakenOver}, Story: stallStory}
}

// stallStory tells the stall row: what a lease guarantees, and what it
// does not (chapter 000 section 5). It names variants by their names, as
// text: the simulator imports none.
var stallStory = lang.Text{
	EN: "relay-1 claims o-2#1 at 00:00:01 and freezes just before it sends (a GC pause, a frozen VM) for 40 s, longer than its 30 s lease. " +
		"relay-2 sends everything else meanwhile, and at 00:00:31, when relay-1's lease has run out, takes o-2#1 over, sends it and marks it SENT. " +
		"At 00:00:41 relay-1 resumes where it stood and sends o-2#1 again: a frozen process cannot know that time passed. " +
		"It does not mark it (the fence: it no longer holds the lease), and billing's inbox absorbs the second copy. " +
		"So chapter 000's \"Mehrere Publisher-Instanzen dürfen nicht dieselbe Nachricht gleichzeitig senden\" holds in the form the lab can prove: " +
		"never two valid leases on one message at once; a relay that froze past its lease may still send once more, and the consumer's inbox makes that harmless. " +
		"Run it with --variant no-fencing: relay-1's late mark overwrites relay-2's (UNSAFE); with --variant skip-locked-tx (chapter 003's relay, story lock-or-lease) o-2#1 waits for relay-1 and leaves once.",
	DE: "relay-1 claimt o-2#1 um 00:00:01 und friert direkt vor dem Senden ein (eine GC-Pause, eine angehaltene VM), 40 s lang, länger als seine Lease von 30 s. " +
		"relay-2 sendet inzwischen alles andere und übernimmt um 00:00:31, als die Lease von relay-1 abgelaufen ist, o-2#1, sendet sie und markiert sie als SENT. " +
		"Um 00:00:41 macht relay-1 weiter, wo es stand, und sendet o-2#1 noch einmal: ein eingefrorener Prozess kann nicht wissen, dass Zeit vergangen ist. " +
		"Es markiert sie nicht (der Fence: es hält die Lease nicht mehr), und die Inbox von Billing fängt die zweite Kopie ab. " +
		"So gilt „Mehrere Publisher-Instanzen dürfen nicht dieselbe Nachricht gleichzeitig senden“ aus Kapitel 000 in der Form, die das Labor beweisen kann: " +
		"nie zwei gültige Leases auf einer Nachricht zugleich; ein Relay, das über seine Lease hinaus einfror, kann noch einmal senden, und die Inbox des Consumers macht das harmlos. " +
		"Mit --variant no-fencing überschreibt die späte Markierung von relay-1 die von relay-2 (UNSAFE); mit --variant skip-locked-tx (das Relay aus Kapitel 003, Geschichte lock-or-lease) wartet o-2#1 auf relay-1 und geht einmal hinaus.",
}

// stallOutageRow is the stall-outage row: the stall row, and the broker goes
// down at 35 s, after relay-2 took relay-1's claim over and sent and
// marked it, before relay-1 resumes: relay-1's late send fails, and its
// lease is long gone. Recording that failure would write over relay-2's
// SENT: the fence guards a failed send as it guards a successful one.
func stallOutageRow() Point {
	return Point{ID: "stall-outage", Kind: KindFault, Description: lang.Text{
		EN: "as stall, and the broker is down when relay-1 resumes: its late send fails",
		DE: "wie stall, und der Broker ist weg, wenn relay-1 weitermacht: sein spätes Senden scheitert",
	}, Relays: 2, MinRelays: 2, Faults: []Fault{
		{Kind: FaultStall, Process: "relay-1", Point: outbox.BoundarySend.Before(), For: 40 * time.Second},
		{Kind: FaultOutage, From: 35 * time.Second, For: 10 * time.Minute},
	}, Situations: []Situation{LeaseTakenOver}}
}

// stallReleaseRow is the stall-release row: relay-1 starts at 6 s, when the
// whole workload is committed, claims it in one batch and freezes before
// its first send for 40 s, past its lease; relay-2 starts at 30 s, takes
// the batch over when relay-1's lease runs out at 36 s, and freezes before
// its first send too, for 20 s, holding it. The broker is down from 40 s.
// relay-1's late send fails at 46 s: recording the failure must leave
// relay-2's claims alone, the rest of the batch included, which relay-1
// would otherwise hand back for anyone to claim while relay-2's lease
// still runs. The release is fenced like a mark.
func stallReleaseRow() Point {
	return Point{ID: "stall-release", Kind: KindFault, Description: lang.Text{
		EN: "relay-1's late send fails while relay-2 holds the rest of its batch: relay-1 must not hand that back",
		DE: "das späte Senden von relay-1 scheitert, während relay-2 den Rest seines Batches hält: relay-1 darf ihn nicht zurückgeben",
	}, Relays: 2, MinRelays: 2, Faults: []Fault{
		{Kind: FaultKill, Process: "relay-1", From: 0, For: 6 * time.Second},
		{Kind: FaultKill, Process: "relay-2", From: 0, For: 30 * time.Second},
		{Kind: FaultStall, Process: "relay-1", Point: outbox.BoundarySend.Before(), For: 40 * time.Second},
		{Kind: FaultStall, Process: "relay-2", Point: outbox.BoundarySend.Before(), For: 20 * time.Second},
		{Kind: FaultOutage, From: 40 * time.Second, For: time.Minute},
	}, Situations: []Situation{LeaseTakenOver}}
}

// markConflictRow is the mark-conflict row: two relays; relay-1 freezes 40 s
// with its mark written and not committed, past its lease, while relay-2
// takes the message over, sends and marks it; then relay-1 commits its
// mark, and the database refuses it: another transaction committed the
// row first. A stale mark refused is the end of a race, not an error.
func markConflictRow() Point {
	return Point{ID: "mark-conflict", Kind: KindFault, Description: lang.Text{
		EN: "relay-1 freezes 40 s with its mark not committed, while relay-2 takes over and marks",
		DE: "relay-1 friert 40 s mit nicht committeter Markierung ein, während relay-2 übernimmt und markiert",
	}, Relays: 2, MinRelays: 2, Faults: []Fault{
		{Kind: FaultStall, Process: "relay-1", Point: outbox.BoundaryMark.Before(), For: 40 * time.Second},
	}, Situations: []Situation{LeaseTakenOver, WriteConflict}}
}

// failureConflictRow is the failure-conflict row: the mark-conflict row, but
// the broker is down for the second in which relay-1 sends, so that what
// relay-1 holds uncommitted for 40 s is the record of a failed send; the
// database refuses it as it refuses a stale SENT.
func failureConflictRow() Point {
	p := markConflictRow()
	p.ID = "failure-conflict"
	p.Description = lang.Text{
		EN: "as mark-conflict, but relay-1's send failed: its record of the failure is refused",
		DE: "wie mark-conflict, aber das Senden von relay-1 scheiterte: sein Eintrag des Fehlschlags wird abgewiesen",
	}
	p.Faults = append(p.Faults, Fault{Kind: FaultOutage, From: time.Second, For: time.Second})
	return p
}
