package metrics

import (
	"strconv"

	"outboxlab/billing"
	"outboxlab/domain"
	"outboxlab/insurance"
	"outboxlab/orders"
	"outboxlab/store"
)

// books compares, as the commit logs go, what the service committed with
// what the consumer applied: every version of an order (or a claim) is a
// change that must have its effect downstream (an invoice, a line, a
// credit; a payout), the same comparison the checker makes at the end of
// a run, here at every sample.
type books struct {
	versions map[string]int  // aggregate id: its committed version
	applied  map[string]bool // "id#seq": an effect exists
}

func newBooks() *books {
	return &books{versions: map[string]int{}, applied: map[string]bool{}}
}

// commit applies one commit of the service's database.
func (b *books) commit(c store.Commit) {
	for _, ch := range c.Changes {
		switch v := ch.Value.(type) {
		case domain.Order:
			if ch.Table == orders.Table {
				b.versions[v.ID] = v.Version
			}
		case domain.Claim:
			if ch.Table == insurance.TableClaims {
				b.versions[v.ID] = v.Version
			}
		}
	}
}

// effect applies one commit of the consumer's database.
func (b *books) effect(c store.Commit) {
	for _, ch := range c.Changes {
		switch v := ch.Value.(type) {
		case billing.Entry:
			if ch.Table == billing.TableLedger {
				b.applied[changeKey(v.OrderID, v.Sequence)] = true
			}
		case insurance.Payout:
			if ch.Table == insurance.TablePayouts {
				b.applied[changeKey(v.ClaimID, v.Sequence)] = true
			}
		}
	}
}

// missing counts the committed changes without their effect.
func (b *books) missing() int {
	n := 0
	for id, version := range b.versions {
		for seq := 1; seq <= version; seq++ {
			if !b.applied[changeKey(id, seq)] {
				n++
			}
		}
	}
	return n
}

func changeKey(id string, seq int) string { return id + "#" + strconv.Itoa(seq) }
