package scenarios

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/lab/variant"
	"outboxlab/orders"
	"outboxlab/sim"
)

// Separator starts a scenario file's expected output: everything below it
// is what `labrun scenario` prints for the file's variant and seed (go test
// ./lab/cli -update rewrites it).
const Separator = "--- expected"

// MaxRelays and MaxServices bound how many relay and service instances a
// run has, on labrun's --relays as in a story file: a run with more tells
// nobody anything (99,999 relays ran for a minute in 900 MB).
const (
	MaxRelays   = 100
	MaxServices = 100
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
// line and what is valid there.
func ParseFile(name, text string) (File, error) {
	f := File{Scenario: Scenario{Name: StoryName(name), Seed: MatrixSeed}}
	var (
		narrative, narrativeDE []string
		cfg                    = sim.Config{Relays: 1, Services: 1}
		workload               []sim.Command
		relays                 int
		restart                time.Duration
	)
	body, expected, found := strings.Cut(text, "\n"+Separator+"\n")
	if found {
		f.Expected = expected
	}
	for i, line := range strings.Split(body, "\n") {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, i+1, fmt.Sprintf(format, args...))
		}
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "#de "); ok {
			narrativeDE = append(narrativeDE, strings.TrimSpace(rest))
			continue
		}
		if rest, ok := strings.CutPrefix(line, "#"); ok {
			narrative = append(narrative, strings.TrimSpace(rest))
			continue
		}
		words := strings.Fields(line)
		if len(words) == 0 {
			continue
		}
		arg := func(n int) string { // the n-th word after the keyword, or ""
			if n < len(words) {
				return words[n]
			}
			return ""
		}
		var err error
		switch words[0] {
		case "summary":
			f.Summary = strings.TrimSpace(strings.TrimPrefix(line, "summary"))
		case "summary-de":
			f.SummaryDE = strings.TrimSpace(strings.TrimPrefix(line, "summary-de"))
		case "variant":
			if _, err = FindVariant(arg(1)); err == nil {
				f.Variant = arg(1)
			}
		case "point":
			if _, err = FindPoint(arg(1)); err == nil {
				f.Point = arg(1)
			}
		case "seed":
			f.Seed, err = strconv.ParseUint(arg(1), 10, 64)
			if err != nil {
				err = fmt.Errorf("seed %q is not a whole number >= 0", arg(1))
			}
		case "relays", "services":
			n, convErr := strconv.Atoi(arg(1))
			if convErr != nil || n < 1 {
				err = fmt.Errorf("%s %q is not a whole number >= 1", words[0], arg(1))
			} else if words[0] == "relays" {
				relays = n
			} else {
				cfg.Services = n
			}
		case "restart-delay":
			restart, err = duration(arg(1))
		case "workload":
			switch arg(1) {
			case "standard":
				workload = append(workload, Workload()...)
			case "one-order":
				workload = append(workload, OneOrder()...)
			default:
				err = fmt.Errorf("unknown workload %q (valid: standard, one-order)", arg(1))
			}
		case "at":
			var c sim.Command
			c, err = command(words)
			if err == nil && len(workload) > 0 && c.At < workload[len(workload)-1].At {
				err = fmt.Errorf("at %s is earlier than the command before it", arg(1))
			}
			workload = append(workload, c)
		case "cleanup":
			var at time.Duration
			if at, err = duration(strings.TrimPrefix(arg(1), "@")); err == nil {
				cfg.Cleanups = append(cfg.Cleanups, at)
			}
		case "crash":
			point, k, parseErr := sim.ParseScenarioPoint(arg(1))
			err = parseErr
			if err == nil && !strings.Contains(point, ".before-") && !strings.Contains(point, ".after-") {
				err = fmt.Errorf("crash point %q is not of the form process.before-effect or process.after-effect", point)
			}
			cfg.Crashes = append(cfg.Crashes, sim.Crash{Point: point, Occurrence: k})
		case "fault":
			var flt sim.Fault
			if flt, err = fault(words[1:]); err == nil {
				cfg.Faults = append(cfg.Faults, flt)
			}
		default:
			err = fmt.Errorf("unknown line %q (valid: summary, summary-de, variant, point, seed, relays, services, restart-delay, workload, at, cleanup, crash, fault, # narrative, #de narrative, %s)", words[0], Separator)
		}
		if err != nil {
			return File{}, fail("%v", err)
		}
	}
	if f.Summary == "" {
		return File{}, fmt.Errorf("%s: no summary line (e.g. \"summary the broker delivers o-1's first message twice\")", name)
	}
	if len(workload) == 0 {
		return File{}, fmt.Errorf("%s: no workload (a \"workload standard\" line or \"at 0s place o-1 10.00 EUR\" lines)", name)
	}
	f.Narrative = strings.Join(narrative, " ")
	f.NarrativeDE = strings.Join(narrativeDE, " ")
	f.Configure = func(v variant.Variant, seed uint64) sim.Config {
		c := sim.DefaultConfig(v, append([]sim.Command(nil), workload...), seed)
		c.Crashes, c.Faults, c.Cleanups, c.Services = cfg.Crashes, cfg.Faults, cfg.Cleanups, cfg.Services
		if relays > 0 {
			c.Relays = relays
		}
		if restart > 0 {
			c.RestartDelay = restart
		}
		return c
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
		return sim.Command{}, fmt.Errorf("want \"at TIME place|amend ORDER AMOUNT CURRENCY [TEXT]\" or \"at TIME cancel ORDER [TEXT]\"")
	}
	at, err := duration(words[1])
	if err != nil {
		return sim.Command{}, err
	}
	c := sim.Command{At: at, Command: orders.Command{OrderID: words[3]}}
	rest := words[4:]
	switch words[2] {
	case "place", "amend":
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
		return c, fmt.Errorf("unknown command %q (valid: place, amend, cancel)", words[2])
	}
	c.Text = strings.Join(rest, " ")
	return c, nil
}

