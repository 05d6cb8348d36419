package verdict

import "outboxlab/variant"

// Group is every finding of one cause (for CauseOutcome, of one outcome):
// what a learner fixes at once.
type Group struct {
	Cause   Cause
	Outcome variant.Outcome
	// Findings are in stage order; the first is the one to replay.
	Findings []Finding
}

// First returns the group's first finding: the simplest run that shows
// the cause (the stages go from single crashes to random schedules).
func (g Group) First() Finding { return g.Findings[0] }

// Groups returns the findings by cause (for CauseOutcome, by outcome), in
// the order each cause was first found.
func (v Verdict) Groups() []Group {
	var out []Group
	for _, fs := range GroupBy(v.Findings, Finding.cause) {
		k := fs[0].cause()
		out = append(out, Group{Cause: k.cause, Outcome: k.outcome, Findings: fs})
	}
	return out
}

// causeKey is what makes two findings one cause: the cause, and for
// CauseOutcome the outcome (variant.NotApplicable for every other cause).
type causeKey struct {
	cause   Cause
	outcome variant.Outcome
}

// cause returns the finding's cause as Groups groups it.
func (f Finding) cause() causeKey {
	if f.Cause == CauseOutcome {
		return causeKey{f.Cause, f.Outcome}
	}
	return causeKey{f.Cause, variant.NotApplicable}
}

// GroupBy returns items grouped by key: the groups in the order each key
// was first met, the items of a group in their order. It is the lab's one
// grouping of what went wrong: the findings by cause (Groups), the red
// cells by outcome (Failures, labrun's summary), a mutant's red matrix
// cells by row (internal/mutation).
func GroupBy[T any, K comparable](items []T, key func(T) K) [][]T {
	var out [][]T
	at := map[K]int{}
	for _, it := range items {
		k := key(it)
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], it)
	}
	return out
}
