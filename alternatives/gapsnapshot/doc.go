// Package gapsnapshot is chapter 001's third answer to a gap: "Bei einer
// Lücke muss der Empfänger warten, gezielt nachladen oder einen
// definierten Snapshot-Abgleich auslösen." The reference consumer waits;
// gapfetch asks for the missing event. This consumer, as soon as it parks
// an event that came early, asks the order service for the order as it
// stands now (its snapshot: total, status, version, as an API would
// answer) and reconciles billing's account with it in one adjusting
// entry, then takes the order as applied up to the snapshot's version:
// the early event and the missing one are both settled, and the late
// original is stale when it comes.
//
// It reconciles state, not events. The account equals the order's total
// at once, but the skipped amendment's own invoice line is never booked:
// its amount is folded into the adjustment. Chapter 001 says when that is
// not enough: "Einfach nur die höchste Version zu speichern reicht nicht,
// wenn übersprungene Ereignisse eigenständige Geschäftswirkungen tragen."
// Every event of an order carries an effect of its own in this lab (an
// invoice, a line, a credit), so the checker finds the skipped one LOST
// and the adjustment unlike its change (MISMATCH): a snapshot must carry
// what each effect needs to stand in for the events.
package gapsnapshot
