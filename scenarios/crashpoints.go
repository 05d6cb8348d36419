package scenarios

import (
	"outboxlab/lang"
	"outboxlab/sim"
)

// crashPoints are the crash rows of the matrix, each defined once: the
// crash points of DESIGN.md in the order of a message's life, plus the
// extra points the mistakes add; with what happens there, in both
// languages, and the situations the row exists to produce (a recovery
// that releases a claim, a message billing receives twice). The id is a
// point of a boundary a component declares (effect.Boundary's Before and
// After; TestEveryCrashRowIsABoundarysPoint); exploration crashes at both
// points of every boundary the catalogue has it draw (DrawnBoundaries),
// these rows and the others.
var crashPoints = []sim.Point{
	crashRow("service.before-commit", lang.Text{
		EN: "the service dies with the order and its outbox row written, not committed",
		DE: "der Service stirbt, nachdem er Bestellung und Outbox-Zeile geschrieben, aber noch nicht committet hat",
	}),
	crashRow("service.after-commit", lang.Text{
		EN: "the service dies right after its commit",
		DE: "der Service stirbt direkt nach seinem Commit",
	}),
	// publish-first, dual-write, listen-to-yourself
	crashRow("service.after-publish", lang.Text{
		EN: "a service that publishes itself dies right after the publish",
		DE: "ein Service, der selbst veröffentlicht, stirbt direkt nach dem Veröffentlichen",
	}),
	crashRow("relay.after-claim", lang.Text{
		EN: "a relay dies holding its claims (IN_FLIGHT, under a lease)",
		DE: "ein Relay stirbt mit seinen Claims (IN_FLIGHT, unter einer Lease)",
	}, sim.ClaimReleased),
	crashRow("relay.after-send", lang.Text{
		EN: "a relay dies after the broker's ack, before it records SENT",
		DE: "ein Relay stirbt nach dem Ack des Brokers, bevor es SENT einträgt",
	}, sim.Redelivered),
	// The mark's transaction is written, its commit does not happen: chapter
	// 003's "schlägt aber der Commit von processed_at fehl".
	crashRow("relay.before-mark", lang.Text{
		EN: "a relay dies with its mark written, not committed",
		DE: "ein Relay stirbt, nachdem es seine Markierung geschrieben, aber noch nicht committet hat",
	}, sim.Redelivered),
	// mark-before-send marks before it sends
	crashRow("relay.after-mark", lang.Text{
		EN: "a relay dies right after it recorded an outcome",
		DE: "ein Relay stirbt, direkt nachdem es ein Ergebnis eingetragen hat",
	}),
	crashRow("consumer.before-commit", lang.Text{
		EN: "billing dies with the invoice and the inbox row written, not committed",
		DE: "Billing stirbt, nachdem es Rechnung und Inbox-Zeile geschrieben, aber noch nicht committet hat",
	}, sim.Redelivered),
	crashRow("consumer.after-commit", lang.Text{
		EN: "billing dies after its commit, before the ack",
		DE: "Billing stirbt nach seinem Commit, vor dem Ack",
	}, sim.Redelivered),
}

// crashRow is the crash row at point.
func crashRow(point string, text lang.Text, situations ...sim.Situation) sim.Point {
	return sim.Point{ID: point, Kind: sim.KindCrash, Description: text, Situations: situations}
}

// CrashPoints are the crash rows' points, in their order.
var CrashPoints = func() []string {
	var ids []string
	for _, p := range crashPoints {
		ids = append(ids, p.ID)
	}
	return ids
}()
