package sim_test

import (
	"errors"
	"slices"
	"testing"

	"outboxlab/effect"
	"outboxlab/orders"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// crashSwallowingRelay is the reference relay in a learner's loop that
// takes every error of a step for one it can log and go on from,
// effect.ErrCrashed included. It claims to be correct.
func crashSwallowingRelay() variant.Variant {
	v := variant.Outbox()
	v.Name = "crash-swallowing-relay"
	v.NewRelay = func(env variant.Env) (variant.Relay, error) {
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return swallowsCrash{variant.AdaptRelay(r)}, nil
	}
	return v
}

type swallowsCrash struct{ variant.Relay }

func (r swallowsCrash) Step() (bool, error) {
	did, err := r.Relay.Step()
	if errors.Is(err, effect.ErrCrashed) {
		return did, nil // "logged"
	}
	return did, err
}

// crashSwallowingService answers its client with success when the
// process crashed under it.
type crashSwallowingService struct{ variant.Service }

func (s crashSwallowingService) Handle(c orders.Command) error {
	if err := s.Service.Handle(c); !errors.Is(err, effect.ErrCrashed) {
		return err
	}
	return nil
}

// TestARelayThatSwallowsItsCrashIsNamed: a relay whose step returns nil
// after its process crashed at relay.after-send was LATE there (the dead
// relay "ended a step" holding its claim), with a hint about held claims;
// now the cell names the swallowed crash and its outcome is the run's
// own. The reference hands its crash back.
func TestARelayThatSwallowsItsCrashIsNamed(t *testing.T) {
	p, err := scenarios.FindPoint("relay.after-send")
	if err != nil {
		t.Fatal(err)
	}
	want := "relay-1 crashed at relay.after-send, and its step went on and returned no error instead of effect.ErrCrashed"
	for _, c := range []struct {
		v         variant.Variant
		swallowed bool
	}{{crashSwallowingRelay(), true}, {variant.Outbox(), false}} {
		cell, err := scenarios.Matrix().RunCell(c.v, p)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(cell.Swallowed, want); got != c.swallowed || cell.Matches() == c.swallowed {
			t.Errorf("%s: swallowed %q, matches %v; want %q: %v", c.v.Name, cell.Swallowed, cell.Matches(), want, c.swallowed)
		}
		if cell.Outcome != variant.OK {
			t.Errorf("%s: %s, want OK: %v", c.v.Name, cell.Outcome, cell.Violations)
		}
		if c.swallowed && (cell.MisstepRun == nil || cell.MisstepRun.Name() != "relay.after-send@1") {
			t.Errorf("%s: replay %+v, want relay.after-send@1", c.v.Name, cell.MisstepRun)
		}
	}
}

// TestAServiceThatAnswersAfterItsCrashIsNamed: a service that tells its
// client "done" although its process died under the command is named, and
// the answer does not count: nobody received it.
func TestAServiceThatAnswersAfterItsCrashIsNamed(t *testing.T) {
	v := variant.Outbox()
	v.Name = "crash-swallowing-service"
	v.NewService = func(env variant.Env) (variant.Service, error) {
		s, err := variant.NewOutboxService(env)
		return crashSwallowingService{s}, err
	}
	cfg := scenarios.Matrix().Config(v)
	cfg.Crashes = []sim.Crash{{Point: "service.before-commit", Occurrence: 1}}
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := "service crashed at service.before-commit, and its command went on and returned no error instead of effect.ErrCrashed"
	if !slices.Equal(res.Swallowed, []string{want}) || res.Outcome != variant.OK {
		t.Fatalf("swallowed %q, outcome %s %v; want %q and OK (the answer nobody got is not an acknowledgement)", res.Swallowed, res.Outcome, res.Violations, want)
	}
}

// sendCrashAsBrokerError is a relay's gate that takes a crash at the
// send for a broker's error: the reference relay then records the failure,
// which crosses a boundary as a dead process; the gate refuses it, and the
// step returns that refusal, effect.ErrCrashed.
type sendCrashAsBrokerError struct{ effect.Gate }

func (g sendCrashAsBrokerError) Cross(b effect.Boundary, do func() error) error {
	err := g.Gate.Cross(b, do)
	if b == outbox.BoundarySend && errors.Is(err, effect.ErrCrashed) {
		return errors.New("send failed") // "a broker error"
	}
	return err
}

// TestARelayThatGoesOnAfterItsCrashIsNamedWhateverItReturns: a step that
// swallows its crash and returns the crash of a later boundary, which the
// gate refused because its process was dead, returned effect.ErrCrashed
// and passed; the gate knows it crossed a boundary after its crash, so
// it is a swallowed crash. The reference, which hands its crash back at
// once, is not named.
func TestARelayThatGoesOnAfterItsCrashIsNamedWhateverItReturns(t *testing.T) {
	p, err := scenarios.FindPoint("relay.after-send")
	if err != nil {
		t.Fatal(err)
	}
	broken := variant.Outbox()
	broken.Name = "send-crash-as-broker-error"
	broken.NewRelay = func(env variant.Env) (variant.Relay, error) {
		env.Gate = sendCrashAsBrokerError{env.Gate}
		r, err := variant.ReferenceRelay(env, nil)
		if err != nil {
			return nil, err
		}
		return variant.AdaptRelay(r), nil
	}
	want := "relay-1 crashed at relay.after-send, and its step went on and tried relay.mark as a dead process instead of returning effect.ErrCrashed"
	for _, c := range []struct {
		v         variant.Variant
		swallowed bool
	}{{broken, true}, {variant.Outbox(), false}} {
		cell, err := scenarios.Matrix().RunCell(c.v, p)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(cell.Swallowed, want); got != c.swallowed || cell.Matches() == c.swallowed {
			t.Errorf("%s: swallowed %q, matches %v; want %q: %v", c.v.Name, cell.Swallowed, cell.Matches(), want, c.swallowed)
		}
	}
}
