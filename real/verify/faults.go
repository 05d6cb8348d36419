package verify

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"outboxlab/lang"
)

// FaultKind names a fault the harness makes at a moment of a produce.
type FaultKind string

// The faults. Each is aimed at one produce request of the round (the
// At-th to arrive) and acts on the relay process that sent it.
const (
	KillOnArrival     FaultKind = "kill-on-arrival"
	KillBeforeAnswer  FaultKind = "kill-before-answer"
	KillAfterAnswer   FaultKind = "kill-after-answer"
	Stall             FaultKind = "stall"
	StallOutage       FaultKind = "stall-outage"
	RelayRestart      FaultKind = "relay-restart"
	BrokerOutage      FaultKind = "broker-outage"
	TimeoutStored     FaultKind = "publish-timeout-stored"
	TimeoutDropped    FaultKind = "publish-timeout-dropped"
	ConnectionKilled  FaultKind = "db-connection-killed"
	ConnectionsKilled FaultKind = "db-connections-killed"
)

// Fault is one fault of a round: Kind, at the At-th produce request to
// arrive, or at the first one after it that reaches the fault's moment (a
// request pipelined behind one whose sender was killed is never answered,
// and a fault aimed at its answer moves on to the next).
type Fault struct {
	Kind FaultKind
	At   int
}

func (f Fault) String() string { return fmt.Sprintf("%s@%d", f.Kind, f.At) }

// faultDef is a fault kind's entry: what it does, in both languages, how
// many relay instances it needs, and at which moment it acts.
type faultDef struct {
	kind      FaultKind
	text      lang.Text
	instances int
	moment    Moment
	act       func(d *driver, p *Produce) Verdict
}

// OutageLength is how long the broker refuses produces in an outage:
// longer than a relay may wait for one acknowledgement, so that its send
// fails rather than outlasts the outage.
const OutageLength = 3 * time.Second

// answerTimeout is how long a withheld request or answer keeps its sender
// waiting before its connection closes.
const answerTimeout = time.Second

