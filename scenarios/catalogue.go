package scenarios

import (
	"fmt"
	"strings"
	"time"

	"outboxlab/broker"
	"outboxlab/check"
	"outboxlab/domain"
	"outboxlab/orders"
	"outboxlab/sim"
	"outboxlab/variant"
)

// Scenario is one named story: a run and a narrative that says what
// happens, what breaks or holds, what to learn, and which chapter passage it
// illustrates.
type Scenario struct {
	Name    string
	Summary string
	// Narrative is a few sentences for the learner.
	Narrative string
	// Variant is the variant the scenario runs when none is chosen.
	Variant string
	// Point is the matrix row whose declaration judges the run; "" means
	// the run is expected OK whatever the variant.
	Point string
	// Configure builds the run for a variant and seed.
	Configure func(v variant.Variant, seed uint64) sim.Config
}

// Expected returns the outcome the scenario expects of v.
func (s Scenario) Expected(v variant.Variant) check.Outcome {
	if s.Point == "" {
		return check.OK
	}
	return v.Expected(s.Point)
}

// OneOrder is the workload of the short stories: o-1 is placed, then
// amended, so that one message's whole life fits on a screen.
func OneOrder() []sim.Command {
	return []sim.Command{
		{At: 0, Command: orders.Command{Kind: orders.Place, OrderID: "o-1", Amount: domain.MustMoney("10.00", "EUR")}},
		{At: time.Second, Command: orders.Command{Kind: orders.Amend, OrderID: "o-1", Amount: domain.MustMoney("2.50", "EUR"), Text: "gift wrap"}},
	}
}

// crashAt is a scenario run: a workload with one crash.
func crashAt(workload func() []sim.Command, point string, k int) func(variant.Variant, uint64) sim.Config {
	return func(v variant.Variant, seed uint64) sim.Config {
		cfg := sim.DefaultConfig(v, workload(), seed)
		cfg.Crashes = []sim.Crash{{Point: point, Occurrence: k}}
		return cfg
	}
}

// faulty is a scenario run: a workload under broker faults.
func faulty(workload func() []sim.Command, faults ...sim.Fault) func(variant.Variant, uint64) sim.Config {
	return func(v variant.Variant, seed uint64) sim.Config {
		cfg := sim.DefaultConfig(v, workload(), seed)
		cfg.Faults = faults
		return cfg
	}
}

var (
	o1first  = broker.Target{AggregateID: "o-1", Sequence: 1}
	o1second = broker.Target{AggregateID: "o-1", Sequence: 2}
)

