package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"outboxlab/internal/backlog"
	"outboxlab/lab/lang"
)

func runBacklog(args []string, stdout io.Writer) error {
	fs := newFlags("backlog", "", lang.Text{
		EN: "Chapter 001's backlog arithmetic: how many messages wait after an outage, and how long the relay takes to drain them; --simulate checks it against a message-level run of the reference relay.",
		DE: "Die Rückstau-Rechnung aus Kapitel 001: wie viele Nachrichten nach einem Ausfall warten und wie lange das Relay braucht, sie abzubauen; --simulate prüft sie gegen einen Lauf des Referenz-Relays Nachricht für Nachricht.",
	}, stdout)
	rateText := fs.required("rate", "R", lang.Text{EN: "events arriving per second, e.g. 500", DE: "ankommende Ereignisse je Sekunde, z. B. 500"})
	outageText := fs.required("outage", "D", lang.Text{EN: "how long the broker is down, e.g. 20m or 1h30m", DE: "wie lange der Broker ausfällt, z. B. 20m oder 1h30m"})
	relayText := fs.required("relay", "P", lang.Text{EN: "messages the relay publishes per second once the broker is back, e.g. 800", DE: "Nachrichten, die das Relay je Sekunde sendet, sobald der Broker zurück ist, z. B. 800"})
	simulate := fs.boolean("simulate", lang.Text{
		EN: "also run the message-level simulation of the reference relay (the output says with which policy; a backlog that cannot drain, or would not fit in memory, is refused with the arithmetic's answer)",
		DE: "zusätzlich die Simulation des Referenz-Relays Nachricht für Nachricht (die Ausgabe nennt seine Strategie; einen Rückstau, der sich nicht abbauen kann oder nicht in den Speicher passt, lehnt sie mit der Antwort der Rechnung ab)",
	})
	format := fs.formatFlag("text", "json")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	rate, err := positive("--rate", *rateText, "events per second")
	if err != nil {
		return err
	}
	relay, err := positive("--relay", *relayText, "messages per second")
	if err != nil {
		return err
	}
	if *outageText == "" {
		return usagef("missing --outage (a duration such as 20m)")
	}
	outage, err := time.ParseDuration(*outageText)
	if err != nil || outage < 0 {
		return usagef("--outage %q is not a duration >= 0 (e.g. 20m, 1h30m, 90s)", *outageText)
	}
	p := backlog.Params{Rate: rate, Outage: outage, Relay: relay}
	est, err := backlog.Compute(p)
	if err != nil {
		return usageError{msg: err.Error()}
	}
	var sim *backlog.Simulation
	if n := backlog.Messages(p, est); *simulate && n > backlog.MaxMessages {
		return usagef("--simulate would write about %.3g messages; it runs up to %d (the chapter's 500/s for 20 minutes is about 1.6 million)", n, backlog.MaxMessages)
	}
	if *simulate {
		s, err := backlog.SimulateWith(p, simulationProgress())
		if err != nil {
			return err
		}
		sim = &s
	}
	if format.value == "json" {
		return writeBacklogJSON(stdout, est, sim)
	}
	writeBacklogText(stdout, p, est, sim)
	return nil
}

// positive parses a required number > 0.
func positive(flagName, text, unit string) (float64, error) {
	if text == "" {
		return 0, usagef("missing %s (a number of %s > 0)", flagName, unit)
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, usagef("%s %q is not a number of %s > 0", flagName, text, unit)
	}
	return v, nil
}

// rounded prints a duration to a tenth of a second.
func rounded(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) }

// rate prints a rate with at most six significant digits.
func rate(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// backlogRetries explains why a small backlog drains slower than the
// arithmetic says.
const backlogRetries = ";\nthe arithmetic assumes every message goes out the moment the broker is back, but the\n" +
	"relay retries each with exponential backoff (up to 5 minutes between tries), and a small\nbacklog " +
	"drains at the pace of its retries, not of the relay's throughput"

func writeBacklogText(w io.Writer, p backlog.Params, est backlog.Estimate, sim *backlog.Simulation) {
	fmt.Fprint(w, trf(w, "Backlog after a %s outage at %s events/s: %.0f messages (R·D)\n", p.Outage, rate(p.Rate), est.Backlog))
	if est.Drains {
		fmt.Fprint(w, trf(w, "Drain at %s/s relay throughput, %s/s net: %s (backlog / (P − R))\n", rate(p.Relay), rate(p.Relay-p.Rate), rounded(est.Drain)))
	} else {
		fmt.Fprint(w, trf(w, "The backlog never drains: the relay (%s/s) is not faster than the arrivals (%s/s).\n", rate(p.Relay), rate(p.Rate)))
	}
	if sim != nil {
		if sim.Drained {
			fmt.Fprint(w, trf(w, "Simulated with the real relay: drained in %s", rounded(sim.Drain)))
			if est.Drains && est.Drain > 0 {
				off := 100 * (sim.Drain.Seconds()/est.Drain.Seconds() - 1)
				fmt.Fprint(w, trf(w, " (%+.2f%% against the arithmetic)", off))
				if off > 10 {
					fmt.Fprint(w, tr(w, backlogRetries))
				}
			}
			fmt.Fprintln(w)
		} else {
			fmt.Fprintln(w, tr(w, "Simulated with the real relay: not drained by the end of the simulation."))
		}
		fmt.Fprint(w, trf(w, "Peak age of the oldest unsent message: %s (%d messages, %d waiting when the broker came back)\n",
			rounded(sim.PeakOldestAge), sim.Messages, sim.Backlog))
	}
	fmt.Fprint(w, trf(w, "Without cleanup, %g events/s leave %.0f SENT rows a day in the outbox (chapter 004: 2,000 a day are %.0f a year).\n",
		p.Rate, backlog.Growth(p.Rate*86400, 24*time.Hour), backlog.Growth(2000, 365*24*time.Hour)))
}

func writeBacklogJSON(w io.Writer, est backlog.Estimate, sim *backlog.Simulation) error {
	out := struct {
		BacklogMessages       float64  `json:"backlogMessages"`
		Drains                bool     `json:"drains"`
		DrainSeconds          *float64 `json:"drainSeconds"`
		SimulatedDrainSeconds *float64 `json:"simulatedDrainSeconds,omitempty"`
		PeakOldestAgeSeconds  *float64 `json:"peakOldestAgeSeconds,omitempty"`
		SimulatedDrained      *bool    `json:"simulatedDrained,omitempty"`
	}{BacklogMessages: est.Backlog, Drains: est.Drains}
	if est.Drains {
		s := est.Drain.Seconds()
		out.DrainSeconds = &s
	}
	if sim != nil {
		peak := sim.PeakOldestAge.Seconds()
		out.PeakOldestAgeSeconds = &peak
		out.SimulatedDrained = &sim.Drained
		if sim.Drained {
			d := sim.Drain.Seconds()
			out.SimulatedDrainSeconds = &d
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// simulationProgress returns backlog's progress callback: a line on stderr
// when it is a terminal, nil otherwise.
func simulationProgress() func(simulated, horizon time.Duration, finished bool) {
	p := newProgress()
	if p == nil {
		return nil
	}
	return func(simulated, horizon time.Duration, finished bool) {
		p.update(finished, func() string {
			return fmt.Sprintf("simulated %s of at most %s", rounded(simulated), rounded(horizon))
		})
	}
}
