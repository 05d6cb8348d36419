package sim_test

import (
	"strings"
	"testing"
	"time"

	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// TestAnOutageOutlastsARestart: chapter 004's "Die Nachrichten zu diesen
// Fällen bleiben bis zum Ende der Störung in der Outbox gespeichert, auch
// wenn der Schadendienst in der Zwischenzeit neu startet", as the
// outage-restart row runs it. The reference keeps every message through
// the restart (OK, its relays killed and retrying); a relay that gives up
// at its restart what failed before it passes the plain outage and is
// GAVE_UP here: the row catches what broker-outage cannot.
func TestAnOutageOutlastsARestart(t *testing.T) {
	row, err := scenarios.FindPoint(string(sim.FaultOutageRestart))
	if err != nil {
		t.Fatal(err)
	}
	outage, err := scenarios.FindPoint(string(sim.FaultOutage))
	if err != nil {
		t.Fatal(err)
	}
	m := scenarios.Matrix()
	for _, relays := range []int{1, 2} {
		cfg := m.Config(variant.Outbox())
		row.Apply(&cfg)
		cfg.Relays = relays
		res, err := sim.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != variant.OK || res.Kills != 1+relays || res.Situations[sim.Retried] == 0 {
			t.Errorf("the reference with %d relay(s): %s, %d kills (want %d), retried %d times; violations %v",
				relays, res.Outcome, res.Kills, 1+relays, res.Situations[sim.Retried], res.Violations)
		}
	}

	giveUp := giveUpOnRestart()
	for _, c := range []struct {
		row  sim.Point
		want variant.Outcome
	}{{outage, variant.OK}, {row, variant.GaveUp}} {
		cell, err := m.RunCell(giveUp, c.row)
		if err != nil {
			t.Fatal(err)
		}
		if cell.Outcome != c.want {
			t.Errorf("%s at %s: %s, want %s", giveUp.Name, c.row.ID, cell.Outcome, c.want)
		}
	}
}

// giveUpOnRestart is the reference with a relay that, when it starts,
// dead-letters every message whose send failed before: "it failed before
// we went down, it will fail again". Under a plain outage it never
// restarts; under an outage that outlasts a restart it gives up messages
// the broker would have taken minutes later.
func giveUpOnRestart() variant.Variant {
	v := variant.Outbox()
	v.Name = "give-up-on-restart"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, v.RelayConfig)
		if err != nil {
			return nil, err
		}
		return giveUpRelay{variant.AdaptRelay(r), env}, nil
	}
	return v
}

type giveUpRelay struct {
	*variant.RelayAdapter
	env variant.Env
}

// Recover dead-letters the FAILED messages, then recovers as the
// reference does. WRONG: a failure before a restart says nothing about
// the broker after it.
func (r giveUpRelay) Recover() error {
	tx := r.env.OrderDB.Begin(r.env.Owner)
	defer tx.Rollback()
	n := 0
	for _, m := range outbox.Unsent(r.env.OrderDB) {
		if m.Status == outbox.Failed {
			m.Status, m.NextAttemptAt = outbox.DeadLetter, time.Time{}
			tx.Put(outbox.Table, m.Key, m)
			n++
		}
	}
	if n > 0 {
		if err := r.env.Gate.Cross(outbox.BoundaryRecover, tx.Commit); err != nil {
			return err
		}
	}
	return r.RelayAdapter.Recover()
}

// TestAStoryWritesAnOutageThatOutlastsARestart: a story file's fault line
// reads as the kind's Form says, and a restart that would fall after the
// outage is refused with what is valid.
func TestAStoryWritesAnOutageThatOutlastsARestart(t *testing.T) {
	f, err := sim.ParseFault(strings.Fields("outage-restart 1m 10m"), sim.Known{})
	if err != nil || f != (sim.Fault{Kind: sim.FaultOutageRestart, From: time.Minute, For: 10 * time.Minute}) {
		t.Fatalf("ParseFault: %+v, %v", f, err)
	}
	if f.String() != "outage-restart from 1m0s for 10m0s" {
		t.Errorf("String: %q", f.String())
	}
	if _, err := sim.ParseFault(strings.Fields("outage-restart 1m"), sim.Known{}); err == nil || !strings.Contains(err.Error(), `"fault outage-restart FROM FOR"`) {
		t.Errorf("one argument: %v, want the form named", err)
	}
	cfg := scenarios.Matrix().Config(variant.Outbox())
	cfg.Faults = []sim.Fault{{Kind: sim.FaultOutageRestart, For: 8 * time.Second}}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "twice RestartDelay") {
		t.Errorf("an outage of 8 s with a 5 s restart: %v, want refused", err)
	}
}
