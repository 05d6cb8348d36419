package scenarios

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/sim"
	"outboxlab/variant"
)

// Separator starts a scenario file's expected output: everything below it
// is what `labrun scenario` prints for the file's variant and seed (go test
// ./lab/cli -update rewrites it).
const Separator = "--- expected"

// MaxRelays, MaxServices and MaxConsumers bound how many relay, service and
// billing instances a run has, on labrun's --relays as in a story file: a run with more tells
// nobody anything (99,999 relays ran for a minute in 900 MB).
const (
	MaxRelays    = 100
	MaxServices  = 100
	MaxConsumers = 10
)

// File is a scenario file parsed: the story and the expected output.
type File struct {
	Scenario
	// Expected is the text below the separator ("" if there is none).
	Expected string
}

// ParseFile reads a scenario file (see the scenarios package comment for
// the format). name is the file's path, for error messages and for the
// scenario's name: the file's name without its directory, a leading number
// that orders the stories ("20-") and ".txt". An error names the file and
// line and what is valid there: a line that does not parse, a number
// beyond labrun's own limits, a fault aimed at an event the workload never
// makes or a process the story does not have, a crash point its variant
// never reaches (found by running the story once without its crashes).
func ParseFile(name, text string) (File, error) {
	p := parser{name: name, f: File{Scenario: Scenario{Name: StoryName(name), Seed: MatrixSeed, Run: sim.RunID{Story: StoryName(name)}}}, cfg: sim.Config{Relays: 1, Services: 1}}
	body, expected, found := strings.Cut(text, "\n"+Separator+"\n")
	if found {
		p.f.Expected = expected
	}
	for i, line := range strings.Split(body, "\n") {
		if err := p.line(strings.TrimSpace(line)); err != nil {
			return File{}, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		p.lineNo++
	}
	return p.finish()
}

// parser is a scenario file being read.
type parser struct {
	name                   string
	lineNo                 int // of the line being read, from 0
	f                      File
	narrative, narrativeDE []string
	cfg                    sim.Config
	workload               []sim.Command
	relays                 int
	restart                time.Duration
	refs                   []ref
	// once are the lines a story has at most once, by keyword, with the
	// line (from 1) that had it first.
	once map[string]int
}

// onceKeywords are the lines a story has at most once: a second one
// would silently replace the first.
var onceKeywords = []string{"summary", "summary-de", "variant", "point", "expect", "seed", "relays", "services", "consumers", "history", "restart-delay"}

// line reads one line.
func (p *parser) line(line string) error {
	if rest, ok := strings.CutPrefix(line, "#de "); ok {
		p.narrativeDE = append(p.narrativeDE, strings.TrimSpace(rest))
		return nil
	}
	if rest, ok := strings.CutPrefix(line, "#"); ok {
		p.narrative = append(p.narrative, strings.TrimSpace(rest))
		return nil
	}
	words := strings.Fields(line)
	if len(words) == 0 {
		return nil
	}
	if slices.Contains(onceKeywords, words[0]) {
		if first, ok := p.once[words[0]]; ok {
			return fmt.Errorf("a second %s line (the first is line %d): a story has one", words[0], first)
		}
		if p.once == nil {
			p.once = map[string]int{}
		}
		p.once[words[0]] = p.lineNo + 1
	}
	arg := func(n int) string { // the n-th word after the keyword, or ""
		if n < len(words) {
			return words[n]
		}
		return ""
	}
	if handled, err := p.runLine(line, words); handled {
		return err
	}
	var err error
	switch words[0] {
	case "summary":
		p.f.Summary.EN = strings.TrimSpace(strings.TrimPrefix(line, "summary"))
	case "summary-de":
		p.f.Summary.DE = strings.TrimSpace(strings.TrimPrefix(line, "summary-de"))
	case "variant":
		if _, err = FindVariant(arg(1)); err == nil {
			p.f.Variant = arg(1)
		}
	case "point":
		if _, err = FindPoint(arg(1)); err == nil {
			p.f.Point = arg(1)
		}
	case "expect":
		err = p.f.Expect.UnmarshalText([]byte(arg(1)))
	case "seed":
		p.f.Seed, err = strconv.ParseUint(arg(1), 10, 64)
		if err != nil {
			err = fmt.Errorf("seed %q is not a whole number >= 0", arg(1))
		}
	case "workload":
		err = p.addWorkload(words)
	case "at":
		var c sim.Command
		c, err = command(words)
		if err == nil && len(p.workload) > 0 && c.At < p.workload[len(p.workload)-1].At {
			err = fmt.Errorf("at %s is earlier than the command before it", arg(1))
		}
		p.workload = append(p.workload, c)
	case "crash":
		err = p.addCrash(line, arg(1))
	case "fault":
		var flt sim.Fault
		if flt, err = sim.ParseFault(words[1:], known); err == nil {
			p.cfg.Faults = append(p.cfg.Faults, flt)
			p.refs = append(p.refs, faultRef(p.lineNo+1, words, flt))
		}
	default:
		err = fmt.Errorf("unknown line %q (valid: summary, summary-de, variant, point, expect, seed, relays, services, consumers, history, ids, restart-delay, workload, at, cleanup, resend, crash, fault, # narrative, #de narrative, %s)", words[0], Separator)
	}
	return err
}

// runLine reads a line that shapes the run beyond its workload: how many
// of each process, the ids, the restart delay, the operator's cleanups and
// resends, the history. It reports whether the line was one of those.
func (p *parser) runLine(line string, words []string) (bool, error) {
	arg := func(n int) string { // the n-th word after the keyword, or ""
		if n < len(words) {
			return words[n]
		}
		return ""
	}
	var err error
	switch words[0] {
	case "relays":
		p.relays, err = count("relays", arg(1), MaxRelays)
	case "services":
		p.cfg.Services, err = count("services", arg(1), MaxServices)
	case "history":
		p.cfg.History, err = strconv.Atoi(arg(1))
		if err != nil || p.cfg.History < 1 || p.cfg.History > sim.MaxHistory {
			err = fmt.Errorf("history %q: want how many SENT messages the outbox holds from the year before, 1 to %d", arg(1), sim.MaxHistory)
		}
	case "consumers":
		p.cfg.Consumers, err = count("consumers", arg(1), MaxConsumers)
	case "ids":
		if len(words) < 2 {
			err = fmt.Errorf("ids needs the message ids to hand out first, e.g. \"ids e-5531 e-5532\"")
		}
		p.cfg.IDs = append(p.cfg.IDs, words[1:]...)
	case "restart-delay":
		p.restart, err = duration(arg(1))
	case "cleanup":
		var at time.Duration
		if at, err = duration(strings.TrimPrefix(arg(1), "@")); err == nil {
			p.cfg.Cleanups = append(p.cfg.Cleanups, at)
		}
	case "resend":
		var r sim.Resend
		if len(words) != 3 {
			err = fmt.Errorf("want \"resend TARGET AT\": an operator publishes a SENT message again from the outbox, e.g. \"resend o-1#1 2h\"")
		} else if r.Target, err = target(arg(1)); err == nil {
			r.At, err = duration(arg(2))
		}
		p.cfg.Resends = append(p.cfg.Resends, r)
	default:
		return false, nil
	}
	return true, err
}

// count parses the number of relays or services: from 1 to most, as
// labrun's --relays.
func count(word, text string, most int) (int, error) {
	n, err := strconv.Atoi(text)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange), err == nil && n > most:
		return 0, fmt.Errorf("%s %s is too many (at most %d)", word, text, most)
	case err != nil || n < 1:
		return 0, fmt.Errorf("%s %q is not a whole number >= 1", word, text)
	}
	return n, nil
}

