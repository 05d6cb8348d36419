package scenarios

import (
	"fmt"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/sim"
)

// faultRows are scenarios' fault rows.
func faultRows() []sim.Point {
	fault := func(kind sim.FaultKind, text lang.Text, f sim.Fault, situations ...sim.Situation) sim.Point {
		f.Kind = kind
		return sim.Point{ID: string(kind), Kind: sim.KindFault, Description: text, Faults: []sim.Fault{f}, Situations: situations}
	}
	first := broker.Target{AggregateID: "o-1", Sequence: 1}
	return []sim.Point{
		fault(sim.FaultOutage, lang.Text{
			EN: "the broker is unreachable for ten minutes",
			DE: "der Broker ist zehn Minuten nicht erreichbar",
		}, sim.Fault{From: 0, For: 10 * time.Minute}, sim.Retried),
		outageBacklog(),
		fault(sim.FaultTimeoutStored, lang.Text{
			EN: "the relay's publish of o-1#1 times out; the broker stored it",
			DE: "das Senden von o-1#1 läuft in einen Timeout; der Broker hat die Nachricht gespeichert",
		}, sim.Fault{Target: first}, sim.Retried, sim.Redelivered),
		fault(sim.FaultTimeoutDropped, lang.Text{
			EN: "the relay's publish of o-1#1 times out; the broker never got it",
			DE: "das Senden von o-1#1 läuft in einen Timeout; der Broker hat die Nachricht nie erhalten",
		}, sim.Fault{Target: first}, sim.Retried),
		fault(sim.FaultDuplicate, lang.Text{
			EN: "the broker delivers o-1#1 twice",
			DE: "der Broker stellt o-1#1 zweimal zu",
		}, sim.Fault{Target: first}, sim.Redelivered),
		fault(sim.FaultReorder, lang.Text{
			EN: "o-1#1 is delivered after o-1#2",
			DE: "o-1#1 wird nach o-1#2 zugestellt",
		}, sim.Fault{Target: first}, sim.GapParked),
		fault(sim.FaultPoison, lang.Text{
			EN: "o-1#1 can never be processed until its cause is fixed",
			DE: "o-1#1 lässt sich erst verarbeiten, wenn ihre Ursache behoben ist",
		}, sim.Fault{Target: first}, sim.BillingDeadLettered, sim.ReplayedBeforeFix, sim.DeadLetterReplayed, sim.ReplayedTwice),
		fault(sim.FaultCorruptOnce, lang.Text{
			EN: "o-1#1 arrives corrupted once (in transit), then intact: billing must try it again, not give it up",
			DE: "o-1#1 kommt einmal beschädigt an (unterwegs), dann unversehrt: Billing muss es erneut versuchen, nicht aufgeben",
		}, sim.Fault{Target: first}, sim.Redelivered),
		unknownContract(),
		wrongCurrency(),
		rejected(),
		stall(),
		stallOutage(),
		stallRelease(),
		markConflict(),
		failureConflict(),
		relayRestart(),
		recoverConflict(),
		relayLost(),
		slowCommit(),
		clockSkew(),
	}
}

// wrongCurrency is the wrong-currency row: o-1's amendment #2 arrives
// with its amount in another currency than the order's (a producer's
// mapping bug, until the operator's fix), and before o-1#1. Billing can
// read it: it parks it, waiting for #1. When #1 comes and #2's turn with
// it, billing cannot add the amount to the order's account: #2 must
// become a visible dead letter, not vanish with the parking it leaves,
// and be applied once the cause is fixed and the dead letters are
// replayed.
func wrongCurrency() sim.Point {
	return sim.Point{ID: string(sim.FaultWrongCurrency), Kind: sim.KindFault, Description: lang.Text{
		EN: "o-1#2 arrives before o-1#1 with its amount in another currency, until fixed: billing parks it and cannot apply it when its turn comes",
		DE: "o-1#2 kommt vor o-1#1 und mit ihrem Betrag in einer anderen Währung an, bis das behoben ist: Billing parkt sie und kann sie nicht anwenden, wenn sie an der Reihe ist",
	}, Faults: []sim.Fault{
		{Kind: sim.FaultReorder, Target: broker.Target{AggregateID: "o-1", Sequence: 1}},
		{Kind: sim.FaultWrongCurrency, Target: broker.Target{AggregateID: "o-1", Sequence: 2}},
	}, Situations: []sim.Situation{sim.GapParked, sim.BillingDeadLettered, sim.DeadLetterReplayed}}
}

