package sqlitelab

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"outboxlab/broker"
	"outboxlab/scenarios"
	"outboxlab/sim"
)

// Row is a row of the real matrix: a crash point, or one of the
// simulator's fault rows staged on real processes.
type Row struct {
	ID   string
	Kind sim.PointKind
	// Description says in a line what happens at the row on real parts.
	Description string
	// Relays, if not 0, is how many relays the row runs (a variant that
	// allows fewer runs as many as it allows); MinRelays, if not 0, is how
	// many it needs to mean anything (fewer: n/a), as in the simulator.
	Relays, MinRelays int
	// Services is how many service instances the row runs (0: one).
	Services int
	// Lease is the relays' lease in the row's runs (0: DefaultLease).
	Lease  time.Duration
	Stalls []Stall
	// Drop has the broker drop a message's first publish (Config.Drop).
	Drop *broker.Target
	// Postgres: the row runs on PostgreSQL only.
	Postgres bool
	// Situations are what the row exists to produce: the reference's cell
	// must reach each, or the row tested nothing.
	Situations []sim.Situation
}

// stallLease is the lease of the rows that freeze a relay past it: short,
// so that a frozen relay loses it within a run, and long enough that a
// relay that is not frozen, on a busy machine, marks well within it.
const stallLease = 500 * time.Millisecond

// faultRows are the simulator's fault rows the real parts stage: a relay
// frozen with SIGSTOP past its lease while another works (stall; and the
// broker down when it resumes, stall-outage), a frozen relay killed and
// restarted while another, frozen, holds a live claim (relay-restart: its
// recovery must leave that claim alone), a publish the broker drops
// (publish-timeout-dropped: a relay that marks SENT while its publish is
// on its way has the message LOST), and a service instance
// frozen before its commit with its outbox id drawn while the other
// commits later orders (slow-commit, PostgreSQL: SQLite's one writer
// would make the other wait). The simulator's times are 30 s of lease, 40
// s of stall and 3 s of open transaction in virtual time; here the stall
// outlasts the lease as there, in real time.
var faultRows = []Row{
	{ID: "stall", Kind: sim.KindFault, Relays: 2, Lease: stallLease,
		Description: "a relay freezes (SIGSTOP) for 0.8 s just before its first send, past its 0.5 s lease, while the other runs; then SIGCONT, once the other relay took its message over and sent it",
		Stalls:      []Stall{{Process: AnyRelay, Point: "relay.before-send", For: 800 * time.Millisecond, UntilTakenOver: true}},
		Situations:  []sim.Situation{sim.LeaseTakenOver}},
	{ID: "stall-outage", Kind: sim.KindFault, Relays: 2, MinRelays: 2, Lease: stallLease,
		Description: "as stall, and the broker is down when the frozen relay resumes: its late send fails",
		Stalls:      []Stall{{Process: AnyRelay, Point: "relay.before-send", For: 800 * time.Millisecond, Outage: true, UntilTakenOver: true}},
		Situations:  []sim.Situation{sim.LeaseTakenOver}},
	{ID: "relay-restart", Kind: sim.KindFault, Relays: 2,
		Description: "both relays freeze just before their first send, holding live claims; once both are frozen, the first is killed after 0.2 s and restarts, and the second resumes after its successor's recovery (0.8 s at least)",
		Stalls: []Stall{{Process: AnyRelay, Point: "relay.before-send", For: 200 * time.Millisecond, Kill: true, After: 2},
			{Process: AnyRelay, Point: "relay.before-send", For: 800 * time.Millisecond, UntilRestarted: 1}},
		Situations: []sim.Situation{sim.ClaimReleased}},
	{ID: "publish-timeout-dropped", Kind: sim.KindFault, Drop: &broker.Target{AggregateID: "o-1", Sequence: 1},
		Description: "the broker drops o-1#1's first publish: its publisher gets no answer, and a timeout once the message is marked SENT (a relay that did not wait for the answer) or after 0.5 s",
		Situations:  []sim.Situation{sim.Retried}},
	{ID: "slow-commit", Kind: sim.KindFault, Services: 2, Postgres: true,
		Description: "service-1 freezes (SIGSTOP) for 0.6 s just before its commit, its outbox id drawn, while service-2 commits; it resumes once a later commit was published",
		Stalls:      []Stall{{Process: "service-1", Point: "service.before-commit", For: 600 * time.Millisecond, UntilPublished: true}},
		Situations:  []sim.Situation{sim.LateCommit}},
}

// otherCrashPoints are the crash points the simulator's runs of the real
// parts' variants reach beyond the matrix's named ones (scenarios.
// CrashPoints), in a message's order of life: before each effect whose
// after is named, and the effects only some variants have (a service that
// publishes itself or commits its outbox row apart, the CDC relay's
// confirmed offset, billing's separate record of what it processed, its
// ack). A test keeps the list equal to what the simulator reaches.
var otherCrashPoints = []string{
	"service.before-publish",
	"service.before-commit-outbox", "service.after-commit-outbox",
	"relay.before-claim", "relay.before-send",
	"relay.before-offset", "relay.after-offset",
	"consumer.before-record-processed", "consumer.after-record-processed",
	"consumer.before-ack", "consumer.after-ack",
}