// Catalogue returns the named scenarios, the stories of the course
// chapters, and one scenario per mistake.
func Catalogue() []Scenario {
	out := []Scenario{
		{
			Name: "happy-path", Summary: "the standard workload with no crash and no fault",
			Narrative: "Three orders are placed; o-1 is amended twice and o-2 cancelled. Each change commits together with its " +
				"outbox row; the relay claims, sends and marks SENT only after the broker's ack; billing applies " +
				"each event once, in order. Chapter 000 section 3: the use case ends at the commit.",
			Configure: func(v variant.Variant, seed uint64) sim.Config { return sim.DefaultConfig(v, Workload(), seed) },
		},
		{
			Name: "crash-before-commit", Summary: "o-1: the service dies with the order written but not committed",
			Narrative: "The service dies before its commit: the database keeps neither the order nor the outbox row, " +
				"so nothing is sent and nothing is billed. The client saw an error. Consistent: nothing happened. " +
				"Chapter 000 section 6, row \"vor Commit\".",
			Point: "service.before-commit", Configure: crashAt(OneOrder, "service.before-commit", 1),
		},
		{
			Name: "crash-after-commit", Summary: "o-1: the service dies right after its commit",
			Narrative: "With the outbox the message is committed with the order, and the relay sends it although the " +
				"service is dead. Run it with --variant dual-write to see the same crash lose the event: nothing " +
				"durable says that it was due. Chapter 000 section 2, chapter 003.",
			Point: "service.after-commit", Configure: crashAt(OneOrder, "service.after-commit", 1),
		},
		{
			Name: "after-send-before-sent", Summary: "o-1: the relay dies after the broker's ack, before it records SENT",
			Narrative: "The most critical row of the crash matrix: the broker has the message, the outbox does not " +
				"know it. The restarted relay releases its claim and sends the message again. That is not a bug of " +
				"the outbox, it is at-least-once delivery; billing's inbox recognises the id. Run it with --variant " +
				"non-idempotent-consumer to see the double invoice. Chapter 000 section 6, chapter 001, chapter 003.",
			Point: "relay.after-send", Configure: crashAt(OneOrder, "relay.after-send", 1),
		},
		{
			Name: "during-consume", Summary: "o-1: billing dies with the invoice written but not committed",
			Narrative: "The effect and the inbox row are one transaction, so the crash takes both; the unacknowledged " +
				"delivery comes again and is applied once. Chapter 000 section 6, row \"während Consume\".",
			Point: "consumer.before-commit", Configure: crashAt(OneOrder, "consumer.before-commit", 1),
		},
		{
			Name: "after-consume", Summary: "o-1: billing dies after its commit, before the ack",
			Narrative: "The invoice and the inbox row are committed; the ack is not. The broker delivers again; the " +
				"inbox says \"already done\", billing acks and bills nothing. Run it with --variant dedup-outside-tx: " +
				"with the id recorded in a second transaction, the redelivery bills twice. Chapter 000 section 7, chapter 003.",
			Point: "consumer.after-commit", Configure: crashAt(OneOrder, "consumer.after-commit", 1),
		},
		{
			Name: "claim-4711", Summary: "chapter 004: the broker is unreachable for ten minutes while claims are released",
			Narrative: "The claims service (played by the order service) releases claim 4711; its message waits in the " +
				"outbox while the broker is down for ten minutes. More claims are released meanwhile and the service " +
				"restarts; nothing is lost, because the messages are in the database. The relay retries with capped " +
				"backoff and delivers after the outage; the payment service (played by billing) pays each claim " +
				"exactly once. Chapter 004; the exact story with e-5531 is the test TestClaim4711 in package insurance.",
			Point: "broker-outage", Configure: claim4711,
		},
		{
			Name: "publish-timeout-stored", Summary: "the broker stores o-1's first message, but the relay's publish times out",
			Narrative: "The answer is lost on its way back. The relay sees a timeout and cannot know whether the broker " +
				"stored the message, so it marks it FAILED and sends it again, under the same id, after the backoff. " +
				"The broker now holds it twice; billing's inbox makes it one invoice. " +
				"Chapter 004 (\"Ebenso kann nur die Bestätigung der Nachrichtenplattform ausbleiben\").",
			Point: "publish-timeout-stored", Configure: faulty(OneOrder, sim.Fault{Kind: sim.FaultTimeoutStored, Target: o1first}),
		},
		{
			Name: "publish-timeout-dropped", Summary: "the broker never gets o-1's first message; the relay's publish times out",
			Narrative: "The request is lost on its way in. The relay sees the same timeout as when the answer is lost, " +
				"and does the same: FAILED, backoff, send again. This time the resend is the only copy: a relay that " +
				"guessed \"probably stored\" and marked SENT would have lost it. " +
				"Chapter 004 (\"Der Versandprozess weiß dann nicht, ob die Nachricht angekommen ist, und sendet sie erneut\").",
			Point: "publish-timeout-dropped", Configure: faulty(OneOrder, sim.Fault{Kind: sim.FaultTimeoutDropped, Target: o1first}),
		},
		{
			Name: "duplicate-delivery", Summary: "the broker delivers o-1's first message twice",
			Narrative: "At-least-once from the broker itself. The consumer is idempotent: the message id is in the " +
				"inbox, in the same transaction as the invoice. Chapter 000 section 7, chapter 003.",
			Point: "duplicate-delivery", Configure: faulty(OneOrder, sim.Fault{Kind: sim.FaultDuplicate, Target: o1first}),
		},
		{
			Name: "reorder", Summary: "o-1's accepted and amended events arrive swapped",
			Narrative: "Billing sees #2 before #1: it parks #2, applies #1 when it arrives, then #2. Run it with " +
				"--variant unordered-consumer (applied in arrival order: OUT_OF_ORDER) and --variant max-version-only " +
				"(#1 is discarded as old: LOST). Chapter 001, order per business object.",
			Point: "reorder", Configure: faulty(Workload, sim.Fault{Kind: sim.FaultReorder, Target: o1first}),
		},
		{
			Name: "gap", Summary: "o-1's first amendment is delayed a minute; the second arrives first",
			Narrative: "Sequence numbers tell a gap from a duplicate: billing parks #3 until #2 arrives, then applies " +
				"both in order. o-2 and o-3 are not held up. Chapter 001 (\"Bei einer Lücke muss der Empfänger warten\").",
			Configure: faulty(Workload, sim.Fault{Kind: sim.FaultDelay, Target: o1second, For: time.Minute}),
		},
		{
			Name: "poison", Summary: "o-1's first message can never be processed until its cause is fixed",
			Narrative: "Billing fails three times, parks the message as a visible dead letter and goes on with the " +
				"others; o-1's later events wait behind the gap. After the cause is fixed the dead letter is replayed " +
				"and o-1 catches up. Chapter 001, chapter 000 section 8.",
			Point: "poison", Configure: faulty(Workload, sim.Fault{Kind: sim.FaultPoison, Target: o1first}),
		},
		{
			Name: "dead-letter-replay", Summary: "the broker rejects o-1's first message until an operator fixes it",
			Narrative: "The relay retries with backoff (2 s, 4 s, ... capped at 300 s) and after ten attempts marks the " +
				"message DEAD_LETTER: visible, not retried forever. o-1's later events wait behind it. The operator " +
				"fixes the cause and replays; everything arrives in order. Run it with --variant no-retry-limit to see " +
				"it retried forever. Chapter 000 sections 4 and 8.",
			Point: "rejected", Configure: faulty(Workload, sim.Fault{Kind: sim.FaultRejected, Target: o1first}),
		},
		{
			Name: "retention", Summary: "SENT messages are kept seven days for audit and replay, then cleaned up",
			Narrative: "Two orders are sent on day 0. A cleanup on day 1 deletes nothing: SENT rows are the audit " +
				"trail and the replay window. On day 8 a third order arrives, and the cleanup deletes the two " +
				"rows older than seven days, and never an unsent one. Without cleanup the table only grows: " +
				"2,000 messages a day are about 730,000 a year (chapter 004, \"Wachsende Outbox\"); the partial " +
				"index of unsent messages keeps every poll as cheap as on day one anyway (chapter 003).",
			Configure: func(v variant.Variant, seed uint64) sim.Config {
				day := 24 * time.Hour
				place := func(at time.Duration, id string) sim.Command {
					return sim.Command{At: at, Command: orders.Command{Kind: orders.Place, OrderID: id, Amount: domain.MustMoney("10.00", "EUR")}}
				}
				cfg := sim.DefaultConfig(v, []sim.Command{place(0, "o-1"), place(time.Second, "o-2"), place(8*day, "o-3")}, seed)
				cfg.Cleanups = []time.Duration{day, 8*day + time.Minute}
				return cfg
			},
		},
		{
			Name: "two-relays", Summary: "two relays side by side; one dies holding a claim",
			Narrative: "Claims are leases: while relay-1's lease lasts, relay-2 skips the message (FOR UPDATE SKIP " +
				"LOCKED); when it expires, relay-2 takes it over and sends it. Chapter 003, chapter 000 section 5.",
			Configure: func(v variant.Variant, seed uint64) sim.Config {
				cfg := crashAt(Workload, "relay.after-claim", 1)(v, seed)
				cfg.Relays = 2
				cfg.RestartDelay = time.Hour // relay-1 stays down: relay-2 must take over
				return cfg
			},
		},
	}
	for _, v := range Variants() {
		if v.Correct {
			continue
		}
		point := firstDeclaredFailure(v)
		if p, ok := storyPoints[v.Name]; ok {
			point = p
		}
		p, _ := FindPoint(point)
		out = append(out, Scenario{
			Name:      "mistake/" + v.Name,
			Summary:   fmt.Sprintf("%s fails at %s: %s", v.Name, point, v.Expected(point)),
			Narrative: fmt.Sprintf("%s %s. Chapter %s.", v.Name, v.Summary, v.Chapter),
			Variant:   v.Name,
			Point:     point,
			Configure: mistakeRun(v, p),
		})
	}
	return out
}