// unknownContract is the unknown-contract row: a producer deployed ahead
// of billing sends o-1#2 in a version and o-2#1 as a type billing does not
// know. Billing must put each aside at once, as a visible dead letter
// (chapter 000's quarantine for faulty event versions), not retry it and
// not misread it, and apply it once it is upgraded and the dead letters
// are replayed; o-1's later amendment waits for #2 meanwhile.
func unknownContract() sim.Point {
	return sim.Point{ID: "unknown-contract", Kind: sim.KindFault, Description: lang.Text{
		EN: "o-1#2 arrives in a version and o-2#1 as a type billing does not know yet, until it is upgraded",
		DE: "o-1#2 kommt in einer Version und o-2#1 als Typ an, die Billing noch nicht kennt, bis es aktualisiert ist",
	}, Faults: []sim.Fault{
		{Kind: sim.FaultUnknownVersion, Target: broker.Target{AggregateID: "o-1", Sequence: 2}},
		{Kind: sim.FaultUnknownType, Target: broker.Target{AggregateID: "o-2", Sequence: 1}},
	}, Situations: []sim.Situation{sim.BillingDeadLettered, sim.GapParked, sim.DeadLetterReplayed}}
}

// rejected is the rejected row: the broker refuses o-1#1 and o-3#1 until
// their causes are fixed, so both become dead letters, and it is the row
// of the operator's work (sim.DefaultOperations). The operator replays
// them before fixing anything: each must be a dead letter again. The
// retention cleanup runs while they wait, hours later, just under and just
// over the retention period and weeks later: it must keep them (the
// evidence, the replay source) and the SENT messages younger than the
// period, and delete the older ones around them. Then the operator fixes
// o-1#1's cause and replays it, the broker down for a minute, and then
// o-3#1's: a replay that puts back more than the message whose cause was
// fixed sends o-3#1 into another round of failed attempts (STORM). What
// the replay sent is kept for the retention period from its send, though
// it was created weeks before; the replays run a second time change
// nothing.
func rejected() sim.Point {
	return sim.Point{ID: string(sim.FaultRejected), Kind: sim.KindFault, Description: lang.Text{
		EN: "the broker refuses o-1#1 and o-3#1 until their causes are fixed, one after the other",
		DE: "der Broker weist o-1#1 und o-3#1 ab, bis ihre Ursachen behoben sind, eine nach der anderen",
	}, Faults: []sim.Fault{
		{Kind: sim.FaultRejected, Target: broker.Target{AggregateID: "o-1", Sequence: 1}},
		{Kind: sim.FaultRejected, Target: broker.Target{AggregateID: "o-3", Sequence: 1}},
	}, Situations: []sim.Situation{sim.DeadLettered, sim.CleanedUp, sim.RetentionKept, sim.DeadLetterKept, sim.ReplayedBeforeFix,
		sim.DeadLetterReplayed, sim.ReplayRefused, sim.ReplayedKept, sim.ReplayedTwice}}
}

