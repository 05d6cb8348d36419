package sim

import (
	"fmt"

	"outboxlab/broker"
	"outboxlab/lang"
	"outboxlab/orders"
)

// The faults aimed at one message (a Target): the broker's, in what it
// stores or delivers, and a producer's, in what the message says.

// targetForm is how a story file writes a fault aimed at one message.
const targetForm = "TARGET"

// messageFault is a fault aimed at one message, which install hands to
// the broker; exploration draws its target among the workload's events.
func messageFault(kind FaultKind, text lang.Text, install func(*broker.Broker, broker.Target)) FaultSpec {
	return FaultSpec{
		Kind: kind, Text: text, Form: targetForm,
		parse: func(f *Fault, args []string, _ Known) (err error) {
			if err = argsWant(kind, args, 1, targetForm+" (e.g. o-1#1)"); err == nil {
				f.Target, err = ParseTarget(args[0])
			}
			return err
		},
		validate: validTarget,
		install:  func(w *world, f Fault) { install(w.broker, f.Target) },
		draw: func(d *FaultDraw) (Fault, bool) {
			return Fault{Target: d.Events[d.Src.Intn("target", len(d.Events))]}, true
		},
	}
}

// validTarget names a target without an aggregate id or sequence.
func validTarget(f Fault, _ Config) error {
	if f.Target.AggregateID == "" || f.Target.Sequence < 1 {
		return fmt.Errorf("sim: %s: target %q needs an aggregate id and a sequence >= 1", f.Kind, f.Target)
	}
	return nil
}

// timeout counts a publish timeout, either branch, in the budgets.
func timeout(_ Fault, b *budgetFaults) { b.Timeouts++ }

// unprocessable marks the target as one billing cannot process until
// the operator's fix.
func unprocessable(f Fault, b *budgetFaults) { b.message(f.Target).Unprocessable = true }

// unknown marks the target as one billing does not know until upgraded.
func unknown(f Fault, b *budgetFaults) { b.message(f.Target).Unknown = true }

// notDrawnAsIs is the budget-less, draw-less copy of s with why.
func notDrawnAsIs(s FaultSpec, why string) FaultSpec {
	s.draw, s.NotDrawn = nil, why
	return s
}

var timeoutStored = withRows(withBudget(messageFault(FaultTimeoutStored, lang.Text{
	EN: "the relay's publish of the target times out; the broker stored it",
	DE: "das Senden der Nachricht läuft in einen Timeout; der Broker hat sie gespeichert",
}, (*broker.Broker).TimeoutStored), timeout),
	aimedRow(30, FaultTimeoutStored, lang.Text{
		EN: "the relay's publish of o-1#1 times out; the broker stored it",
		DE: "das Senden von o-1#1 läuft in einen Timeout; der Broker hat die Nachricht gespeichert",
	}, Retried, Redelivered))

var timeoutDropped = withRows(withBudget(messageFault(FaultTimeoutDropped, lang.Text{
	EN: "the relay's publish of the target times out; the broker never got it",
	DE: "das Senden der Nachricht läuft in einen Timeout; der Broker hat sie nie erhalten",
}, (*broker.Broker).TimeoutDropped), timeout),
	aimedRow(40, FaultTimeoutDropped, lang.Text{
		EN: "the relay's publish of o-1#1 times out; the broker never got it",
		DE: "das Senden von o-1#1 läuft in einen Timeout; der Broker hat die Nachricht nie erhalten",
	}, Retried))

var duplicate = withRows(messageFault(FaultDuplicate, lang.Text{
	EN: "the broker delivers the target twice",
	DE: "der Broker stellt die Nachricht zweimal zu",
}, (*broker.Broker).Duplicate),
	aimedRow(50, FaultDuplicate, lang.Text{
		EN: "the broker delivers o-1#1 twice",
		DE: "der Broker stellt o-1#1 zweimal zu",
	}, Redelivered))

var reorder = withRows(messageFault(FaultReorder, lang.Text{
	EN: "the target is delivered after the next message of its order",
	DE: "die Nachricht wird nach der nächsten ihrer Bestellung zugestellt",
}, (*broker.Broker).Reorder),
	aimedRow(60, FaultReorder, lang.Text{
		EN: "o-1#1 is delivered after o-1#2",
		DE: "o-1#1 wird nach o-1#2 zugestellt",
	}, GapParked))

