package sim

import (
	"sort"
	"strings"
	"time"

	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/sim/check"
	"outboxlab/store"
	"outboxlab/variant"
)

// Result is the outcome of one run.
type Result struct {
	// Outcome is the worst outcome among Violations, OK for none.
	Outcome    variant.Outcome
	Violations []check.Violation
	// Fired lists the planned crashes that happened, in order. A planned
	// crash that is missing here was never reached.
	Fired []FiredCrash
	// Stalls, Kills and CommitFailures are how many planned stalls, kills
	// and commit failures happened.
	Stalls, Kills, CommitFailures int
	// Reached counts how often each crash point was reached during the run
	// phase, by point id.
	Reached map[string]int
	// Trace is every event, if Config.Trace was set.
	Trace []Event
	// Duration is the virtual time the whole run took.
	Duration time.Duration
	// Unsafe lists the breaches of check.Safety (each is also an UNSAFE
	// violation).
	Unsafe []lang.Text
	// Missteps are what a process did that no declaration allows: an
	// error it should have handled, a crash it went on from, a panic.
	Missteps
	// Situations counts what the run went through (see Situation).
	Situations map[Situation]int
	// OrderLog and BillingLog are the two databases' commit logs up to
	// WorkEnded, every commit with its time: what a view of the run over
	// time (labrun's metrics) reads.
	OrderLog, BillingLog []store.Commit
	// WorkEnded is when the run's work ended: quiesce is over, the
	// operator's work begins.
	WorkEnded time.Duration
	// Busy says what was still going on when quiesce ended (its horizon
	// or its steps ran out: STUCK), empty for a run that settled.
	Busy lang.Text
}

// ReachedPoints returns the crash points reached, sorted.
func (r Result) ReachedPoints() []string {
	points := make([]string, 0, len(r.Reached))
	for p := range r.Reached {
		points = append(points, p)
	}
	sort.Strings(points)
	return points
}

// NeverReached names the crash points a run reached, for a planned crash
// at a point it never reached ("" when it reached it at least once: it
// fired too few times, and the count says so): a point of no boundary
// the variant crosses (a typo, billing.after-commit for
// consumer.after-commit) is told which it has.
func (r Result) NeverReached(point string) lang.Text {
	if r.Reached[point] > 0 {
		return lang.Text{}
	}
	points := strings.Join(r.ReachedPoints(), ", ")
	return lang.Textf(lang.Text{EN: "; %s is no point this run reaches; it reaches %s", DE: "; %s ist kein Punkt, den dieser Lauf erreicht; er erreicht %s"}, point, points)
}

// Run executes one run and checks it. It returns an error only for a
// configuration that cannot run or a variant that failed to build; every
// misbehaviour of the system under test is a violation in the Result.
//
// A panic of the variant's code inside an activity kills its process, as
// in production, and is a misstep of the run (Missteps.Panics); anywhere
// else (building a process, NextWake, an operator's command) Run returns
// an error wrapping ErrPanicked.
func Run(cfg Config) (_ Result, err error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	w, err := newWorld(cfg)
	if err != nil {
		return Result{}, err
	}
	defer w.recoverPanic(&err)
	for _, p := range w.procs {
		if err := w.start(p); err != nil {
			return Result{}, err
		}
	}

	// 1. run: the workload under faults and crashes.
	w.phase("run")
	last := time.Duration(0)
	if n := len(cfg.Workload); n > 0 {
		last = cfg.Workload[n-1].At
	}
	// The operator's planned cleanups and resends belong to the run too.
	for _, at := range cfg.Cleanups {
		last = max(last, at)
	}
	for _, r := range cfg.Resends {
		last = max(last, r.At)
	}
	for _, at := range w.replaysAt {
		last = max(last, at)
	}
	_, busy, err := w.runUntilQuiet(Epoch.Add(last + cfg.Horizon))
	if err != nil {
		return Result{}, err
	}

	// 2. quiesce: transient faults healed, no more crashes. A run whose
	// first phase used up its steps (maxSteps, Config.StepBudget) spins, whatever
	// the faults: its quiesce would spin as long, and it is STUCK now.
	w.crashing = false
	w.broker.Heal()
	w.healOutages()
	var end workEnd
	end.busy = busy
	if !w.spun {
		w.phase("quiesce")
		end.quiet, end.busy, err = w.runUntilQuiet(w.clock.Now().Add(cfg.Horizon))
		if err != nil {
			return Result{}, err
		}
	}
	if w.orderDB.HasTable(outbox.Table) {
		end.unsent = outbox.Unsent(w.orderDB)
	}

	// 3. operate: the operator's work after quiesce, in the order of
	// cfg.Operations: retention cleanups at several ages, replays of the
	// dead letters before and after their causes are fixed, a replay
	// that meets a broker error, a replay run twice (see operator.go).
	end.at, end.orderLog, end.billingLog = w.clock.Since(), w.orderDB.Log(0), w.billingDB.Log(0)
	end.stored, end.tries = len(w.broker.Log()), len(w.tries)
	end.deadLetters = w.deadLetters(end.unsent)
	// Facts, not ports: a message given up that neither the outbox nor
	// the relay's port reports is a dead letter all the same, and hidden.
	end.hidden = w.hiddenDeadLetters(end, end.deadLetters)
	for _, h := range end.hidden {
		end.deadLetters = append(end.deadLetters, variant.DeadLetter{Where: byTheFacts, MessageID: h.MessageID, AggregateID: h.AggregateID, Sequence: h.Sequence, Reason: "given up, by the facts"})
	}
	end.unheld = w.hiddenHolds()
	end.beforeReplay = w.publishes(w.interruptions())
	if err := w.operate(cfg.operations()); err != nil {
		return Result{}, err
	}

	// 4. check.
	return w.judge(end), nil
}

func (w *world) phase(name string) {
	if w.cfg.Trace {
		w.record(Event{Process: "sim", Kind: EventPhase, Action: name, Says: PhaseText(name)})
	}
}

// PhaseText names a phase of a run in both languages.
func PhaseText(name string) lang.Text {
	if t, ok := phaseTexts[name]; ok {
		return t
	}
	return lang.Plain(name)
}

var phaseTexts = map[string]lang.Text{
	"run":            {EN: "run", DE: "Lauf"},
	"quiesce":        {EN: "quiesce", DE: "Abklingen"},
	"operate":        {EN: "operate", DE: "Betrieb"},
	"replay-unfixed": {EN: "replay-unfixed", DE: "Wiedereinspielen vor der Behebung"},
	"replay":         {EN: "replay", DE: "Wiedereinspielen"},
	"replay-again":   {EN: "replay-again", DE: "erneutes Wiedereinspielen"},
}

// Missed returns the first crash cfg planned that the run r of it never
// fired: a crash that did not happen must not pass for one that was
// survived (a mistyped occurrence, relay.after-send@99).
func (r Result) Missed(cfg Config) (Crash, bool) {
	if len(r.Fired) < len(cfg.Crashes) {
		return cfg.Crashes[len(r.Fired)], true
	}
	return Crash{}, false
}