// outageBacklog is the outage-backlog row: the broker is down for ten
// minutes from the start while twelve orders come in, a backlog of twelve
// messages none of which waits behind another (chapter 001's outage, at
// the lab's scale). Each message keeping to its own backoff is not enough:
// a relay that tries every waiting message on its own schedule sends about
// a hundred requests into the outage where one every ten seconds would do
// (check.DownBudget); the relay pauses as a whole after a failed send.
func outageBacklog() sim.Point {
	var workload []sim.Command
	for i := range 12 {
		amount := domain.Money{Minor: int64(500 + 125*i), Currency: "EUR"}
		workload = append(workload, sim.Command{At: time.Duration(i) * 500 * time.Millisecond,
			Command: orders.Command{Kind: orders.Place, OrderID: fmt.Sprintf("o-%d", i+1), Amount: amount}})
	}
	return sim.Point{ID: "outage-backlog", Kind: sim.KindFault, Description: lang.Text{
		EN: "the broker is unreachable for ten minutes while twelve orders come in",
		DE: "der Broker ist zehn Minuten nicht erreichbar, während zwölf Bestellungen eingehen",
	}, Workload: workload, Faults: []sim.Fault{
		{Kind: sim.FaultOutage, From: 0, For: 10 * time.Minute},
	}, Situations: []sim.Situation{sim.Retried}}
}

// clockSkew is the clock-skew row: two relays; relay-2's clock runs 60 s
// ahead, longer than a lease, and relay-1 pauses for 10 s before a send,
// well within its 30 s lease. By relay-2's clock that lease expired long
// ago. A relay that judges leases by the database's clock is not fooled.
func clockSkew() sim.Point {
	return sim.Point{ID: string(sim.FaultClockSkew), Kind: sim.KindFault, Description: lang.Text{
		EN: "relay-2's clock runs a minute ahead while relay-1 pauses inside its lease",
		DE: "die Uhr von relay-2 geht eine Minute vor, während relay-1 innerhalb seiner Lease pausiert",
	}, Relays: 2, Faults: []sim.Fault{
		{Kind: sim.FaultClockSkew, Process: "relay-2", Skew: time.Minute},
		{Kind: sim.FaultStall, Process: "relay-1", Point: "relay.before-send", For: 10 * time.Second},
	}}
}

// recoverConflict is the recover-conflict row: relay-1 freezes before its
// first send, holding its claim, is killed at 4 s and restarts at 9 s; its
// recovery reads the claim, writes its release and freezes 40 s before the
// commit, past the claim's 30 s lease, while relay-2 takes the claim over,
// sends and marks it. The database refuses relay-1's release: another
// transaction committed the row first. For a recovery that is the end of
// a race, as for a mark: the relay runs on, it is not an error (Relay.Run
// stops at the error of its recovery).
func recoverConflict() sim.Point {
	return sim.Point{ID: "recover-conflict", Kind: sim.KindFault, Description: lang.Text{
		EN: "relay-1 restarts and freezes 40 s inside its recovery while relay-2 takes its claim over: its release is refused",
		DE: "relay-1 startet neu und friert 40 s in seiner Wiederherstellung ein, während relay-2 seinen Claim übernimmt: seine Freigabe wird abgewiesen",
	}, Relays: 2, MinRelays: 2, Faults: []sim.Fault{
		{Kind: sim.FaultStall, Process: "relay-1", Point: "relay.before-send", For: 10 * time.Second},
		{Kind: sim.FaultKill, Process: "relay-1", From: 4 * time.Second},
		{Kind: sim.FaultStall, Process: "relay-1", Point: "relay.before-recover", For: 40 * time.Second},
	}, Situations: []sim.Situation{sim.LeaseTakenOver, sim.WriteConflict}}
}

// relayLost is the relay-lost row: two relays; relay-1 freezes before its
// first send, holding its claim, is killed at 2 s and does not come back
// before the check (its host is gone). relay-2 must take the claim over
// once its lease runs out: that is what a lease is for.
func relayLost() sim.Point {
	return sim.Point{ID: "relay-lost", Kind: sim.KindFault, Description: lang.Text{
		EN: "relay-1 dies holding a claim and never comes back; relay-2 must take it over",
		DE: "relay-1 stirbt mit einem Claim und kommt nie zurück; relay-2 muss ihn übernehmen",
	}, Relays: 2, MinRelays: 2, Faults: []sim.Fault{
		{Kind: sim.FaultStall, Process: "relay-1", Point: "relay.before-send", For: 10 * time.Second},
		{Kind: sim.FaultKill, Process: "relay-1", From: 2 * time.Second, For: 1000 * time.Hour},
	}, Situations: []sim.Situation{sim.LeaseTakenOver}}
}

