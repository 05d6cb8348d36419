package billing

import (
	"fmt"
	"time"

	"outboxlab/domain"
	"outboxlab/inbox"
	"outboxlab/store"
)

// Tables of the billing database.
const (
	// TableLedger holds one Entry per business effect, keyed by a counter in
	// the order they were applied.
	TableLedger = "ledger"
	// TableAccounts holds one Account per order.
	TableAccounts = "accounts"
	tableMeta     = "billing_meta"
	keyLedgerN    = "ledger-next"
)

// EffectKind says what an event did to billing.
type EffectKind string

// The effects of the three order events.
const (
	Invoice EffectKind = "invoice" // OrderAccepted
	Line    EffectKind = "line"    // OrderAmended
	Credit  EffectKind = "credit"  // OrderCancelled
)

// Entry is one business effect. Its Key orders entries by when they were
// applied; OrderID and Sequence say which business change caused it.
type Entry struct {
	Key       string
	OrderID   string
	Sequence  int
	Kind      EffectKind
	Amount    domain.Money
	MessageID string
	At        time.Time
}

// Account is billing's view of one order: the amount billed so far.
type Account struct {
	OrderID   string
	Billed    domain.Money
	Cancelled bool
}

// Install creates the billing database's tables in db: the ledger and the
// accounts, and the tables of billing's consumer (inbox.Install).
func Install(db *store.DB) error {
	for _, t := range []string{TableLedger, TableAccounts, tableMeta} {
		if err := db.CreateTable(t); err != nil {
			return fmt.Errorf("billing: install: %w", err)
		}
	}
	return inbox.Install(db)
}

// LoadAccount reads an order's account inside tx; a missing account is an
// empty Account.
func LoadAccount(tx *store.Tx, orderID string) Account {
	if v, ok := tx.Get(TableAccounts, orderID); ok {
		return v.(Account)
	}
	return Account{OrderID: orderID}
}

// ApplyEffect writes the business effect of e into tx: a ledger entry and
// the account's billed amount. It is billing's inbox.Effect. It does no
// deduplication and no ordering of its own: that is the inbox consumer's
// job, and the difference between the correct consumer and the mistakes.
func ApplyEffect(tx *store.Tx, e domain.Event, messageID string, now time.Time) error {
	acc := LoadAccount(tx, e.AggregateID())
	entry := Entry{OrderID: e.AggregateID(), Sequence: e.Seq(), MessageID: messageID, At: now}
	switch ev := e.(type) {
	case domain.OrderAccepted:
		entry.Kind, entry.Amount = Invoice, ev.Total
		acc.Billed = ev.Total
	case domain.OrderAmended:
		entry.Kind, entry.Amount = Line, ev.Amount
		billed := ev.Amount
		if acc.Billed.Currency != "" {
			sum, err := acc.Billed.Add(ev.Amount)
			if err != nil {
				return fmt.Errorf("billing: %s#%d: %w", entry.OrderID, entry.Sequence, err)
			}
			billed = sum
		}
		acc.Billed = billed
	case domain.OrderCancelled:
		entry.Kind = Credit
		entry.Amount = domain.Money{Minor: -acc.Billed.Minor, Currency: acc.Billed.Currency}
		acc.Billed = domain.Money{Currency: acc.Billed.Currency}
		acc.Cancelled = true
	default:
		return fmt.Errorf("billing: no effect for %s", e.EventType())
	}
	n := 1
	if v, ok := tx.Get(tableMeta, keyLedgerN); ok {
		n = v.(int)
	}
	tx.Put(tableMeta, keyLedgerN, n+1)
	entry.Key = store.SeqKey("", n)
	if err := tx.Insert(TableLedger, entry.Key, entry); err != nil {
		return fmt.Errorf("billing: %w", err)
	}
	tx.Put(TableAccounts, acc.OrderID, acc)
	return nil
}

// Accounts returns every committed account, by order id.
func Accounts(db *store.DB) []Account { return store.Values[Account](db, TableAccounts) }

// Ledger returns every committed effect in the order it was applied.
func Ledger(db *store.DB) []Entry { return store.Values[Entry](db, TableLedger) }
