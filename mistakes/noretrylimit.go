package mistakes

import (
	"math"

	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/variant"
)

// NoRetryLimit is the reference relay without a maximum number of attempts.
//
// WRONG: a message the broker refuses every time (too large, a schema it
// rejects) is retried forever. It never becomes a visible dead letter,
// nobody is alerted, the relay spends its time on it, and with
// per-aggregate order every later event of that aggregate waits behind it.
//
// Chapter 000, section 8 ("Retry ohne Grenze ist eine Produktionsgefahr").
func NoRetryLimit() variant.Variant {
	return configMistake("no-retry-limit", lang.Text{EN: "retries forever, never dead-letters", DE: "wiederholt endlos, nie ein Dead Letter"},
		"000 section 8 \"Retry ohne Grenze ist eine Produktionsgefahr\"",
		map[string]variant.Outcome{"rejected": variant.Stuck},
		func(c *outbox.Config) {
			// MISTAKE: no limit on attempts ("it will work eventually"): a
			// message the broker always refuses is retried forever, never a
			// dead letter (000 §8: "Retry ohne Grenze ist eine Produktionsgefahr").
			c.MaxAttempts = math.MaxInt
		})
}

// configMistake is the reference with its relay's configuration changed
// by change: a mistake of policy, not of code.
func configMistake(name string, summary lang.Text, chapter string, expect map[string]variant.Outcome, change func(*outbox.Config)) variant.Variant {
	return variant.Variant{
		Name: name, Summary: summary, Chapter: chapter, Expect: expect,
		Install:    variant.InstallAll,
		NewService: variant.NewOutboxService,
		NewRelay: func(env variant.Env) (variant.Relay, error) {
			ref, err := variant.ReferenceRelay(env, change)
			if err != nil {
				return nil, err
			}
			return variant.AdaptRelay(ref), nil
		},
		NewConsumer: variant.NewBillingConsumer,
	}
}
