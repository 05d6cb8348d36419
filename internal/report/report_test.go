package report_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"outboxlab/domain"
	"outboxlab/internal/golden"
	"outboxlab/internal/longtest"
	"outboxlab/internal/report"
	"outboxlab/lab/cli"
	"outboxlab/orders"
	"outboxlab/scenarios"
	"outboxlab/sim"
	"outboxlab/variant"
)

// pages are one page of each kind, as labrun writes them.
var pages = []struct {
	name string
	args []string
}{
	{"scenario", []string{"scenario", "after-send-before-sent", "--variant", "non-idempotent-consumer", "--format", "html"}},
	{"scenario-de", []string{"scenario", "gap", "--format", "html", "--lang", "de"}},
	{"explore", []string{"explore", "--variant", "mark-before-send", "--runs", "300", "--format", "html"}},
	{"matrix", []string{"matrix", "--format", "html", "--variant", "outbox", "--variant", "dual-write", "--variant", "no-fencing"}},
}

// TestPages checks each kind of page: well-formed markup, nothing fetched
// from anywhere, every link pointing into the page, every violation
// linked to an event; and keeps its markup (without the style and script,
// which the browser test covers) as a golden file.
func TestPages(t *testing.T) {
	long := longtest.Long(t, "long_cli")
	for _, p := range pages {
		if !long && p.name == "matrix" {
			continue // the long form's: the matrix page grades the reference at depth course
		}
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			var out, stderr bytes.Buffer
			if code := (cli.Lab{Command: "labrun"}).Run(p.args, &out, &stderr); code > 1 {
				t.Fatalf("labrun %s: exit %d: %s", strings.Join(p.args, " "), code, stderr.String())
			}
			page := out.String()
			checkPage(t, page)
			golden.Check(t, p.name+".html", withoutStyleAndScript(page))
		})
	}
}

var (
	styleOrScript = regexp.MustCompile(`(?s)(<style>|<script>).*?(</style>|</script>)`)
	anyURL        = regexp.MustCompile(`(?i)(https?:|//[a-z]|\b(src|srcset|action)=)`)
	hrefs         = regexp.MustCompile(`href="([^"]*)"`)
	ids           = regexp.MustCompile(`\bid="([^"]*)"`)
)

func withoutStyleAndScript(page string) string {
	return styleOrScript.ReplaceAllString(page, "$1…$2")
}

// checkPage holds a page to what every page promises.
func checkPage(t *testing.T, page string) {
	t.Helper()
	// Well-formed: the markup parses as XML once style and script, which
	// are not markup, are set aside.
	d := xml.NewDecoder(strings.NewReader(withoutStyleAndScript(page)))
	d.Strict, d.Entity = true, xml.HTMLEntity
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
	}
	if m := anyURL.FindString(page); m != "" {
		t.Errorf("the page refers to something outside itself: %q", m)
	}
	have := map[string]bool{}
	for _, m := range ids.FindAllStringSubmatch(page, -1) {
		if have[m[1]] {
			t.Errorf("id %q twice", m[1])
		}
		have[m[1]] = true
	}
	for _, m := range hrefs.FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") || !have[m[1][1:]] {
			t.Errorf("link %q leads nowhere in the page", m[1])
		}
	}
	for _, li := range regexp.MustCompile(`(?s)<ol class="violations">(.*?)</ol>`).FindAllStringSubmatch(page, -1) {
		for _, item := range strings.Split(li[1], "<li>")[1:] {
			if !strings.Contains(item, `href="#`) {
				t.Errorf("a violation without a link to its event: %s", item)
			}
		}
	}
}