var poison = withRows(withBudget(messageFault(FaultPoison, lang.Text{
	EN: "the target can never be processed until its cause is fixed",
	DE: "die Nachricht lässt sich erst verarbeiten, wenn ihre Ursache behoben ist",
}, (*broker.Broker).Poison), unprocessable),
	aimedRow(70, FaultPoison, lang.Text{
		EN: "o-1#1 can never be processed until its cause is fixed",
		DE: "o-1#1 lässt sich erst verarbeiten, wenn ihre Ursache behoben ist",
	}, BillingDeadLettered, ReplayedBeforeFix, DeadLetterReplayed, ReplayedTwice))

var rejected = withRows(withBudget(messageFault(FaultRejected, lang.Text{
	EN: "the broker refuses the target until its cause is fixed",
	DE: "der Broker weist die Nachricht ab, bis ihre Ursache behoben ist",
}, (*broker.Broker).Reject), func(_ Fault, b *budgetFaults) { b.Rejected = true }),
	FaultRow{Column: 110, Point: rejectedRow})

// rejectedRow is the rejected row: the broker refuses o-1#1 and o-3#1
// until their causes are fixed, so both become dead letters, and it is the
// row of the operator's work (DefaultOperations). The operator replays
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
func rejectedRow() Point {
	return Point{ID: string(FaultRejected), Kind: KindFault, Description: lang.Text{
		EN: "the broker refuses o-1#1 and o-3#1 until their causes are fixed, one after the other",
		DE: "der Broker weist o-1#1 und o-3#1 ab, bis ihre Ursachen behoben sind, eine nach der anderen",
	}, Faults: []Fault{
		{Kind: FaultRejected, Target: broker.Target{AggregateID: "o-1", Sequence: 1}},
		{Kind: FaultRejected, Target: broker.Target{AggregateID: "o-3", Sequence: 1}},
	}, Situations: []Situation{DeadLettered, CleanedUp, RetentionKept, DeadLetterKept, ReplayedBeforeFix,
		DeadLetterReplayed, ReplayRefused, ReplayedKept, ReplayedTwice}}
}

var unknownVersion = withRows(withBudget(messageFault(FaultUnknownVersion, lang.Text{
	EN: "the target arrives in a version billing does not know yet, until it is upgraded",
	DE: "die Nachricht kommt in einer Version an, die Billing noch nicht kennt, bis es aktualisiert ist",
}, (*broker.Broker).NewerVersion), unknown),
	FaultRow{Column: 90, Point: unknownContractRow})

// unknownContractRow is the unknown-contract row, about both unknown
// kinds and declared with the version's: a producer deployed ahead of
// billing sends o-1#2 in a version and o-2#1 as a type billing does not
// know. Billing must put each aside at once, as a visible dead letter
// (chapter 000's quarantine for faulty event versions), not retry it and
// not misread it, and apply it once it is upgraded and the dead letters
// are replayed; o-1's later amendment waits for #2 meanwhile.
func unknownContractRow() Point {
	return Point{ID: "unknown-contract", Kind: KindFault, Description: lang.Text{
		EN: "o-1#2 arrives in a version and o-2#1 as a type billing does not know yet, until it is upgraded",
		DE: "o-1#2 kommt in einer Version und o-2#1 als Typ an, die Billing noch nicht kennt, bis es aktualisiert ist",
	}, Faults: []Fault{
		{Kind: FaultUnknownVersion, Target: broker.Target{AggregateID: "o-1", Sequence: 2}},
		{Kind: FaultUnknownType, Target: broker.Target{AggregateID: "o-2", Sequence: 1}},
	}, Situations: []Situation{BillingDeadLettered, GapParked, DeadLetterReplayed}}
}

var unknownType = withBudget(messageFault(FaultUnknownType, lang.Text{
	EN: "the target arrives as a type billing does not know yet, until it is upgraded",
	DE: "die Nachricht kommt als Typ an, den Billing noch nicht kennt, bis es aktualisiert ist",
}, (*broker.Broker).UnknownType), unknown)

// wrongCurrency aims at an amendment only: it changes an amendment's
// amount.
var wrongCurrency = func() FaultSpec {
	s := withBudget(messageFault(FaultWrongCurrency, lang.Text{
		EN: "the target, an amendment, arrives with its amount in another currency than its order's, until fixed",
		DE: "die Nachricht, eine Änderung, kommt mit ihrem Betrag in einer anderen Währung als der ihrer Bestellung an, bis das behoben ist",
	}, (*broker.Broker).WrongCurrency), unprocessable)
	s.validate = func(f Fault, c Config) error {
		if err := validTarget(f, c); err != nil {
			return err
		}
		if kind, ok := EventKinds(c.Workload)[f.Target]; ok && kind != orders.Amend {
			return fmt.Errorf("sim: %s: target %q is made by a %s command, want an amendment (an amend command's event)", f.Kind, f.Target, kind)
		}
		return nil
	}
	s.draw = func(d *FaultDraw) (Fault, bool) {
		if len(d.Amendments) == 0 {
			return Fault{}, false
		}
		return Fault{Target: d.Amendments[d.Src.Intn("target", len(d.Amendments))]}, true
	}
	return withRows(s, FaultRow{Column: 100, Point: wrongCurrencyRow})
}()