// slowCommit is the slow-commit row: two service instances; service-1's
// transaction for o-1 stays open for 3 s before its commit, with its
// outbox id drawn, while service-2 commits o-2 and the relays send it. A
// relay must still find o-1's message when it commits.
func slowCommit() sim.Point {
	return sim.Point{ID: string(sim.FaultSlowCommit), Kind: sim.KindFault, Description: lang.Text{
		EN: "service-1's transaction stays open 3 s with its id drawn while service-2 commits",
		DE: "die Transaktion von service-1 bleibt 3 s offen, ihre ID gezogen, während service-2 committet",
	}, Services: 2, Faults: []sim.Fault{
		{Kind: sim.FaultSlowCommit, Process: "service-1", For: 3 * time.Second},
	}, Situations: []sim.Situation{sim.LateCommit}}
}

// relayRestart is the relay-restart row: two relays, each of which freezes
// just before its first send, holding its claim under a live 30 s lease:
// relay-1 for 10 s, relay-2 for 20 s. relay-1 is killed at 4 s, frozen,
// and restarts at 9 s and runs its recovery, which must release its own
// claim and leave relay-2's alone.
func relayRestart() sim.Point {
	return sim.Point{ID: "relay-restart", Kind: sim.KindFault, Description: lang.Text{
		EN: "relay-1 is killed and restarts while relay-2 holds a live claim",
		DE: "relay-1 wird beendet und startet neu, während relay-2 einen noch gültigen Claim hält",
	}, Relays: 2, Faults: []sim.Fault{
		{Kind: sim.FaultStall, Process: "relay-1", Point: "relay.before-send", For: 10 * time.Second},
		{Kind: sim.FaultStall, Process: "relay-2", Point: "relay.before-send", For: 20 * time.Second},
		{Kind: sim.FaultKill, Process: "relay-1", From: 4 * time.Second},
	}, Situations: []sim.Situation{sim.ClaimReleased}}
}

// stall is the stall row: two relays; relay-1 freezes just before its
// first send, longer than its 30 s lease, while relay-2 takes the lease
// over, sends and marks; then relay-1 resumes where it stood.
func stall() sim.Point {
	f := sim.Fault{Kind: sim.FaultStall, Process: "relay-1", Point: "relay.before-send", For: 40 * time.Second}
	return sim.Point{ID: string(sim.FaultStall), Kind: sim.KindFault, Description: lang.Text{
		EN: "relay-1 freezes 40 s before a send, past its 30 s lease, while relay-2 runs",
		DE: "relay-1 friert 40 s vor einem Senden ein, über seine 30-s-Lease hinaus, während relay-2 läuft",
	}, Faults: []sim.Fault{f}, Relays: 2,
		Situations: []sim.Situation{sim.LeaseTakenOver}, Story: stallStory}
}

// stallStory tells the stall row: what a lease guarantees, and what it
// does not (chapter 000 section 5).
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

// stallOutage is the stall-outage row: the stall row, and the broker goes
// down at 35 s, after relay-2 took relay-1's claim over and sent and
// marked it, before relay-1 resumes: relay-1's late send fails, and its
// lease is long gone. Recording that failure would write over relay-2's
// SENT: the fence guards a failed send as it guards a successful one.
func stallOutage() sim.Point {
	return sim.Point{ID: "stall-outage", Kind: sim.KindFault, Description: lang.Text{
		EN: "as stall, and the broker is down when relay-1 resumes: its late send fails",
		DE: "wie stall, und der Broker ist weg, wenn relay-1 weitermacht: sein spätes Senden scheitert",
	}, Relays: 2, MinRelays: 2, Faults: []sim.Fault{
		{Kind: sim.FaultStall, Process: "relay-1", Point: "relay.before-send", For: 40 * time.Second},
		{Kind: sim.FaultOutage, From: 35 * time.Second, For: 10 * time.Minute},
	}, Situations: []sim.Situation{sim.LeaseTakenOver}}
}

