package sim

import (
	"outboxlab/broker"
	"outboxlab/lang"
	"outboxlab/outbox"
)

// resend is an operator publishing a sent message again from its outbox
// row (Config.Resends), under its own id: the broker delivers it again,
// and billing's inbox must recognise it. A message whose row is gone
// (deleted on send, or cleaned up after the retention period) cannot be
// resent: the trace says so.
func (w *world) resend(r Resend) {
	var found *outbox.Message
	if w.orderDB.HasTable(outbox.Table) {
		for _, m := range outbox.All(w.orderDB) {
			if m.Event.AggregateID == r.Target.AggregateID && m.Event.Sequence == r.Target.Sequence {
				found = &m
				break
			}
		}
	}
	action := "resend " + r.Target.String()
	says := lang.Textf(lang.Text{EN: "resend %s", DE: "erneut senden %s"}, r.Target)
	result := lang.Plain("ok")
	switch {
	case found == nil:
		result = lang.Text{EN: "nothing to resend: the outbox holds no row for it (deleted on send, or cleaned up)",
			DE: "nichts erneut zu senden: die Outbox hat keine Zeile dafür (beim Senden gelöscht oder bereinigt)"}
	case found.Status != outbox.Sent:
		result = lang.Textf(lang.Text{EN: "not resent: it is %s, not SENT (the relay sends it)", DE: "nicht erneut gesendet: sie ist %s, nicht SENT (das Relay sendet sie)"}, found.Status)
	default:
		if err := w.broker.Publish(broker.Envelope{ID: found.ID, Event: found.Event}); err != nil {
			result = errorResult(err)
		}
	}
	if w.cfg.Trace {
		changes, ids, rows, actions := w.changesSince(w.seen)
		w.seen = w.mark()
		w.record(Event{Process: "operator", Kind: EventCommand, Action: action, Says: says, Result: result, Messages: ids, Changes: changes, Rows: rows, Broker: actions})
	}
}