// wrongCurrencyRow is the wrong-currency row: o-1's amendment #2 arrives
// with its amount in another currency than the order's (a producer's
// mapping bug, until the operator's fix), and before o-1#1. Billing can
// read it: it parks it, waiting for #1. When #1 comes and #2's turn with
// it, billing cannot add the amount to the order's account: #2 must
// become a visible dead letter, not vanish with the parking it leaves,
// and be applied once the cause is fixed and the dead letters are
// replayed.
func wrongCurrencyRow() Point {
	return Point{ID: string(FaultWrongCurrency), Kind: KindFault, Description: lang.Text{
		EN: "o-1#2 arrives before o-1#1 with its amount in another currency, until fixed: billing parks it and cannot apply it when its turn comes",
		DE: "o-1#2 kommt vor o-1#1 und mit ihrem Betrag in einer anderen Währung an, bis das behoben ist: Billing parkt sie und kann sie nicht anwenden, wenn sie an der Reihe ist",
	}, Faults: []Fault{
		{Kind: FaultReorder, Target: broker.Target{AggregateID: "o-1", Sequence: 1}},
		{Kind: FaultWrongCurrency, Target: broker.Target{AggregateID: "o-1", Sequence: 2}},
	}, Situations: []Situation{GapParked, BillingDeadLettered, DeadLetterReplayed}}
}

var corruptOnce = withRows(withBudget(messageFault(FaultCorruptOnce, lang.Text{
	EN: "the target arrives corrupted once (in transit), then intact: billing must try it again, not give it up",
	DE: "die Nachricht kommt einmal beschädigt an (unterwegs), dann unversehrt: Billing muss es erneut versuchen, nicht aufgeben",
}, (*broker.Broker).CorruptOnce), func(f Fault, b *budgetFaults) { b.message(f.Target).Corrupted++ }),
	aimedRow(80, FaultCorruptOnce, lang.Text{
		EN: "o-1#1 arrives corrupted once (in transit), then intact: billing must try it again, not give it up",
		DE: "o-1#1 kommt einmal beschädigt an (unterwegs), dann unversehrt: Billing muss es erneut versuchen, nicht aufgeben",
	}, Redelivered))

var extraField = notDrawnAsIs(messageFault(FaultExtraField, lang.Text{
	EN: "the target arrives with a field billing does not know yet, type and version unchanged: a compatible extension",
	DE: "die Nachricht kommt mit einem Feld an, das Billing noch nicht kennt, Typ und Version unverändert: eine kompatible Erweiterung",
}, (*broker.Broker).ExtraField),
	"a compatible extension breaks nothing in a consumer that decodes with encoding/json; the story compatible-change shows it, and a draw would test the decoder, which domain's fuzz targets do")

// delay holds the target back for For while the messages after it pass.
var delay = FaultSpec{
	Kind: FaultDelay, Form: "TARGET FOR",
	Text: lang.Text{
		EN: "the broker holds the target back for a while; the messages after it pass",
		DE: "der Broker hält die Nachricht eine Weile zurück; die Nachrichten danach gehen durch",
	},
	parse: func(f *Fault, args []string, _ Known) (err error) {
		if err = argsWant(FaultDelay, args, 2, "TARGET FOR"); err == nil {
			if f.Target, err = ParseTarget(args[0]); err == nil {
				err = durations(args[1:], &f.For)
			}
		}
		return err
	},
	validate: validTarget,
	install:  func(w *world, f Fault) { w.broker.Delay(f.Target, f.For) },
	describe: func(f Fault) string { return fmt.Sprintf("%s %s by %s", f.Kind, f.Target, f.For) },
	NotDrawn: "the gaps it opens in an order's events, exploration opens with reorder (at once) and with a relay " +
		"stalled for up to 90 s while another relay sends on; the stories use it to open a gap at a chosen time",
}

// withBudget is s with its budget.
func withBudget(s FaultSpec, budget func(Fault, *budgetFaults)) FaultSpec {
	s.budget = budget
	return s
}