// stallRelease is the stall-release row: relay-1 starts at 6 s, when the
// whole workload is committed, claims it in one batch and freezes before
// its first send for 40 s, past its lease; relay-2 starts at 30 s, takes
// the batch over when relay-1's lease runs out at 36 s, and freezes before
// its first send too, for 20 s, holding it. The broker is down from 40 s.
// relay-1's late send fails at 46 s: recording the failure must leave
// relay-2's claims alone, the rest of the batch included, which relay-1
// would otherwise hand back for anyone to claim while relay-2's lease
// still runs. The release is fenced like a mark.
func stallRelease() sim.Point {
	return sim.Point{ID: "stall-release", Kind: sim.KindFault, Description: lang.Text{
		EN: "relay-1's late send fails while relay-2 holds the rest of its batch: relay-1 must not hand that back",
		DE: "das späte Senden von relay-1 scheitert, während relay-2 den Rest seines Batches hält: relay-1 darf ihn nicht zurückgeben",
	}, Relays: 2, MinRelays: 2, Faults: []sim.Fault{
		{Kind: sim.FaultKill, Process: "relay-1", From: 0, For: 6 * time.Second},
		{Kind: sim.FaultKill, Process: "relay-2", From: 0, For: 30 * time.Second},
		{Kind: sim.FaultStall, Process: "relay-1", Point: "relay.before-send", For: 40 * time.Second},
		{Kind: sim.FaultStall, Process: "relay-2", Point: "relay.before-send", For: 20 * time.Second},
		{Kind: sim.FaultOutage, From: 40 * time.Second, For: time.Minute},
	}, Situations: []sim.Situation{sim.LeaseTakenOver}}
}

// markConflict is the mark-conflict row: two relays; relay-1 freezes 40 s
// with its mark written and not committed, past its lease, while relay-2
// takes the message over, sends and marks it; then relay-1 commits its
// mark, and the database refuses it: another transaction committed the
// row first. A stale mark refused is the end of a race, not an error.
func markConflict() sim.Point {
	return sim.Point{ID: "mark-conflict", Kind: sim.KindFault, Description: lang.Text{
		EN: "relay-1 freezes 40 s with its mark not committed, while relay-2 takes over and marks",
		DE: "relay-1 friert 40 s mit nicht committeter Markierung ein, während relay-2 übernimmt und markiert",
	}, Relays: 2, MinRelays: 2, Faults: []sim.Fault{
		{Kind: sim.FaultStall, Process: "relay-1", Point: "relay.before-mark", For: 40 * time.Second},
	}, Situations: []sim.Situation{sim.LeaseTakenOver, sim.WriteConflict}}
}

// failureConflict is the failure-conflict row: the mark-conflict row, but
// the broker is down for the second in which relay-1 sends, so that what
// relay-1 holds uncommitted for 40 s is the record of a failed send; the
// database refuses it as it refuses a stale SENT.
func failureConflict() sim.Point {
	p := markConflict()
	p.ID = "failure-conflict"
	p.Description = lang.Text{
		EN: "as mark-conflict, but relay-1's send failed: its record of the failure is refused",
		DE: "wie mark-conflict, aber das Senden von relay-1 scheiterte: sein Eintrag des Fehlschlags wird abgewiesen",
	}
	p.Faults = append(p.Faults, sim.Fault{Kind: sim.FaultOutage, From: time.Second, For: time.Second})
	return p
}
