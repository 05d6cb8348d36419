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

var timeoutStored = withBudget(messageFault(FaultTimeoutStored, lang.Text{
	EN: "the relay's publish of the target times out; the broker stored it",
	DE: "das Senden der Nachricht läuft in einen Timeout; der Broker hat sie gespeichert",
}, (*broker.Broker).TimeoutStored), timeout)

var timeoutDropped = withBudget(messageFault(FaultTimeoutDropped, lang.Text{
	EN: "the relay's publish of the target times out; the broker never got it",
	DE: "das Senden der Nachricht läuft in einen Timeout; der Broker hat sie nie erhalten",
}, (*broker.Broker).TimeoutDropped), timeout)

var duplicate = messageFault(FaultDuplicate, lang.Text{
	EN: "the broker delivers the target twice",
	DE: "der Broker stellt die Nachricht zweimal zu",
}, (*broker.Broker).Duplicate)

var reorder = messageFault(FaultReorder, lang.Text{
	EN: "the target is delivered after the next message of its order",
	DE: "die Nachricht wird nach der nächsten ihrer Bestellung zugestellt",
}, (*broker.Broker).Reorder)

var poison = withBudget(messageFault(FaultPoison, lang.Text{
	EN: "the target can never be processed until its cause is fixed",
	DE: "die Nachricht lässt sich erst verarbeiten, wenn ihre Ursache behoben ist",
}, (*broker.Broker).Poison), unprocessable)

var rejected = withBudget(messageFault(FaultRejected, lang.Text{
	EN: "the broker refuses the target until its cause is fixed",
	DE: "der Broker weist die Nachricht ab, bis ihre Ursache behoben ist",
}, (*broker.Broker).Reject), func(_ Fault, b *budgetFaults) { b.Rejected = true })

var unknownVersion = withBudget(messageFault(FaultUnknownVersion, lang.Text{
	EN: "the target arrives in a version billing does not know yet, until it is upgraded",
	DE: "die Nachricht kommt in einer Version an, die Billing noch nicht kennt, bis es aktualisiert ist",
}, (*broker.Broker).NewerVersion), unknown)

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
	return s
}()

var corruptOnce = withBudget(messageFault(FaultCorruptOnce, lang.Text{
	EN: "the target arrives corrupted once (in transit), then intact: billing must try it again, not give it up",
	DE: "die Nachricht kommt einmal beschädigt an (unterwegs), dann unversehrt: Billing muss es erneut versuchen, nicht aufgeben",
}, (*broker.Broker).CorruptOnce), func(f Fault, b *budgetFaults) { b.message(f.Target).Corrupted++ })

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