// storyPoints are the rows whose runs tell a mistake's story better than
// its first declared failure, which for these is an accident of the
// seeded interleaving.
var storyPoints = map[string]string{
	"recover-all":        "relay-restart", // the row built to show it
	"claim-without-lock": "broker-outage", // after the outage, several messages are due at once
}

// mistakeRun is the run of a mistake's story: the matrix's counterexample
// at its first declared failure (the occurrence of the crash, and two
// relays if it took two), played with the seed asked for.
func mistakeRun(mistake variant.Variant, p sim.Point) func(variant.Variant, uint64) sim.Config {
	return func(v variant.Variant, seed uint64) sim.Config {
		k, relays := 1, 0
		if cell, err := Matrix().RunCell(mistake, p); err == nil && cell.Counterexample != nil {
			_, k, _ = sim.ParseScenarioPoint(cell.Counterexample.Scenario)
			relays = cell.Counterexample.Relays
		}
		cfg := pointRun(p, k)(v, seed)
		if relays > 0 && (v.MaxRelays == 0 || relays <= v.MaxRelays) {
			cfg.Relays = relays
		}
		return cfg
	}
}

// claim4711 is chapter 004's story on the order flow.
func claim4711(v variant.Variant, seed uint64) sim.Config {
	release := func(at time.Duration, claim, amount string) sim.Command {
		return sim.Command{At: at, Command: orders.Command{Kind: orders.Place, OrderID: claim, Amount: domain.MustMoney(amount, "EUR")}}
	}
	cfg := sim.DefaultConfig(v, []sim.Command{
		release(0, "claim-4711", "1250.00"),
		release(2*time.Minute, "claim-4712", "300.00"),
		release(5*time.Minute, "claim-4713", "80.00"),
	}, seed)
	cfg.Faults = []sim.Fault{{Kind: sim.FaultOutage, From: 0, For: 10 * time.Minute}}
	cfg.Crashes = []sim.Crash{{Point: "service.after-commit", Occurrence: 2}} // the service restarts meanwhile
	return cfg
}

