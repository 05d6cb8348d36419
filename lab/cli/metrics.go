package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"outboxlab/internal/metrics"
	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/sim"
)

// metricsSamples is about how many samples the metrics view shows.
const metricsSamples = 40

// metricsRules are the dashboard's alerts: the oldest unsent message
// older than limit, and a dead letter in the outbox.
func metricsRules(limit time.Duration) []metrics.Rule {
	return []metrics.Rule{metrics.OldestUnsent(limit), metrics.DeadLetters()}
}

// writeMetrics prints the metrics view of a run: the dashboard sampled
// over the run and quiesce, and when each alert fired.
func writeMetrics(w io.Writer, sc scenarios.Scenario, r scenarioRun, res sim.Result, expected string) {
	l := langOf(w)
	variantName, seed, limit, replay := r.v.Name, r.seed, r.alert, r.replay+" --format metrics"
	end := res.WorkEnded
	step := metrics.Step(end, metricsSamples)
	samples := metrics.Series(res.OrderLog, res.BillingLog, sim.Epoch, end, step, metricsRules(limit))
	summary, _ := scenarioText(w, sc)
	fmt.Fprint(w, lang.Textf(lang.Text{
		EN: "Metrics of scenario %s, variant %s, seed %d, every %s\n",
		DE: "Metriken des Szenarios %s, Variante %s, Seed %d, alle %s\n",
	}, sc.Name, variantName, seed, lang.Duration(step)).In(l))
	fmt.Fprintf(w, "%s\n", summary)
	if r.tuned {
		fmt.Fprintf(w, "%s\n", lang.Wrap("", "", describePolicy(r.v).In(l), width))
	}
	fmt.Fprintln(w)
	head := lang.Text{
		EN: "time         PENDING IN_FLIGHT FAILED DEAD_LETTER    SENT  oldest unsent blocked held  sent   read locked     for missing",
		DE: "Zeit         PENDING IN_FLIGHT FAILED DEAD_LETTER    SENT  älteste offen blockiert hält ges. gelesen Sperre   Dauer  fehlt",
	}
	fmt.Fprintln(w, head.In(l))
	for _, s := range samples {
		by := s.Outbox.ByStatus
		oldest := "-"
		if s.Unsent() > 0 {
			oldest = lang.Duration(s.Outbox.OldestUnsentAge.Round(time.Second)).In(l)
		}
		lockedFor := "-"
		if s.Locked > 0 {
			lockedFor = lang.Duration(s.LockedFor.Round(time.Millisecond)).In(l)
		}
		line := fmt.Sprintf("%-12s %7d %9d %6d %11d %7d  %13s %7d %4d %5d %6d %6d %7s %7d", sim.TimeText(s.At).In(l), by[outbox.Pending], by[outbox.InFlight], by[outbox.Failed],
			by[outbox.DeadLetter], by[outbox.Sent], oldest, len(s.Outbox.Blocked), s.Held, s.SentSince, s.Reads, s.Locked, lockedFor, s.Missing)
		if len(s.Alerts) > 0 {
			line += "  ALERT"
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "%s\n", lang.Wrap("", "", lang.Textf(lang.Text{
		EN: "(oldest unsent: the age of the oldest message not yet SENT; blocked: aggregates whose oldest unsent message cannot be sent now, their later ones waiting behind it; held: messages billing holds unapplied, parked or dead; sent: messages sent in the %s before; read: the most rows one claim of a relay read in the database in that time, measured; locked, for: the most outbox rows one transaction held locked until its commit in that time, and how long it was open, measured: chapter 003's relay holds its batch's locks across the publish, the reference's lease needs none; missing: the changes the service committed that have no effect downstream yet, measured)",
		DE: "(älteste offen: das Alter der ältesten noch nicht gesendeten Nachricht; blockiert: Aggregate, deren älteste ungesendete Nachricht gerade nicht gesendet werden kann, ihre späteren warten dahinter; hält: Nachrichten, die Billing unangewendet hält, geparkt oder als Dead Letter; ges.: in den %s davor gesendete Nachrichten; gelesen: die meisten Zeilen, die ein Claim eines Relays in der Zeit in der Datenbank las, gemessen; Sperre, Dauer: die meisten Outbox-Zeilen, die eine Transaktion in der Zeit bis zu ihrem Commit gesperrt hielt, und wie lange sie offen war, gemessen: das Relay aus Kapitel 003 hält die Sperren seines Batches über das Senden hinweg, die Lease der Referenz braucht keine; fehlt: die committeten Änderungen des Service, die noch keine Wirkung beim Empfänger haben, gemessen)",
	}, lang.Duration(step)).In(l), width))
	writeAlerts(w, samples, metricsRules(limit), step)
	fmt.Fprintf(w, "\n%s\n", inf(w, scenarios.OutcomeLine, res.Outcome, expected))
	fmt.Fprint(w, inf(w, lang.Text{EN: "Replay: %s\n", DE: "Wiederholen: %s\n"}, replay))
}

// writeAlerts says, for each rule, from when to when it fired (a run of
// samples in a row is one alert), or that it never did.
func writeAlerts(w io.Writer, samples []metrics.Sample, rules []metrics.Rule, step time.Duration) {
	l := langOf(w)
	fmt.Fprintln(w, lang.Text{EN: "\nAlerts:", DE: "\nAlarme:"}.In(l))
	for _, r := range rules {
		var spans []string
		for i := 0; i < len(samples); i++ {
			if !fires(samples[i], r) {
				continue
			}
			j := i
			for j+1 < len(samples) && fires(samples[j+1], r) {
				j++
			}
			spans = append(spans, lang.Textf(lang.Text{EN: "from %s to %s", DE: "von %s bis %s"},
				sim.TimeText(samples[i].At), sim.TimeText(samples[j].At)).In(l))
			i = j
		}
		if len(spans) == 0 {
			fmt.Fprintf(w, "%s\n", lang.Wrap("  "+r.Name+":", "    ", lang.Text{EN: "never fired", DE: "nie ausgelöst"}.In(l), width))
			continue
		}
		fmt.Fprintf(w, "%s\n", lang.Wrap("  "+r.Name+":", "    ", lang.Textf(lang.Text{EN: "FIRED %s (sampled every %s): %s", DE: "AUSGELÖST %s (alle %s gemessen): %s"},
			strings.Join(spans, ", "), lang.Duration(step), r.Text.In(l)).In(l), width))
	}
}

func fires(s metrics.Sample, r metrics.Rule) bool {
	for _, a := range s.Alerts {
		if a.Name == r.Name {
			return true
		}
	}
	return false
}
