package domain

import "time"

// TypeOrderRow is the wire name of OrderRow.
const TypeOrderRow = "orders.row"

// OrderRow is a row of the order service's orders table as change data
// capture reads it from the database's log: not a message the service
// designed, but its table's structure (chapter 004: "Der Zahlungsdienst
// erhält dann aber geänderte Tabellenzeilen statt einer Nachricht ... und
// muss den Aufbau der Tabellen des Schadendienstes kennen"). A receiver
// learns what changed only by comparing it with the row before.
type OrderRow struct {
	ID        string      `json:"id"`
	Status    OrderStatus `json:"status"`
	Total     Money       `json:"total"`
	Version   int         `json:"version"`
	UpdatedAt time.Time   `json:"updated_at"`
}

// RowOf is the row image of an order.
func RowOf(o Order) OrderRow {
	return OrderRow{ID: o.ID, Status: o.Status, Total: o.Total, Version: o.Version, UpdatedAt: o.UpdatedAt}
}

// EventType implements Event.
func (OrderRow) EventType() string { return TypeOrderRow }

// AggregateID implements Event.
func (r OrderRow) AggregateID() string { return r.ID }

// Seq implements Event: the row's version.
func (r OrderRow) Seq() int { return r.Version }