func (p *parser) addWorkload(words []string) error {
	name := ""
	if len(words) > 1 {
		name = words[1]
	}
	switch name {
	case "standard":
		p.workload = append(p.workload, Workload()...)
	case "one-order":
		p.workload = append(p.workload, OneOrder()...)
	case "orders":
		n, err := strconv.Atoi(strings.Join(words[2:3], ""))
		if err != nil || n < 1 || n > maxOrders || len(words) != 4 {
			return fmt.Errorf("want \"workload orders N EVERY\" with N from 1 to %d, e.g. \"workload orders 20 30s\"", maxOrders)
		}
		every, err := duration(words[3])
		if err != nil || every <= 0 {
			return fmt.Errorf("workload orders: every %q: want a positive duration, e.g. 30s", words[3])
		}
		for i := range n {
			p.workload = append(p.workload, sim.Command{At: time.Duration(i) * every,
				Command: orders.Command{Kind: orders.Place, OrderID: fmt.Sprintf("o-%d", i+1), Amount: domain.MustMoney("10.00", "EUR")}})
		}
	default:
		return fmt.Errorf("unknown workload %q (valid: standard, one-order, orders N EVERY)", name)
	}
	return nil
}

// maxOrders bounds "workload orders N EVERY".
const maxOrders = 10_000

