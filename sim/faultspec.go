package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"outboxlab/broker"
	"outboxlab/lang"
	"outboxlab/sim/check"
)

// FaultSpec defines one kind of fault, once: its id, what it does in both
// languages, how a story file writes it, what a valid one needs, how the
// simulator installs it, what it asks of the budgets, and whether and how
// exploration draws it. Config.Validate, the simulator, the budgets,
// story files (ParseFault), exploration (DrawFault) and every list of
// fault kinds read it; nothing else names a kind's rules.
//
// A new fault is one file with its FaultSpec (and its matrix rows, if it
// has any: Rows) and one line in faultSpecs; see CONTRIBUTING.md.
type FaultSpec struct {
	Kind FaultKind
	// Text says in a line what the fault does.
	Text lang.Text
	// Form is how a story file writes its arguments after "fault KIND":
	// "TARGET (e.g. o-1#1)", "FROM FOR", "PROCESS AT [FOR]".
	Form string
	// parse reads a story file's arguments, as Form says, into f; k is
	// what the catalogue knows that they may name.
	parse func(f *Fault, args []string, k Known) error
	// validate returns what is wrong with f in c, nil for nothing.
	validate func(f Fault, c Config) error
	// install plans or installs f in w before the run starts.
	install func(w *world, f Fault)
	// budget adds what f asks of the policies (check.Faults): an outage,
	// a timeout, a message billing cannot process; nil for nothing.
	budget func(f Fault, b *budgetFaults)
	// describe is how a schedule and a replay name f (Fault.String); nil
	// is "KIND TARGET".
	describe func(f Fault) string
	// draw, if not nil, draws f for an exploration's schedule (DrawFault);
	// nil with NotDrawn saying why.
	draw func(d *FaultDraw) (Fault, bool)
	// NotDrawn says why exploration does not draw the kind ("" if it
	// does).
	NotDrawn string
	// Rows are the matrix's rows about this kind of fault (FaultRows),
	// none, one or several (the stall's: stall, stall-outage,
	// stall-release, mark-conflict, failure-conflict).
	Rows []FaultRow
}

// FaultRow is one fault row of the matrix, declared in the FaultSpec of
// the kind it is about, next to the kind's rules: a row that installs
// faults of several kinds (relay-restart stalls two relays and kills
// one) is declared with the kind it exists for (the kill), once. The rows
// live here and not in the catalogue above the simulator because none
// needs more than the simulator has: their faults, workloads (orders'
// commands), situations and texts are sim's and its components'. What
// they aim at is the standard workload's orders (o-1#1, o-3#1: package
// scenarios' Workload), named as data; the crash matrix keeps them aimed
// (its cells fail a row whose situations the reference does not reach:
// TestARowThatMissesItsSituationIsCaught). A row that needed a variant or a
// story of the catalogue would stay there; none does.
type FaultRow struct {
	// Column places the row among the matrix's fault rows, whatever kind
	// declares it: FaultRows returns them by Column, lowest first, and no
	// two rows share one (TestEveryFaultRowHasOneEntry). The columns of
	// today's rows are 10 apart, so that a row goes between two without
	// moving any; the order is the matrix's, byte for byte, in every
	// output and golden.
	Column int
	// Point makes the row, a new one each call: a caller may change it.
	Point func() Point
}

// FaultRows returns every fault row of the matrix, every kind's, in the
// order of their Column.
func FaultRows() []Point {
	var rows []FaultRow
	for _, s := range faultSpecs {
		rows = append(rows, s.Rows...)
	}
	slices.SortStableFunc(rows, func(a, b FaultRow) int { return cmp.Compare(a.Column, b.Column) })
	points := make([]Point, len(rows))
	for i, r := range rows {
		points[i] = r.Point()
	}
	return points
}

// withRows is s with its matrix rows.
func withRows(s FaultSpec, rows ...FaultRow) FaultSpec {
	s.Rows = rows
	return s
}

// firstEvent is o-1#1, the standard workload's first event, at which the
// rows of most faults aimed at one message aim.
var firstEvent = broker.Target{AggregateID: "o-1", Sequence: 1}

// aimedRow is the row in column that aims one fault of kind at o-1#1:
// its id is the kind's.
func aimedRow(column int, kind FaultKind, text lang.Text, situations ...Situation) FaultRow {
	return FaultRow{Column: column, Point: func() Point {
		return Point{ID: string(kind), Kind: KindFault, Description: text,
			Faults: []Fault{{Kind: kind, Target: firstEvent}}, Situations: slices.Clone(situations)}
	}}
}

// faultSpecs are every fault kind. Those exploration draws come first, in
// the order it draws from (a kind added among them would change every
// schedule an exploration seed draws: add a drawn kind at the end of
// them).
var faultSpecs = []FaultSpec{
	outage, timeoutStored, timeoutDropped, duplicate, reorder, poison, rejected,
	stall, slowCommit, clockSkew, kill, unknownVersion, unknownType, wrongCurrency, corruptOnce,
	extraField, delay, commitFailure, outageRestart, operatorReplay,
}

// FaultSpecs returns every fault kind's definition, those exploration
// draws first.
func FaultSpecs() []FaultSpec { return append([]FaultSpec(nil), faultSpecs...) }

