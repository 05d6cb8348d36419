package sim

import (
	"fmt"

	"outboxlab/billing"
	"outboxlab/domain"
	"outboxlab/insurance"
	"outboxlab/orders"
	"outboxlab/sim/check"
)

// books returns what the checker compares, read from the durable tables:
// the committed orders and billing's ledger and accounts. A run of
// chapter 004's story (its database holds claims, not orders) is judged
// the same way: a released claim is a committed change, its payout the
// effect downstream that must exist exactly once, with the claim's amount
// (see check.Changes).
// terms are the words of the run's system the checker's sentences use:
// chapter 004's claims and payouts when the claims service's table is
// there, else the orders and billing.
func (w *world) terms() check.Terms {
	if w.orderDB.HasTable(insurance.TableClaims) {
		return check.ClaimTerms
	}
	return check.OrderTerms
}

func (w *world) books() ([]domain.Order, []billing.Entry, []billing.Account) {
	if !w.orderDB.HasTable(insurance.TableClaims) {
		return orders.All(w.orderDB), w.billingLedger(), billing.Accounts(w.billingDB)
	}
	var released []domain.Order
	for _, c := range insurance.Claims(w.orderDB) {
		released = append(released, domain.Order{ID: c.ID, Version: c.Version, Status: domain.Accepted, Total: c.Amount})
	}
	var payouts []billing.Entry
	paid := map[string]domain.Money{}
	var claims []string
	for i, p := range insurance.Payouts(w.billingDB) {
		payouts = append(payouts, billing.Entry{Key: fmt.Sprintf("%012d", i+1), OrderID: p.ClaimID, Sequence: p.Sequence, Kind: billing.Invoice, Amount: p.Amount, MessageID: p.MessageID})
		sum, seen := paid[p.ClaimID]
		if !seen {
			claims = append(claims, p.ClaimID)
			sum = domain.Money{Currency: p.Amount.Currency}
		}
		sum.Minor += p.Amount.Minor
		paid[p.ClaimID] = sum
	}
	// The payment service keeps no account: what it paid per claim is its
	// payouts' sum, which must equal the released amount.
	var accounts []billing.Account
	for _, id := range claims {
		accounts = append(accounts, billing.Account{OrderID: id, Billed: paid[id]})
	}
	return released, payouts, accounts
}

// billingLedger returns billing's ledger (billing.Ledger), read again only
// when billing committed since the last read: the end of the work and the
// judge read it, and the operator's work between them mostly commits
// nothing to billing. Its readers must not change it.
func (w *world) billingLedger() []billing.Entry {
	if seq := w.billingDB.LastSeq(); !w.ledgerRead.ok || seq != w.ledgerRead.seq {
		w.ledgerRead.ledger, w.ledgerRead.seq, w.ledgerRead.ok = billing.Ledger(w.billingDB), seq, true
	}
	return w.ledgerRead.ledger
}
