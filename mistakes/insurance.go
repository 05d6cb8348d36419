package mistakes

import (
	"outboxlab/insurance"
	"outboxlab/lang"
	"outboxlab/variant"
)

// InsuranceWithoutInbox is chapter 004's story (variant.Insurance) with a
// payment service that does not check the message id: chapter 004's
// "Doppelte Auszahlung". When e-5531 arrives twice (the relay dies after
// its send, or the broker's confirmation is lost), claim 4711 gets two
// payouts. It is non-idempotent-consumer's change, made to the payment
// service. A story's variant, not a column of the matrix.
func InsuranceWithoutInbox() variant.Variant {
	v := variant.Insurance()
	v.Name = "insurance-without-inbox"
	v.Summary = lang.Text{EN: "chapter 004's story with a payment service that does not check the message id", DE: "die Geschichte aus Kapitel 004 mit einem Zahlungsdienst, der die Kennung nicht prüft"}
	v.Chapter = "004 \"Doppelte Auszahlung\""
	// Where e-5531 reaches the payment service twice.
	v.Expect = map[string]variant.Outcome{
		"relay.after-send":       variant.Duplicate,
		"publish-timeout-stored": variant.Duplicate,
	}
	v.NewConsumer = func(env variant.Env) (variant.Consumer, error) {
		c, err := newConsumerFor(env, variant.PaymentsSubscription, insurance.PreparePayout)
		if err != nil {
			return nil, err
		}
		c.handle, c.process, c.apply = c.handleWithoutInbox, c.processUnordered, c.applyWithoutInbox
		return c, nil
	}
	return v
}