// fault parses what follows "fault": a kind and its arguments.
func fault(words []string) (sim.Fault, error) {
	const valid = "broker-outage FROM FOR, publish-timeout-stored|publish-timeout-dropped|duplicate-delivery|reorder|poison|corrupt-once|unknown-version|unknown-type|wrong-currency|rejected TARGET, " +
		"delay TARGET FOR, stall PROCESS POINT FOR, slow-commit PROCESS FOR, clock-skew PROCESS SKEW, kill PROCESS AT [FOR], commit-failure BOUNDARY@K"
	if len(words) == 0 {
		return sim.Fault{}, fmt.Errorf("fault needs a kind (valid: %s)", valid)
	}
	f := sim.Fault{Kind: sim.FaultKind(words[0])}
	args := words[1:]
	want := func(n int, form string) error {
		if len(args) != n {
			return fmt.Errorf("want \"fault %s %s\"", f.Kind, form)
		}
		return nil
	}
	var err error
	switch f.Kind {
	case sim.FaultOutage:
		if err = want(2, "FROM FOR"); err == nil {
			f.From, err = duration(args[0])
			if err == nil {
				f.For, err = duration(args[1])
			}
		}
	case sim.FaultTimeoutStored, sim.FaultTimeoutDropped, sim.FaultDuplicate, sim.FaultReorder, sim.FaultPoison, sim.FaultUnknownVersion, sim.FaultUnknownType, sim.FaultWrongCurrency, sim.FaultCorruptOnce, sim.FaultRejected:
		if err = want(1, "TARGET (e.g. o-1#1)"); err == nil {
			f.Target, err = target(args[0])
		}
	case sim.FaultDelay:
		if err = want(2, "TARGET FOR"); err == nil {
			if f.Target, err = target(args[0]); err == nil {
				f.For, err = duration(args[1])
			}
		}
	case sim.FaultStall:
		if err = want(3, "PROCESS POINT FOR"); err == nil {
			f.Process, f.Point = args[0], args[1]
			f.For, err = duration(args[2])
		}
	case sim.FaultSlowCommit:
		if err = want(2, "PROCESS FOR"); err == nil {
			f.Process = args[0]
			f.For, err = duration(args[1])
		}
	case sim.FaultClockSkew:
		if err = want(2, "PROCESS SKEW (negative: behind)"); err == nil {
			f.Process = args[0]
			f.Skew, err = duration(args[1])
		}
	case sim.FaultKill:
		if len(args) == 3 {
			f.For, err = duration(args[2])
			args = args[:2]
		}
		if err == nil {
			err = want(2, "PROCESS AT [FOR]")
		}
		if err == nil {
			f.Process = args[0]
			f.From, err = duration(args[1])
		}
	case sim.FaultCommitFailure:
		if err = want(1, "BOUNDARY@K (e.g. relay.claim@2)"); err == nil {
			boundary, at, _ := strings.Cut(args[0], "@")
			k, convErr := strconv.Atoi(at)
			if convErr != nil || k < 1 || !slices.Contains(sim.CommitBoundaries, boundary) {
				err = fmt.Errorf("fault commit-failure %q: want BOUNDARY@K with K >= 1 and a boundary of %s", args[0], strings.Join(sim.CommitBoundaries, ", "))
			}
			f.Point, f.Occurrence = boundary, k
		}
	default:
		err = fmt.Errorf("unknown fault %q (valid: %s)", f.Kind, valid)
	}
	return f, err
}

// target parses "o-1#2".
func target(s string) (broker.Target, error) {
	id, seq, ok := strings.Cut(s, "#")
	n, err := strconv.Atoi(seq)
	if !ok || id == "" || err != nil || n < 1 {
		return broker.Target{}, fmt.Errorf("target %q is not ORDER#SEQUENCE, e.g. o-1#2", s)
	}
	return broker.Target{AggregateID: id, Sequence: n}, nil
}

// duration parses a Go duration, with days in front if wanted: "40s",
// "1m30s", "8d", "8d1m", "-1m".
func duration(s string) (time.Duration, error) {
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
