package sim

import (
	"slices"

	"outboxlab/broker"
	"outboxlab/sim/check"
)

// The budgets of a run come from the policies the variant declares
// (variant.Variant.Policy; the course's where it declares none), derived
// in check from them and the faults the run plans: how often a message
// may be published (STORM), whether a dead letter was giving up
// (GAVE_UP), how long a relay may pause (LATE), how long a SENT message
// must be kept (UNSAFE). The lab bounds every policy (check.PolicyFindings).

// plannedFaults returns what the run's faults ask of the policies.
func (w *world) plannedFaults() check.Faults {
	var f check.Faults
	billing := map[broker.Target]*check.MessageFaults{}
	var order []broker.Target
	message := func(t broker.Target) *check.MessageFaults {
		m, ok := billing[t]
		if !ok {
			m = &check.MessageFaults{AggregateID: t.AggregateID, Sequence: t.Sequence}
			billing[t] = m
			order = append(order, t)
		}
		return m
	}
	b := budgetFaults{message: message}
	for _, fault := range w.cfg.Faults {
		if spec, ok := fault.Kind.Spec(); ok && spec.budget != nil {
			spec.budget(fault, &b)
		}
	}
	f = b.Faults
	for _, t := range order {
		f.Billing = append(f.Billing, *billing[t])
	}
	return f
}

// downFaults returns f with the outages the operator met (OpFix's) added:
// the broker is down then too, for the relays' pause to outlast.
func (w *world) downFaults(f check.Faults) check.Faults {
	f.Outages = append(slices.Clone(f.Outages), w.ops.outages...)
	return f
}

// interruptions counts what may make a relay send a message once more
// than its policy says, or start its pause anew: every crash, stall, kill
// and failed commit of the run.
func (w *world) interruptions() int { return len(w.fired) + w.stalled + w.killed + w.failed }

// exercise is what the run put the policies to (check.PolicyFindings).
func (w *world) exercise() check.Exercise {
	_, refused := w.broker.Publishes()
	return check.Exercise{Faults: w.plannedFaults(), Refused: refused, Kills: w.killed}
}
