package sqlitelab

import (
	"context"
	"testing"

	"github.com/jackc/pglogrepl"

	"outboxlab/alternatives/cdc"
	"outboxlab/lab/check"
	"outboxlab/real/pglab"
)

// portConfirmsFirst is a broken port of the cdc relay, claiming to be the
// simulator's cdc: it confirms a transaction to the slot when the
// transaction begins, before it published the transaction's inserts (the
// WAL reader's mark-before-send).
var portConfirmsFirst = Variant{Name: "port-cdc-confirms-first", sim: "cdc", handle: (*service).handleCDC, cdc: true, postgres: true, maxRelays: 1, cdcStep: (*cdcRelay).stepConfirmFirst}

func (r *cdcRelay) stepConfirmFirst() (bool, error) {
	msg, err := r.receive()
	if err != nil || msg == nil {
		return false, err
	}
	switch m := msg.(type) {
	case *pglogrepl.BeginMessage:
		r.confirmed = m.FinalLSN + 1 // past the transaction's commit record
		return true, r.gate.Cross(cdc.BoundaryOffset, r.confirm)
	case *pglogrepl.CommitMessage:
		return true, nil
	}
	return true, r.change(msg)
}

// TestACDCRelayThatConfirmsFirstIsCaught kills the CDC relay right after it
// confirmed a position to its slot (relay.after-offset), the reference and
// the broken port: the reference confirmed what it published, and its
// successor resumes after it (OK, as the simulator's cdc at the same
// point); the port confirmed a transaction it had not published, and its
// successor never gets it (LOST). The real matrix has the point now, and
// its differential catches the port; before, relay.after-offset was no
// point of the real matrix, and the port passed it.
func TestACDCRelayThatConfirmsFirstIsCaught(t *testing.T) {
	if err := pglab.Available(); err != nil {
		if testing.Short() {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	server, err := pglab.StartServer()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Stop()
	dsn, err := server.EmptyDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	exe, args := program(t)
	for _, tc := range []struct {
		variant string
		want    check.Outcome
	}{{"cdc", check.OK}, {portConfirmsFirst.Name, check.Lost}} {
		rc := Config{Variant: tc.variant, Relays: 1, Crash: "relay.after-offset", Occurrence: 2, Program: exe, Args: args, Postgres: dsn}
		res, err := Run(rc)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Fired || res.Outcome != tc.want {
			t.Errorf("%s at relay.after-offset@2: fired %v, %s, want %s: %v\n%s", tc.variant, res.Fired, res.Outcome, tc.want, res.Violations, timeline(res))
		}
		sim, err := SimTimeline(rc)
		if err != nil {
			t.Fatal(err)
		}
		if last := sim[len(sim)-1]; last != "verdict: OK" {
			t.Errorf("the simulator's cdc at relay.after-offset@2: %s, want OK", last)
		}
	}
	cells, err := Matrix(MatrixConfig{Variants: []string{"cdc", portConfirmsFirst.Name}, Points: []string{"relay.after-offset"}, Program: exe, Args: args, Postgres: []string{dsn}})
	if err != nil {
		t.Fatal(err)
	}
	if ref, port := cells[0], cells[1]; !ref.Agrees() || port.Agrees() || port.Outcome != "LOST" || port.Sim != "OK" {
		t.Errorf("the matrix at relay.after-offset: cdc %s (simulator %s), the port %s (simulator %s); want cdc to agree and the port LOST against OK", ref.Outcome, ref.Sim, port.Outcome, port.Sim)
	}
}