// traced runs a scenario with variant and its trace.
func traced(t *testing.T, scenario, variant string) sim.Result {
	t.Helper()
	sc, err := scenarios.FindScenario(scenario)
	if err != nil {
		t.Fatal(err)
	}
	v, err := scenarios.FindVariant(variant)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sc.Configure(v, sc.Seed)
	cfg.Trace = true
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestWhereAViolationWentWrong: the link of a violation leads to the event
// the outcome is about.
func TestWhereAViolationWentWrong(t *testing.T) {
	cases := []struct {
		scenario, variant string
		outcome           variant.Outcome
		want              func(e sim.Event, seq int) bool
		what              string
	}{
		{"after-send-before-sent", "non-idempotent-consumer", variant.Duplicate,
			func(e sim.Event, _ int) bool { return e.Action == "consumer.commit" && e.At.Seconds() > 5 }, "the second invoice, after the restart"},
		// o-1#1 is lost at the crash after the commit; billing holds the
		// later changes of o-1, waiting for it.
		{"crash-after-commit", "dual-write", variant.Lost,
			func(e sim.Event, seq int) bool {
				return seq == 1 && e.Action == "service.commit" || seq > 1 && e.Process == "billing"
			},
			"the commit of o-1#1, lost at the crash after it; billing's holding the later ones"},
		// Not the service's commit, which was right: the mark that came
		// before the send.
		{"mistake/mark-before-send", "mark-before-send", variant.Lost,
			func(e sim.Event, seq int) bool {
				return seq == 1 && e.Action == "relay.mark" || seq > 1 && e.Process == "billing"
			},
			"the relay's early mark of o-1#1; billing's holding the later ones"},
		{"reorder", "unordered-consumer", variant.OutOfOrder,
			func(e sim.Event, _ int) bool { return e.Action == "consumer.commit" && hasRow(e, "ledger", "o-1#1") }, "the late invoice of #1"},
		{"stall", "no-fencing", variant.Unsafe,
			func(e sim.Event, _ int) bool {
				return strings.HasPrefix(e.Process, "relay") && e.Action == "relay.mark"
			}, "the mark of the relay whose lease ran out"},
	}
	for _, c := range cases {
		res := traced(t, c.scenario, c.variant)
		found := false
		for _, v := range res.Violations {
			if v.Outcome != c.outcome {
				continue
			}
			found = true
			i, ok := report.Where(res.Trace, v)
			if !ok || !c.want(res.Trace[i], v.Sequence) {
				t.Errorf("%s with %s: %s links to %v, want %s", c.scenario, c.variant, v, res.Trace[i], c.what)
			}
		}
		if !found {
			t.Errorf("%s with %s: no %s among %v", c.scenario, c.variant, c.outcome, res.Violations)
		}
	}
}

func hasRow(e sim.Event, table, label string) bool {
	for _, r := range e.Rows {
		if r.Table == table && r.Label == label {
			return true
		}
	}
	return false
}

// bigRun is a counterexample with 100 orders, each placed and amended: a
// consumer without an inbox, its relay crashed after the 50th send.
func bigRun(t testing.TB) report.Run {
	v, err := scenarios.FindVariant("non-idempotent-consumer")
	if err != nil {
		t.Fatal(err)
	}
	var workload []sim.Command
	for i := range 100 {
		id := fmt.Sprintf("o-%d", i+1)
		at := time.Duration(i) * 100 * time.Millisecond
		workload = append(workload,
			sim.Command{At: at, Command: orders.Command{Kind: orders.Place, OrderID: id, Amount: domain.MustMoney("10.00", "EUR")}},
			sim.Command{At: at + 50*time.Millisecond, Command: orders.Command{Kind: orders.Amend, OrderID: id, Amount: domain.MustMoney("2.50", "EUR"), Text: "gift wrap"}})
	}
	cfg := sim.DefaultConfig(v, workload, 1)
	cfg.Crashes = []sim.Crash{{Point: "relay.after-send", Occurrence: 50}}
	cfg.Trace = true
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != variant.Duplicate {
		t.Fatalf("the 100-order run ends %s, want DUPLICATE: %v", res.Outcome, res.Violations[:2])
	}
	return report.Run{ID: "run", Title: "100 orders", Outcome: res.Outcome, Expected: variant.OK, Violations: res.Violations,
		Replay: "(built by the test)", Trace: res.Trace}
}

// TestA100OrderPageStaysSmall: a counterexample with 100 orders stays
// under 2 MB.
func TestA100OrderPageStaysSmall(t *testing.T) {
	var page bytes.Buffer
	r := bigRun(t)
	if err := report.WriteRun(&page, r, report.Options{}); err != nil {
		t.Fatal(err)
	}
	checkPage(t, page.String())
	t.Logf("%d events, %d bytes", len(r.Trace), page.Len())
	if page.Len() > 2<<20 {
		t.Errorf("the 100-order page has %d bytes, want at most 2 MiB", page.Len())
	}
}

func TestABadRunIsAnError(t *testing.T) {
	res := traced(t, "happy-path", "outbox")
	for _, r := range []report.Run{
		{ID: "1run", Trace: res.Trace},
		{ID: "run one", Trace: res.Trace},
		{ID: "run"},
	} {
		if err := report.WriteRun(io.Discard, r, report.Options{}); err == nil {
			t.Errorf("WriteRun(ID %q, %d events) wrote a page", r.ID, len(r.Trace))
		}
	}
}

// TestLanesInProcessOrder: the lanes go service instances, producers,
// broker, subscribers, and in each the processes by their number, not by
// who moved first (relay-2 claimed first in two-relay runs and got the
// left lane).
func TestLanesInProcessOrder(t *testing.T) {
	trace := []sim.Event{
		{Process: "sim", Kind: sim.EventPhase, Action: "run"},
		{Process: "billing", Kind: sim.EventEffect, Action: "consumer.commit"},
		{Process: "relay-2", Kind: sim.EventEffect, Action: "relay.claim"},
		{Process: "service-2", Kind: sim.EventCommand, Action: "place o-1 10.00 EUR"},
		{Process: "relay-10", Kind: sim.EventEffect, Action: "relay.claim"},
		{Process: "service-1", Kind: sim.EventCommand, Action: "place o-2 10.00 EUR"},
		{Process: "relay-1", Kind: sim.EventEffect, Action: "relay.claim"},
	}
	got := strings.Join(report.Lanes(trace), " ")
	if want := "service-1 service-2 relay-1 relay-2 relay-10 broker billing"; got != want {
		t.Errorf("lanes %q, want %q", got, want)
	}
}