var faultDefs = []faultDef{
	{KillOnArrival, lang.Text{
		EN: "SIGKILL the sender as its produce arrives; the broker never gets it; the instance restarts",
		DE: "SIGKILL für den Absender, sobald sein Produce ankommt; der Broker bekommt es nie; die Instanz startet neu"},
		1, Arrived, func(d *driver, p *Produce) Verdict {
			d.kill(p.Sender, "as produce #%d arrives: the broker never gets it", p.N)
			return dropNow
		}},
	{KillBeforeAnswer, lang.Text{
		EN: "SIGKILL the sender when the broker has stored its produce, before the answer leaves",
		DE: "SIGKILL für den Absender, wenn der Broker sein Produce gespeichert hat und bevor die Antwort hinausgeht"},
		1, Answering, func(d *driver, p *Produce) Verdict {
			d.kill(p.Sender, "with produce #%d stored, before its answer leaves", p.N)
			return dropNow
		}},
	{KillAfterAnswer, lang.Text{
		EN: "SIGKILL the sender just after the broker's answer to its produce left",
		DE: "SIGKILL für den Absender, kurz nachdem die Antwort des Brokers auf sein Produce hinausging"},
		1, Answered, func(d *driver, p *Produce) Verdict {
			d.kill(p.Sender, "just after the answer to produce #%d left", p.N)
			return Pass
		}},
	{Stall, lang.Text{
		EN: "SIGSTOP the sender as its produce arrives, past the lease, while another instance works; then SIGCONT, while another instance's produce is held: its claim is live",
		DE: "SIGSTOP für den Absender, sobald sein Produce ankommt, länger als der Lease, während eine andere Instanz arbeitet; dann SIGCONT, während das Produce einer anderen Instanz aufgehalten wird: deren Claim ist gültig"},
		2, Arrived, func(d *driver, p *Produce) Verdict { d.stallAcross(p); return Pass }},
	{StallOutage, lang.Text{
		EN: "as stall, and the broker is down when the sender goes on: its late produce is refused",
		DE: "wie stall, und der Broker ist ausgefallen, wenn der Absender weiterläuft: sein spätes Produce wird abgelehnt"},
		2, Arrived, func(d *driver, p *Produce) Verdict {
			d.active.Add(1)
			time.AfterFunc(d.lease+500*time.Millisecond, func() { d.outage(OutageLength); d.active.Add(-1) })
			d.stop(p.Sender, d.lease+time.Second, "holding produce #%d", p.N)
			return Pass
		}},
	{RelayRestart, lang.Text{
		EN: "SIGSTOP the sender as its produce arrives, within its lease, while another instance is killed and restarts",
		DE: "SIGSTOP für den Absender, sobald sein Produce ankommt, innerhalb seines Lease, während eine andere Instanz getötet wird und neu startet"},
		2, Arrived, func(d *driver, p *Produce) Verdict {
			d.fleet.Stop(p.Sender)
			at := d.tl.Since()
			d.tl.Add("harness", 0, "SIGSTOP %s for %s (within its lease), holding produce #%d", p.Sender.Label(), d.lease/2, p.N)
			if other := d.other(p.Sender); other != nil {
				d.kill(other, "while %s holds produce #%d", p.Sender.Label(), p.N)
			}
			time.Sleep(d.lease / 2)
			d.fleet.Cont(p.Sender)
			d.stopped(p.Sender, at, d.tl.Since())
			return Pass
		}},
	{BrokerOutage, lang.Text{
		EN: "the broker refuses every produce for 3 s, from this produce on",
		DE: "der Broker lehnt 3 s lang jedes Produce ab, von diesem an"},
		1, Arrived, func(d *driver, p *Produce) Verdict { d.outage(OutageLength); return Pass }},
	{TimeoutStored, lang.Text{
		EN: "the broker stores the produce, its answer never leaves; the connection closes after 1 s",
		DE: "der Broker speichert das Produce, seine Antwort geht nie hinaus; die Verbindung schließt nach 1 s"},
		1, Answering, func(d *driver, p *Produce) Verdict {
			d.tl.Add("harness", 0, "produce #%d of %s times out: stored, the answer withheld", p.N, p.Sender.Label())
			d.interrupted(p.Sender, "its produce timed out")
			return Verdict{Withhold: true, After: answerTimeout}
		}},
	{TimeoutDropped, lang.Text{
		EN: "the broker never gets the produce and never answers; the connection closes after 1 s",
		DE: "der Broker bekommt das Produce nie und antwortet nie; die Verbindung schließt nach 1 s"},
		1, Arrived, func(d *driver, p *Produce) Verdict {
			d.tl.Add("harness", 0, "produce #%d of %s times out: dropped, never answered", p.N, p.Sender.Label())
			d.interrupted(p.Sender, "its produce timed out")
			return Verdict{Withhold: true, After: answerTimeout}
		}},
	{ConnectionKilled, lang.Text{
		EN: "pg_terminate_backend on the sender's database connections when the broker has stored its produce",
		DE: "pg_terminate_backend auf die Datenbankverbindungen des Absenders, wenn der Broker sein Produce gespeichert hat"},
		1, Answering, func(d *driver, p *Produce) Verdict { d.cutDatabase(p.Sender, p.N); return Pass }},
	{ConnectionsKilled, lang.Text{
		EN: "pg_terminate_backend on every instance's database connections when the broker has stored a produce: no instance covers for another",
		DE: "pg_terminate_backend auf die Datenbankverbindungen jeder Instanz, wenn der Broker ein Produce gespeichert hat: keine Instanz springt für eine andere ein"},
		1, Answering, func(d *driver, p *Produce) Verdict { d.cutEveryDatabase(p.N); return Pass }},
}

var dropNow = Verdict{Withhold: true}

// FaultKinds lists every fault kind, in the order of the registry.
func FaultKinds() []FaultKind {
	var out []FaultKind
	for _, d := range faultDefs {
		out = append(out, d.kind)
	}
	return out
}

// ParseFaultKind returns the kind named name, or an error naming the
// valid ones.
func ParseFaultKind(name string) (FaultKind, error) {
	if slices.Contains(FaultKinds(), FaultKind(name)) {
		return FaultKind(name), nil
	}
	var valid []string
	for _, k := range FaultKinds() {
		valid = append(valid, string(k))
	}
	return "", fmt.Errorf("unknown fault %q (valid: %s)", name, strings.Join(valid, ", "))
}

func defOf(k FaultKind) faultDef {
	for _, d := range faultDefs {
		if d.kind == k {
			return d
		}
	}
	panic("verify: no fault " + string(k)) // FaultKind values come from the registry
}

// Describe says what a fault kind does, in l.
func Describe(k FaultKind, l lang.Lang) string { return defOf(k).text.In(l) }

// ParseFault reads a fault as Fault.String writes it, KIND@N: KIND at the
// N-th produce request; an error names what is wrong and what is valid.
func ParseFault(s string) (Fault, error) {
	name, at, ok := strings.Cut(s, "@")
	if !ok {
		return Fault{}, fmt.Errorf("%q: want KIND@N, e.g. stall@3", s)
	}
	kind, err := ParseFaultKind(name)
	if err != nil {
		return Fault{}, err
	}
	n, err := strconv.Atoi(at)
	if err != nil || n < 1 {
		return Fault{}, fmt.Errorf("%q: the produce request %q is not a number >= 1", s, at)
	}
	return Fault{Kind: kind, At: n}, nil
}