// CrashPoints are every crash point the real parts run: the matrix's named
// ones first, as labrun numbers them, then every other one the simulator
// reaches with these variants.
func CrashPoints() []string {
	return append(slices.Clone(scenarios.CrashPoints), otherCrashPoints...)
}

// Points are the rows of the real matrix: every crash point, then the
// fault rows (slow-commit with onPostgres only).
func Points(onPostgres bool) []string {
	points := CrashPoints()
	for _, r := range faultRows {
		if onPostgres || !r.Postgres {
			points = append(points, r.ID)
		}
	}
	return points
}

// Describe says in a line what happens at a row on real parts.
func Describe(id string) string {
	for _, r := range faultRows {
		if r.ID == id {
			return r.Description
		}
	}
	if p, err := scenarios.FindPoint(id); err == nil {
		return p.Description.EN
	}
	if d, ok := otherDescriptions[id]; ok {
		return d
	}
	return ""
}

// otherDescriptions say what happens at the other crash points.
var otherDescriptions = map[string]string{
	"service.before-publish":           "a service that publishes itself dies just before the publish",
	"service.before-commit-outbox":     "a service that commits its outbox row apart dies before that commit",
	"service.after-commit-outbox":      "a service that commits its outbox row apart dies right after that commit",
	"relay.before-claim":               "a relay dies with its claim written, not committed",
	"relay.before-send":                "a relay dies holding its claim, just before a send",
	"relay.before-offset":              "the CDC relay dies after its sends, before it confirms their position",
	"relay.after-offset":               "the CDC relay dies right after it confirmed a position to its slot",
	"consumer.before-record-processed": "billing that records what it processed apart dies before that record",
	"consumer.after-record-processed":  "billing that records what it processed apart dies right after that record",
	"consumer.before-ack":              "billing dies after its commit, just before its ack",
	"consumer.after-ack":               "billing dies right after its ack",
}

// FindRow returns the row with that id.
func FindRow(id string, onPostgres bool) (Row, error) {
	if slices.Contains(CrashPoints(), id) {
		return Row{ID: id, Kind: sim.KindCrash}, nil
	}
	for _, r := range faultRows {
		if r.ID != id {
			continue
		}
		if r.Postgres && !onPostgres {
			return Row{}, fmt.Errorf("row %q: %w on SQLite: it runs on PostgreSQL only (--postgres)", id, ErrNotInMatrix)
		}
		return r, nil
	}
	return Row{}, fmt.Errorf("%w point %q (valid: %s)", ErrUnknown, id, strings.Join(Points(onPostgres), ", "))
}

// config is the configuration of one run of the row for variant v, or
// false if the row needs more relays than v allows (n/a).
func (row Row) config(v Variant, relays int) (Config, bool) {
	cfg := Config{Variant: v.Name, Relays: relays, Services: row.Services, Lease: row.Lease, Stalls: row.Stalls, Drop: row.Drop}
	if row.Relays > 0 {
		cfg.Relays = row.Relays
		if v.maxRelays > 0 {
			cfg.Relays = min(cfg.Relays, v.maxRelays)
		}
	}
	return cfg, cfg.Relays >= row.MinRelays
}

// simRoute returns the service instance the simulator's run of the row
// hands each workload command to, so that a run on real parts with two
// instances routes its commands the same way.
func simRoute(v Variant, row Row) ([]string, error) {
	res, err := simTrace(Config{Variant: v.Name, Stalls: row.Stalls})
	if err != nil {
		return nil, err
	}
	var route []string
	for _, e := range res.Trace {
		if e.Kind == sim.EventCommand && strings.HasPrefix(e.Process, "service") {
			route = append(route, e.Process)
		}
	}
	return route, nil
}

// RunConfig is the configuration of one run of a variant at a row: a
// crash point with its occurrence ("relay.after-send@2"), or a fault row
// ("stall"), with relays relays (a fault row sets its own).
func RunConfig(variantName, point string, relays int, onPostgres bool) (Config, error) {
	v, err := FindVariant(variantName)
	if err != nil {
		return Config{}, err
	}
	id, k, err := sim.ParseScenarioPoint(point)
	if err != nil {
		return Config{}, fmt.Errorf("%w point: %v", ErrUnknown, err)
	}
	row, err := FindRow(id, onPostgres)
	if err != nil {
		return Config{}, err
	}
	if most := v.mostRelays(); relays < 1 || relays > most {
		return Config{}, fmt.Errorf("%w relay count %d (valid: 1 to %d for %s)", ErrUnknown, relays, most, v.Name)
	}
	cfg, ok := row.config(v, relays)
	if !ok {
		return Config{}, fmt.Errorf("row %s: %w with %s: it needs %d relays, the variant allows %d", id, ErrNotInMatrix, v.Name, row.MinRelays, v.maxRelays)
	}
	if row.Kind == sim.KindCrash {
		cfg.Crash, cfg.Occurrence = id, k
	}
	if row.Services == 2 {
		if cfg.Route, err = simRoute(v, row); err != nil {
			return Config{}, err
		}
	}
	return cfg, nil
}
