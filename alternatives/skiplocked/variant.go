package skiplocked

import (
	"outboxlab/lang"
	"outboxlab/variant"
)

// Variant is chapter 003's relay as the chapter writes it (package
// skiplocked): one transaction per batch holds its rows locked FOR UPDATE
// SKIP LOCKED across the publish and marks them processed before it
// commits. The lock keeps two relays from publishing one row at once, and
// a crash frees it with the transaction. The chapter's code writes no
// attempts and no error, and retries a failed batch at the next poll: no
// backoff, no limit, no dead letter.
func Variant() variant.Variant {
	return variant.Variant{
		Name:    "skip-locked-tx",
		Summary: lang.Text{EN: "chapter 003's relay: one transaction holds SKIP LOCKED row locks across the publish; no backoff, no limit, no dead letter", DE: "das Relay aus Kapitel 003: eine Transaktion hält SKIP-LOCKED-Zeilensperren über das Senden hinweg; kein Backoff, keine Grenze, kein Dead Letter"},
		Chapter: "003 \"Den Relay-Prozess bauen\"",
		Expect: map[string]variant.Outcome{
			// A failed publish is retried at every poll, 500 ms apart,
			// for as long as the broker is down.
			"broker-outage":  variant.Storm,
			"outage-backlog": variant.Storm,
			"stall-release":  variant.Storm,
			// Refused for good, retried for ever: no dead letter.
			"rejected": variant.Stuck,
			// SKIP LOCKED skips a row another relay holds locked, and
			// takes the aggregate's next row, which nobody holds: with
			// one relay frozen, paused or restarting holding o-2#1,
			// the other sends o-2#2 first. Row locks keep two relays
			// off one row, not an aggregate's rows in order (at
			// stall-outage, the storm of retries too).
			"stall":         variant.OutOfOrder,
			"stall-outage":  variant.OutOfOrder,
			"clock-skew":    variant.OutOfOrder,
			"relay-restart": variant.OutOfOrder,
		},
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			return New(env.OrderDB, env.Broker, env.Gate, env.DBClock, env.Owner), nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}
