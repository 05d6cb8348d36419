package verify

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"outboxlab/lang"
)

// Round is one run of the relay in a world of its own: a fresh database
// and broker, Instances relay processes, the workload, and Faults.
type Round struct {
	Name      string
	Text      lang.Text
	Instances int
	Faults    []Fault
	// Seed draws the workload's commands after the standard ones;
	// Commands is how many.
	Seed     uint64
	Commands int
	// Consumer says the round grades a consumer (ConsumerRounds), its
	// faults are the consumer rounds' kinds.
	Consumer bool
}

// FaultAt is the produce request the standard rounds aim their fault at:
// the second, so that the relay has started and published once.
const FaultAt = 2

// Rounds returns the standard rounds and random ones drawn from seed:
// three instances without a fault, one round for each fault kind, one
// instance alone whose database connections are terminated, then random
// rounds of two or three faults each.
func Rounds(seed uint64, random int) []Round {
	rounds := []Round{{Name: "three-instances", Instances: 3, Seed: seed, Commands: 24, Text: lang.Text{
		EN: "three instances, no fault: no row may be sent by two of them",
		DE: "drei Instanzen, keine Störung: keine Zeile darf von zweien gesendet werden"}}}
	for _, d := range faultDefs {
		rounds = append(rounds, Round{Name: string(d.kind), Text: d.text, Instances: max(d.instances, 2),
			Faults: []Fault{{Kind: d.kind, At: FaultAt}}, Seed: seed, Commands: 12})
	}
	rounds = append(rounds, Round{Name: Alone, Instances: 1, Faults: []Fault{{Kind: ConnectionKilled, At: FaultAt}}, Seed: seed, Commands: 12, Text: lang.Text{
		EN: "one instance alone, its database connections terminated when the broker has stored its produce: nobody covers for it",
		DE: "eine Instanz allein, ihre Datenbankverbindungen beendet, wenn der Broker ihr Produce gespeichert hat: niemand springt für sie ein"}})
	for i := 1; i <= random; i++ {
		rounds = append(rounds, RandomRound(seed, i))
	}
	return rounds
}

// Alone is the round in which one instance runs alone, and its database
// connections are terminated.
const Alone = "db-connection-killed-alone"

// RandomRound draws the i-th random round of seed: two or three
// instances, two or three faults of different kinds aimed at different
// produce requests among the first six, and a workload of its own.
func RandomRound(seed uint64, i int) Round {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	r := Round{Name: fmt.Sprintf("random-%d", i), Instances: 2 + rng.IntN(2), Seed: seed + uint64(i), Commands: 10 + rng.IntN(10)}
	kinds := rng.Perm(len(faultDefs))
	ats := rng.Perm(6)
	var said []string
	for j := range 2 + rng.IntN(2) {
		f := Fault{Kind: faultDefs[kinds[j]].kind, At: 1 + ats[j]}
		r.Faults = append(r.Faults, f)
		said = append(said, f.String())
	}
	slices.SortFunc(r.Faults, func(a, b Fault) int { return a.At - b.At })
	r.Text = lang.Textf(lang.Text{EN: "%d instances, faults drawn from the seed: %s", DE: "%d Instanzen, Störungen aus dem Seed gezogen: %s"},
		r.Instances, strings.Join(said, ", "))
	return r
}

// With returns the round with f added to its faults (a replay stages the
// round's own timing so), and the instances f needs.
func (r Round) With(f Fault) Round {
	r.Faults = append(slices.Clone(r.Faults), f)
	slices.SortStableFunc(r.Faults, func(a, b Fault) int { return a.At - b.At })
	r.Instances = max(r.Instances, defOf(f.Kind).instances)
	r.Text = lang.Textf(lang.Text{EN: "%s; and %s", DE: "%s; und %s"}, r.Text, f.String())
	return r
}

// Select returns the rounds named, in the order given; an unknown name is
// an error that lists the valid ones.
func Select(all []Round, names []string) ([]Round, error) {
	if len(names) == 0 {
		return all, nil
	}
	var out []Round
	for _, n := range names {
		i := slices.IndexFunc(all, func(r Round) bool { return r.Name == n })
		if i < 0 {
			var valid []string
			for _, r := range all {
				valid = append(valid, r.Name)
			}
			return nil, fmt.Errorf("unknown round %q (valid: %s)", n, strings.Join(valid, ", "))
		}
		out = append(out, all[i])
	}
	return out, nil
}
