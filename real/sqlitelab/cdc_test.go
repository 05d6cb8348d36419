package sqlitelab

import (
	"github.com/jackc/pglogrepl"

	"outboxlab/alternatives/cdc"
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
