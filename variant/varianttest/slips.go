package varianttest

import (
	"fmt"

	"outboxlab/lang"
	"outboxlab/variant"
)

// A Slip is one frame with one thing switched off or wrong.
type Slip struct {
	// Frame is "relay", "consumer" or "service"; Name the slip's, e.g.
	// "swallows-commit-errors".
	Frame, Name string
	// Does says in a line what the frame then does wrong.
	Does string
	// build returns the variant with the slip acting from its from-th
	// occasion on (its from-th failed commit, rejected send, ...).
	build func(from int) variant.Variant
}

// Variant returns the frame's variant with the slip acting from its
// from-th occasion on (1: at once), named "FRAME-NAME" (and "@FROM" past
// 1). It claims to be correct: it declares OK everywhere.
func (s Slip) Variant(from int) variant.Variant {
	v := s.build(max(from, 1))
	v.Name = s.Frame + "-" + s.Name
	if from > 1 {
		v.Name += fmt.Sprintf("@%d", from)
	}
	v.Summary, v.Expect = lang.Text{EN: "a learner's " + s.Frame + " that " + s.Does}, nil
	return v
}

// Slips returns every slip, relays first, then consumers, then services.
func Slips() []Slip {
	out := relaySlips()
	out = append(out, consumerSlips()...)
	return append(out, serviceSlips()...)
}

// Find returns the slip FRAME-NAME.
func Find(name string) (Slip, error) {
	for _, s := range Slips() {
		if s.Frame+"-"+s.Name == name {
			return s, nil
		}
	}
	return Slip{}, fmt.Errorf("varianttest: no slip %q", name)
}

// slipsOf returns the slips of one frame, named with what each does, each
// built by build (the slip's name, and from which occasion on it acts).
func slipsOf(frame string, slips [][2]string, build func(name string, from int) variant.Variant) []Slip {
	var out []Slip
	for _, s := range slips {
		name := s[0]
		out = append(out, Slip{Frame: frame, Name: name, Does: s[1], build: func(from int) variant.Variant { return build(name, from) }})
	}
	return out
}

// occasions counts a slip's occasions in one incarnation of a process and
// says from which one on it acts.
type occasions struct{ from, seen int }

// now counts one occasion and reports whether the slip acts on it.
func (o *occasions) now() bool {
	o.seen++
	return o.seen >= o.from
}
