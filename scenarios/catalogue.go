package scenarios

import (
	"fmt"
	"strings"

	"outboxlab/sim"
	"outboxlab/variant"
)

// Scenario is one named story: a configuration to run and a narrative that
// says what happens, what to learn, and which seed passage it illustrates.
type Scenario struct {
	Name    string
	Summary string
	// Narrative is a few sentences for the learner.
	Narrative string
	// Point is the matrix row whose declaration the run is judged by; ""
	// means the run is expected OK.
	Point string
	// Configure builds the run for a variant and seed.
	Configure func(v variant.Variant, seed uint64) sim.Config
}

// Catalogue returns the named scenarios.
func Catalogue() []Scenario {
	return []Scenario{
		{
			Name:    "happy-path",
			Summary: "the standard workload with no crash and no fault",
			Narrative: "Three orders are placed, one amended, one cancelled. Each change commits together with " +
				"its outbox row; the relay claims, sends and marks SENT; billing applies each event once, " +
				"in order. Seed 000, section 3.",
			Configure: func(v variant.Variant, seed uint64) sim.Config {
				return sim.DefaultConfig(v, Workload(), seed)
			},
		},
	}
}

// FindScenario resolves a scenario name: a named scenario of the catalogue,
// or a matrix point with an optional occurrence ("relay.after-send@2").
func FindScenario(name string) (Scenario, error) {
	for _, s := range Catalogue() {
		if s.Name == name {
			return s, nil
		}
	}
	id, k, err := sim.ParseScenarioPoint(name)
	if err != nil {
		return Scenario{}, err
	}
	p, err := FindPoint(id)
	if err != nil {
		var names []string
		for _, s := range Catalogue() {
			names = append(names, s.Name)
		}
		return Scenario{}, fmt.Errorf("unknown scenario %q (valid: %s, or a matrix point with an optional @K: see `labrun list`)", name, strings.Join(names, ", "))
	}
	summary := fmt.Sprintf("the standard workload with a crash at %s, occurrence %d", p.ID, k)
	if p.Kind == sim.KindFault {
		if k != 1 {
			return Scenario{}, fmt.Errorf("scenario %q: a fault row has no occurrences", name)
		}
		summary = "the standard workload under the broker fault " + p.ID
	}
	return Scenario{
		Name:    name,
		Summary: summary,
		Point:   p.ID,
		Configure: func(v variant.Variant, seed uint64) sim.Config {
			cfg := sim.DefaultConfig(v, Workload(), seed)
			if p.Kind == sim.KindFault {
				cfg.Faults = p.Faults
			} else {
				cfg.Crashes = []sim.Crash{{Point: p.ID, Occurrence: k}}
			}
			return cfg
		},
	}, nil
}