func (p *parser) addCrash(line, word string) error {
	point, k, err := sim.ParseScenarioPoint(word)
	if err == nil && !strings.Contains(point, ".before-") && !strings.Contains(point, ".after-") {
		err = fmt.Errorf("crash point %q is not of the form process.before-effect or process.after-effect", point)
	}
	p.cfg.Crashes = append(p.cfg.Crashes, sim.Crash{Point: point, Occurrence: k})
	p.refs = append(p.refs, ref{line: p.lineNo + 1, what: line, point: point, k: k})
	return err
}

// finish checks what the whole file says and builds the scenario.
func (p *parser) finish() (File, error) {
	f, name := p.f, p.name
	if f.Summary.EN == "" {
		return File{}, fmt.Errorf("%s: no summary line (e.g. \"summary the broker delivers o-1's first message twice\")", name)
	}
	if len(p.workload) == 0 {
		return File{}, fmt.Errorf("%s: no workload (a \"workload standard\" line or \"at 0s place o-1 10.00 EUR\" lines)", name)
	}
	f.Narrative = lang.Text{EN: strings.Join(p.narrative, " "), DE: strings.Join(p.narrativeDE, " ")}
	cfg, workload, relays, restart := p.cfg, p.workload, p.relays, p.restart
	f.Configure = func(v variant.Variant, seed uint64) sim.Config {
		c := sim.DefaultConfig(v, append([]sim.Command(nil), workload...), seed)
		c.Crashes, c.Faults, c.Cleanups, c.Services, c.IDs, c.Consumers, c.History = cfg.Crashes, cfg.Faults, cfg.Cleanups, cfg.Services, cfg.IDs, cfg.Consumers, cfg.History
		c.Resends = cfg.Resends
		if relays > 0 {
			c.Relays = relays
		}
		if restart > 0 {
			c.RestartDelay = restart
		}
		return c
	}
	v, err := fileVariant(f.Variant)
	if err != nil {
		return File{}, fmt.Errorf("%s: %w", name, err)
	}
	if f.Expect != variant.OK && f.Variant == "" {
		return File{}, fmt.Errorf("%s: \"expect %s\" is what the story's own variant ends with: name it in a \"variant\" line", name, f.Expect)
	}
	if err := checkRefs(name, f.Configure(v, f.Seed), p.refs); err != nil {
		return File{}, err
	}
	return f, nil
}

// StoryName is the scenario name of a story file: "stories/20-gap.txt" is
// "gap".
func StoryName(file string) string {
	name := strings.TrimSuffix(path.Base(file), ".txt")
	if n, rest, ok := strings.Cut(name, "-"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
		return rest
	}
	return name
}

// command parses "at 2s amend o-1 2.50 EUR gift wrap".
func command(words []string) (sim.Command, error) {
	if len(words) < 4 {
		return sim.Command{}, fmt.Errorf("want \"at TIME place|release|amend ORDER AMOUNT CURRENCY [TEXT]\" or \"at TIME cancel ORDER [TEXT]\"")
	}
	at, err := duration(words[1])
	if err != nil {
		return sim.Command{}, err
	}
	c := sim.Command{At: at, Command: orders.Command{OrderID: words[3]}}
	rest := words[4:]
	switch words[2] {
	case "place", "release", "amend":
		// release is the insurance story's place: the claims service
		// releases a claim for payout.
		c.Kind = orders.Place
		if words[2] == "amend" {
			c.Kind = orders.Amend
		}
		if len(rest) < 2 {
			return c, fmt.Errorf("%s needs an amount and a currency, e.g. \"%s o-1 10.00 EUR\"", words[2], words[2])
		}
		if c.Amount, err = domain.ParseMoney(rest[0], rest[1]); err != nil {
			return c, err
		}
		rest = rest[2:]
	case "cancel":
		c.Kind = orders.Cancel
	default:
		return c, fmt.Errorf("unknown command %q (valid: place, amend, cancel; release in the insurance story)", words[2])
	}
	c.Text = strings.Join(rest, " ")
	return c, nil
}

// target parses "o-1#2".
func target(s string) (broker.Target, error) { return sim.ParseTarget(s) }

// duration parses a Go duration, with days in front if wanted: "40s",
// "1m30s", "8d", "8d1m", "-1m".
func duration(s string) (time.Duration, error) { return sim.ParseDuration(s) }