// firstDeclaredFailure returns the first matrix row at which v declares a
// violation ("" if none: TestCrashMatrix rejects a declaration off the rows).
func firstDeclaredFailure(v variant.Variant) string {
	for _, p := range Points() {
		if v.Expected(p.ID) != check.OK {
			return p.ID
		}
	}
	return ""
}

// pointRun is the run of a matrix cell: a crash at the k-th occurrence of a
// crash point, or the faults of a fault row.
func pointRun(p sim.Point, k int) func(variant.Variant, uint64) sim.Config {
	if p.Kind == sim.KindFault {
		return func(v variant.Variant, seed uint64) sim.Config {
			cfg := sim.DefaultConfig(v, Workload(), seed)
			p.Apply(&cfg)
			return cfg
		}
	}
	return crashAt(Workload, p.ID, k)
}

// ScenarioNames lists the named scenarios.
func ScenarioNames() []string {
	var names []string
	for _, s := range Catalogue() {
		names = append(names, s.Name)
	}
	return names
}

// FindScenario resolves a scenario name: a named scenario of the catalogue,
// or a matrix point with an optional occurrence ("relay.after-send@2").
func FindScenario(name string) (Scenario, error) {
	for _, s := range Catalogue() {
		if s.Name == name {
			return s, nil
		}
	}
	id, k, err := sim.ParseScenarioPoint(name)
	if err != nil {
		return Scenario{}, err
	}
	p, err := FindPoint(id)
	if err != nil {
		return Scenario{}, fmt.Errorf("unknown scenario %q (valid: %s, or a matrix point with an optional @K; see `labrun list`)",
			name, strings.Join(ScenarioNames(), ", "))
	}
	summary := fmt.Sprintf("the standard workload with a crash at %s, occurrence %d", p.ID, k)
	if p.Kind == sim.KindFault {
		if k != 1 {
			return Scenario{}, fmt.Errorf("scenario %q: a fault row has no occurrences", name)
		}
		summary = "the standard workload under the fault " + p.ID
	}
	return Scenario{Name: name, Summary: summary, Point: p.ID, Configure: pointRun(p, k)}, nil
}