// FaultKinds are every fault kind, in the order of faultSpecs.
var FaultKinds = func() []FaultKind {
	var kinds []FaultKind
	for _, s := range faultSpecs {
		kinds = append(kinds, s.Kind)
	}
	return kinds
}()

// kindList is every fault kind, for an error that names them.
func kindList() string {
	var valid []string
	for _, k := range FaultKinds {
		valid = append(valid, string(k))
	}
	return strings.Join(valid, ", ")
}

// Spec returns the definition of kind.
func (kind FaultKind) Spec() (FaultSpec, bool) {
	for _, s := range faultSpecs {
		if s.Kind == kind {
			return s, true
		}
	}
	return FaultSpec{}, false
}

// faultForms is how a story file writes every kind: the kinds of one form
// joined by "|", for the error that names them all.
func faultForms() string {
	var forms []string
	byForm := map[string][]string{}
	for _, s := range faultSpecs {
		if byForm[s.Form] == nil {
			forms = append(forms, s.Form)
		}
		byForm[s.Form] = append(byForm[s.Form], string(s.Kind))
	}
	var out []string
	for _, form := range forms {
		out = append(out, strings.Join(byForm[form], "|")+" "+form)
	}
	return strings.Join(out, ", ")
}

// Known is what the catalogue above the simulator (package scenarios)
// knows that a fault's arguments may name: the simulator imports no
// component, so it is told.
type Known struct {
	// CommitBoundaries are the boundaries, every variant's, whose effect
	// is a database commit ("relay.claim"): where a commit-failure can
	// strike.
	CommitBoundaries []string
}

// ParseFault reads what follows "fault" in a story file: a kind and its
// arguments, as the kind's Form says; k names what they may refer to.
func ParseFault(words []string, k Known) (Fault, error) {
	if len(words) == 0 {
		return Fault{}, fmt.Errorf("fault needs a kind (valid: %s)", faultForms())
	}
	f := Fault{Kind: FaultKind(words[0])}
	spec, ok := f.Kind.Spec()
	if !ok {
		return f, fmt.Errorf("unknown fault %q (valid: %s)", f.Kind, faultForms())
	}
	return f, spec.parse(&f, words[1:], k)
}

// FaultDraw is what exploration hands a fault kind's draw: the source of
// its choices and the schedule drawn so far.
type FaultDraw struct {
	Src interface{ Intn(name string, n int) int }
	// Relays and Services are the schedule's processes.
	Relays, Services int
	// Events are the events the workload produces, Amendments those of
	// amend commands.
	Events, Amendments []broker.Target
	// Lost is set once a relay is lost for good in the schedule (at most
	// one is).
	Lost bool
}

// DrawnKinds are the fault kinds exploration draws, in the order it
// draws from.
func DrawnKinds() []FaultKind {
	var kinds []FaultKind
	for _, s := range faultSpecs {
		if s.draw != nil {
			kinds = append(kinds, s.Kind)
		}
	}
	return kinds
}

// DrawFault draws one fault of a kind exploration draws (DrawnKinds) for
// d's schedule; false when the schedule has nothing the kind can aim at.
func DrawFault(kind FaultKind, d *FaultDraw) (Fault, bool) {
	spec, ok := kind.Spec()
	if !ok || spec.draw == nil {
		return Fault{}, false
	}
	f, ok := spec.draw(d)
	f.Kind = kind
	return f, ok
}

// budgetFaults collects what a run's faults ask of the policies.
type budgetFaults struct {
	check.Faults
	message func(broker.Target) *check.MessageFaults
}

// argsWant returns an error unless args has n words, naming the form.
func argsWant(kind FaultKind, args []string, n int, form string) error {
	if len(args) != n {
		return fmt.Errorf("want \"fault %s %s\"", kind, form)
	}
	return nil
}

// ParseTarget parses a story file's target, "o-1#2".
func ParseTarget(s string) (broker.Target, error) {
	id, seq, ok := strings.Cut(s, "#")
	n, err := strconv.Atoi(seq)
	if !ok || id == "" || err != nil || n < 1 {
		return broker.Target{}, fmt.Errorf("target %q is not ORDER#SEQUENCE, e.g. o-1#2", s)
	}
	return broker.Target{AggregateID: id, Sequence: n}, nil
}

// ParseDuration parses a story file's duration: a Go duration, with days
// in front if wanted: "40s", "1m30s", "8d", "8d1m", "-1m".
func ParseDuration(s string) (time.Duration, error) {
	var days time.Duration
	rest := s
	if d, r, ok := strings.Cut(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil {
			return 0, fmt.Errorf("duration %q: want e.g. 40s, 1m30s, 8d or 8d1m", s)
		}
		days, rest = time.Duration(n)*24*time.Hour, r
		if rest == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(rest)
	if err != nil {
		return 0, fmt.Errorf("duration %q: want e.g. 40s, 1m30s, 8d or 8d1m", s)
	}
	return days + d, nil
}

// durations parses args into the durations ds point to, in order.
func durations(args []string, ds ...*time.Duration) error {
	for i, d := range ds {
		v, err := ParseDuration(args[i])
		if err != nil {
			return err
		}
		*d = v
	}
	return nil
}
