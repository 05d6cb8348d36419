// Package metrics is what an operator watches while a run goes on: the
// outbox's messages by status, the age of the oldest unsent message,
// the aggregates blocked behind one that cannot be sent, what billing
// holds, what was sent in each interval, and the alerts those figures
// raise (chapter 000 §12 item 9: "Metriken für pending, failed,
// dead-letter und oldest-message-age"; chapter 001: "Gemessen werden
// zusätzlich Alter des ältesten ungesendeten Ereignisses und blockierte
// Aggregate"; chapter 003's takeaway 6; chapter 004's "Stillstehender
// Versandprozess").
//
// Series reads a run's commit logs (sim.Result's OrderLog and
// BillingLog), rebuilds the outbox as it stood at each sample time and
// measures it with outbox.Measure, the same function Relay.Metrics uses.
// Nothing here runs during a run; a variant cannot see or change it.
package metrics
