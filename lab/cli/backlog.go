package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"outboxlab/internal/backlog"
	"outboxlab/lang"
	"outboxlab/outbox"
)

func runBacklog(args []string, stdout io.Writer) error {
	fs := newFlags("backlog", "", lang.Text{
		EN: "Chapter 001's backlog arithmetic: how many messages wait after an outage, and how long the relay takes to drain them; --simulate checks it against a message-level run of the reference relay.",
		DE: "Die Rückstau-Rechnung aus Kapitel 001: wie viele Nachrichten nach einem Ausfall warten und wie lange das Relay braucht, sie abzubauen; --simulate prüft sie gegen einen Lauf des Referenz-Relays Nachricht für Nachricht.",
	}, stdout)
	rateText := fs.required("rate", "R", lang.Text{EN: "events arriving per second, e.g. 500", DE: "ankommende Ereignisse je Sekunde, z. B. 500"})
	outageText := fs.required("outage", "D", lang.Text{EN: "how long the broker is down, e.g. 20m or 1h30m", DE: "wie lange der Broker ausfällt, z. B. 20m oder 1h30m"})
	relayText := fs.required("relay", "P", lang.Text{EN: "messages the relay publishes per second once the broker is back, e.g. 800", DE: "Nachrichten, die das Relay je Sekunde sendet, sobald der Broker zurück ist, z. B. 800"})
	brokerText := fs.text("broker", "B", lang.Text{
		EN: "messages the broker accepts per second (default: as many as the relay sends); chapter 001's arithmetic holds only with enough broker capacity",
		DE: "Nachrichten, die der Broker je Sekunde annimmt (Standard: so viele, wie das Relay sendet); die Rechnung aus Kapitel 001 gilt nur bei ausreichender Broker-Kapazität",
	})
	consumerText := fs.text("consumer", "C", lang.Text{
		EN: "messages the receiver applies per second (default: as many as arrive); the slowest of relay, broker and receiver sets the drain",
		DE: "Nachrichten, die der Empfänger je Sekunde anwendet (Standard: so viele, wie ankommen); das langsamste von Relay, Broker und Empfänger bestimmt den Abbau",
	})
	simulate := fs.boolean("simulate", lang.Text{
		EN: "also run the message-level simulation of the reference relay (the output says with which policy; a backlog that cannot drain, or would take more than about a minute to simulate, is refused with the arithmetic's answer)",
		DE: "zusätzlich die Simulation des Referenz-Relays Nachricht für Nachricht (die Ausgabe nennt seine Strategie; einen Rückstau, der sich nicht abbauen kann oder dessen Simulation länger als etwa eine Minute bräuchte, lehnt sie mit der Antwort der Rechnung ab)",
	})
	format := fs.formatFlag("text", "json")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	p, est, err := backlogParams(*rateText, *outageText, *relayText, *brokerText, *consumerText)
	if err != nil {
		return err
	}
	if *simulate && (p.Broker > 0 || p.Consumer > 0) {
		return usageText(lang.Text{
			EN: "--simulate with --broker or --consumer: the simulation runs the relay against a broker and a receiver that keep up; without --simulate, labrun backlog prints the arithmetic with their capacities",
			DE: "--simulate mit --broker oder --consumer: die Simulation lässt das Relay gegen einen Broker und einen Empfänger laufen, die mithalten; ohne --simulate druckt labrun backlog die Rechnung mit ihren Kapazitäten",
		})
	}
	var plan backlog.Plan
	if *simulate {
		if plan, err = backlog.PlanFor(p); err != nil {
			return refusal(p, est, plan, err)
		}
	}
	if format.value == "text" {
		// The arithmetic first: the simulation may take a while.
		writeArithmetic(stdout, p, est)
	}
	var sim *backlog.Simulation
	if *simulate {
		s, err := simulateBacklog(p, simulationProgress(stdout, p.Outage+est.Drain))
		if err != nil {
			return err
		}
		sim = &s
	}
	if format.value == "json" {
		return writeBacklogJSON(stdout, est, sim)
	}
	if sim != nil {
		writeSimulation(stdout, p, est, *sim)
	}
	fmt.Fprint(stdout, inf(stdout, lang.Text{EN: "Without cleanup, %s events/s leave %s SENT rows a day in the outbox (chapter 004: 2,000 a day are %s a year).\n", DE: "Ohne Bereinigung hinterlassen %s Ereignisse/s %s SENT-Zeilen am Tag in der Outbox (Kapitel 004: 2.000 am Tag sind %s im Jahr).\n"},
		lang.Decimal(p.Rate, 6), count(backlog.Growth(p.Rate*86400, 24*time.Hour)), count(backlog.Growth(2000, 365*24*time.Hour))))
	return nil
}

// simulateBacklog runs the simulation (a variable: a test watches what
// was printed before it starts).
var simulateBacklog = backlog.SimulateWith

// backlogParams reads the flags and computes the arithmetic.
func backlogParams(rateText, outageText, relayText, brokerText, consumerText string) (backlog.Params, backlog.Estimate, error) {
	rate, err := positive("--rate", rateText, eventsPerSecond)
	if err != nil {
		return backlog.Params{}, backlog.Estimate{}, err
	}
	relay, err := positive("--relay", relayText, messagesPerSecond)
	if err != nil {
		return backlog.Params{}, backlog.Estimate{}, err
	}
	if outageText == "" {
		return backlog.Params{}, backlog.Estimate{}, usagef(lang.Text{EN: "missing --outage (a duration such as 20m)", DE: "--outage fehlt (eine Dauer wie 20m)"})
	}
	outage, err := time.ParseDuration(outageText)
	if err != nil || outage < 0 {
		return backlog.Params{}, backlog.Estimate{}, usagef(lang.Text{EN: "--outage %q is not a duration >= 0 (e.g. 20m, 1h30m, 90s)", DE: "--outage %q ist keine Dauer >= 0 (z. B. 20m, 1h30m, 90s)"}, outageText)
	}
	p := backlog.Params{Rate: rate, Outage: outage, Relay: relay}
	if brokerText != "" {
		if p.Broker, err = positive("--broker", brokerText, messagesPerSecond); err != nil {
			return p, backlog.Estimate{}, err
		}
	}
	if consumerText != "" {
		if p.Consumer, err = positive("--consumer", consumerText, messagesPerSecond); err != nil {
			return p, backlog.Estimate{}, err
		}
	}
	est, err := backlog.Compute(p)
	if err != nil {
		return p, est, usageFrom(err)
	}
	return p, est, nil
}

// refusal says why --simulate does not run p, with the arithmetic's
// answer instead.
func refusal(p backlog.Params, est backlog.Estimate, plan backlog.Plan, err error) error {
	const without = "; without --simulate, labrun backlog prints the arithmetic"
	const ohne = "; ohne --simulate druckt labrun backlog die Rechnung"
	switch {
	case errors.Is(err, backlog.ErrNeverDrains):
		return usageText(lang.Textf(lang.Text{
			EN: "--simulate: the relay (%s/s) is not faster than the arrivals (%s/s): the backlog never drains, it grows by %s messages a second from the %s waiting when the broker comes back (%s more every hour); the simulation runs a backlog that drains" + without,
			DE: "--simulate: das Relay (%s/s) ist nicht schneller als die Ankünfte (%s/s): der Rückstau baut sich nie ab, er wächst um %s Nachrichten je Sekunde von den %s, die warten, wenn der Broker zurückkommt (%s mehr je Stunde); die Simulation spielt einen Rückstau, der sich abbaut" + ohne,
		}, rate(p.Relay), rate(p.Rate), rate(p.Rate-p.Relay), count(est.Backlog), count(3600*(p.Rate-p.Relay))))
	case errors.Is(err, backlog.ErrTooLong) && plan.Steps == 0:
		return usageText(lang.Textf(lang.Text{
			EN: "--simulate: the arrivals (%s/s) are faster than the fastest relay the simulation steps through (%s/s: %d messages a claim every 125ms); the arithmetic: %s messages wait after the outage and drain in %s at %s/s" + without,
			DE: "--simulate: die Ankünfte (%s/s) sind schneller als das schnellste Relay, das die Simulation durchschreitet (%s/s: %d Nachrichten je Claim alle 125 ms); die Rechnung: %s Nachrichten warten nach dem Ausfall und bauen sich in %s bei %s/s ab" + ohne,
		}, rate(p.Rate), rate(backlog.MaxRelay), backlog.MaxBatch, count(est.Backlog), short(est.Drain), rate(p.Relay)))
	case errors.Is(err, backlog.ErrTooLong) && plan.Messages > backlog.MaxMessages:
		return usageText(lang.Textf(lang.Text{
			EN: "--simulate: about %.3g messages arrive until the backlog drains, more than the simulation writes in about a minute (%s); the arithmetic: %s messages wait after the outage and drain in %s" + without,
			DE: "--simulate: etwa %.3g Nachrichten kommen an, bis der Rückstau abgebaut ist, mehr als die Simulation in etwa einer Minute schreibt (%s); die Rechnung: %s Nachrichten warten nach dem Ausfall und bauen sich in %s ab" + ohne,
		}, plan.Messages, lang.Count(int64(backlog.MaxMessages)), count(est.Backlog), short(est.Drain)))
	case errors.Is(err, backlog.ErrTooLong):
		return usageText(lang.Textf(lang.Text{
			EN: "--simulate: about %.3g steps of %s until the backlog drains, more than the simulation takes in about a minute (%s); the arithmetic: %s messages wait after the outage and drain in %s" + without,
			DE: "--simulate: etwa %.3g Schritte von %s, bis der Rückstau abgebaut ist, mehr als die Simulation in etwa einer Minute macht (%s); die Rechnung: %s Nachrichten warten nach dem Ausfall und bauen sich in %s ab" + ohne,
		}, plan.Steps, short(plan.Step), lang.Count(int64(backlog.MaxSteps)), count(est.Backlog), short(est.Drain)))
	}
	return usageFrom(err)
}

// positive parses a required number > 0.
// The units of backlog's rates, as a usage error names them.
var (
	eventsPerSecond   = lang.Text{EN: "events per second", DE: "Ereignisse pro Sekunde"}
	messagesPerSecond = lang.Text{EN: "messages per second", DE: "Nachrichten pro Sekunde"}
)

func positive(flagName, text string, unit lang.Text) (float64, error) {
	if text == "" {
		return 0, usagef(lang.Text{EN: "missing %s (a number of %s > 0)", DE: "%s fehlt (eine Zahl der %s > 0)"}, flagName, unit)
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, usagef(lang.Text{EN: "%s %q is not a number of %s > 0", DE: "%s %q ist keine Zahl der %s > 0"}, flagName, text, unit)
	}
	return v, nil
}

// short prints a duration to a tenth of a second, or to three digits
// when it is shorter than a second (a drain of 600ns is not 0s).
func short(d time.Duration) lang.Text {
	if d >= time.Second || d <= 0 {
		return lang.Duration(d.Round(100 * time.Millisecond))
	}
	unit := time.Duration(1)
	for unit*1000 <= d {
		unit *= 10
	}
	return lang.Duration(d.Round(unit))
}

// rate prints a rate with at most six significant digits.
func rate(v float64) lang.Text { return lang.Decimal(v, 6) }

// count prints a number of messages, rounded to a whole one.
func count(v float64) lang.Text { return lang.Count(int64(math.Round(v))) }

func writeArithmetic(w io.Writer, p backlog.Params, est backlog.Estimate) {
	fmt.Fprint(w, inf(w, lang.Text{EN: "Backlog after a %s outage at %s events/s: %s messages (R·D)\n", DE: "Rückstau nach einem Ausfall von %s bei %s Ereignissen/s: %s Nachrichten (R·D)\n"}, lang.Duration(p.Outage), rate(p.Rate), count(est.Backlog)))
	if p.Broker > 0 || p.Consumer > 0 {
		writeCapacity(w, p, est)
		return
	}
	if est.Drains {
		fmt.Fprint(w, inf(w, lang.Text{EN: "Drain at %s/s relay throughput, %s/s net: %s (backlog / (P − R))\n", DE: "Abbau bei %s/s Relay-Durchsatz, %s/s netto: %s (Rückstau / (P − R))\n"}, rate(p.Relay), rate(p.Relay-p.Rate), short(est.Drain)))
	} else {
		fmt.Fprint(w, inf(w, lang.Text{EN: "The backlog never drains: the relay (%s/s) is not faster than the arrivals (%s/s).\n", DE: "Der Rückstau baut sich nie ab: das Relay (%s/s) ist nicht schneller als die Ankünfte (%s/s).\n"}, rate(p.Relay), rate(p.Rate)))
	}
}

// writeCapacity is the arithmetic with the broker's and the receiver's
// capacity: the slowest of the three sets the drain, and the backlog
// waits in front of it (in the outbox, in the broker's queue, or in the
// receiver's).
func writeCapacity(w io.Writer, p backlog.Params, est backlog.Estimate) {
	l := langOf(w)
	capacity := func(v float64) string {
		if v == 0 {
			return lang.Text{EN: "keeps up", DE: "hält mit"}.In(l)
		}
		return rate(v).In(l) + "/s"
	}
	fmt.Fprintln(w, lang.Wrap("", "", lang.Textf(lang.Text{
		EN: "Relay %s/s, broker %s, receiver %s: the %s is the slowest (%s/s), and the backlog waits in front of it (%s).",
		DE: "Relay %s/s, Broker %s, Empfänger %s: %s ist am langsamsten (%s/s), und der Rückstau wartet vor ihm (%s).",
	}, rate(p.Relay), capacity(p.Broker), capacity(p.Consumer), bottleneckName(est.Bottleneck, l), rate(est.Capacity), waitsIn(est.Bottleneck, l)).In(l), width))
	if est.Drains {
		fmt.Fprintln(w, lang.Wrap("", "", lang.Textf(lang.Text{
			EN: "Drain at %s/s, %s/s net: %s (backlog / (C − R), C the slowest of relay, broker and receiver); chapter 001's P alone says %s.",
			DE: "Abbau bei %s/s, netto %s/s: %s (Rückstau / (C − R), C das langsamste von Relay, Broker und Empfänger); P allein ergäbe laut Kapitel 001 %s.",
		}, rate(est.Capacity), rate(est.Capacity-p.Rate), short(est.Drain), relayOnly(p, l)).In(l), width))
		return
	}
	fmt.Fprintln(w, lang.Wrap("", "", lang.Textf(lang.Text{
		EN: "The backlog never drains: the %s (%s/s) is not faster than the arrivals (%s/s), however fast the relay is; chapter 001's P alone says %s.",
		DE: "Der Rückstau baut sich nie ab: %s (%s/s) ist nicht schneller als die Ankünfte (%s/s), wie schnell das Relay auch ist; P allein ergäbe laut Kapitel 001 %s.",
	}, bottleneckName(est.Bottleneck, l), rate(est.Capacity), rate(p.Rate), relayOnly(p, l)).In(l), width))
}

// relayOnly is chapter 001's answer, with the relay's throughput alone.
func relayOnly(p backlog.Params, l lang.Lang) string {
	alone, err := backlog.Compute(backlog.Params{Rate: p.Rate, Outage: p.Outage, Relay: p.Relay})
	if err != nil || !alone.Drains {
		return lang.Text{EN: "it never drains", DE: "er baut sich nie ab"}.In(l)
	}
	return short(alone.Drain).In(l)
}

func bottleneckName(b string, l lang.Lang) string {
	switch b {
	case "broker":
		return lang.Text{EN: "broker", DE: "der Broker"}.In(l)
	case "receiver":
		return lang.Text{EN: "receiver", DE: "der Empfänger"}.In(l)
	}
	return lang.Text{EN: "relay", DE: "das Relay"}.In(l)
}

func waitsIn(b string, l lang.Lang) string {
	switch b {
	case "broker":
		return lang.Text{EN: "in the outbox: the relay can send no faster than the broker takes", DE: "in der Outbox: das Relay kann nicht schneller senden, als der Broker annimmt"}.In(l)
	case "receiver":
		return lang.Text{EN: "in the broker's queue: the outbox drains, the receiver lags", DE: "in der Warteschlange des Brokers: die Outbox leert sich, der Empfänger hinkt hinterher"}.In(l)
	}
	return lang.Text{EN: "in the outbox", DE: "in der Outbox"}.In(l)
}

// writeSimulation says how the simulation ran and what it measured.
func writeSimulation(w io.Writer, p backlog.Params, est backlog.Estimate, sim backlog.Simulation) {
	l := langOf(w)
	pl := sim.Plan
	fmt.Fprintln(w, lang.Wrap("", "", lang.Textf(lang.Text{
		EN: "Simulated with the reference relay (outbox.DefaultConfig) claiming up to %d message(s) every %s (%s/s), changed in two things: a sent message is deleted at once (DeleteOnSend), and a message becomes a dead letter after %d failed attempts instead of %d, enough to outlast the outage, since the arithmetic assumes every message is delivered.",
		DE: "Simuliert mit dem Referenz-Relay (outbox.DefaultConfig), das bis zu %d Nachricht(en) alle %s claimt (%s/s), in zwei Dingen geändert: eine gesendete Nachricht wird sofort gelöscht (DeleteOnSend), und eine Nachricht wird erst nach %d gescheiterten Versuchen statt %d ein Dead Letter, genug, um den Ausfall zu überdauern, denn die Rechnung nimmt an, dass jede Nachricht zugestellt wird.",
	}, pl.Relay.BatchSize, short(pl.Step), rate(pl.Rate), pl.Relay.MaxAttempts, defaultMaxAttempts).In(l), width))
	if pl.Capped {
		capped, _ := backlog.Compute(backlog.Params{Rate: p.Rate, Outage: p.Outage, Relay: pl.Rate})
		fmt.Fprintln(w, lang.Wrap("", "", lang.Textf(lang.Text{
			EN: "The relay's %s/s is more than the simulation steps through (%d messages a claim every 125ms): it runs at %s/s, which drains the backlog by the arithmetic in %s, so a faster relay could save at most that.",
			DE: "Die %s/s des Relays sind mehr, als die Simulation durchschreitet (%d Nachrichten je Claim alle 125 ms): sie läuft mit %s/s, was den Rückstau laut Rechnung in %s abbaut; ein schnelleres Relay spart also höchstens so viel.",
		}, rate(p.Relay), backlog.MaxBatch, rate(pl.Rate), short(capped.Drain)).In(l), width))
	}
	if !sim.Drained {
		fmt.Fprintln(w, in(w, lang.Text{EN: "Simulated with the real relay: not drained by the end of the simulation.", DE: "Mit dem echten Relay simuliert: bis zum Ende der Simulation nicht abgebaut."}))
	} else {
		text := lang.Textf(lang.Text{EN: "Simulated: drained in %s", DE: "Simuliert: abgebaut in %s"}, short(sim.Drain)).In(l)
		ratio := sim.Drain.Seconds() / est.Drain.Seconds()
		switch {
		case est.Drain <= 0:
		case ratio <= 2:
			text += inf(w, lang.Text{EN: " (%s%% against the arithmetic)", DE: " (%s %% gegenüber der Rechnung)"}, signedPercent(100*(ratio-1)))
		default:
			text += lang.Textf(lang.Text{EN: " (%s times the arithmetic's %s)", DE: " (das %s-Fache der rechnerischen %s)"}, lang.Decimal(ratio, 3), short(est.Drain)).In(l)
		}
		if ratio > 1.1 {
			text += backlogRetries.In(l)
		}
		fmt.Fprintln(w, lang.Wrap("", "", text, width))
	}
	fmt.Fprint(w, inf(w, lang.Text{EN: "Peak age of the oldest unsent message: %s (of %s messages simulated in all, %s were waiting when the broker came back)\n", DE: "Höchstes Alter der ältesten ungesendeten Nachricht: %s (von %s simulierten Nachrichten warteten %s, als der Broker zurückkam)\n"},
		short(sim.PeakOldestAge), lang.Count(int64(sim.Messages)), lang.Count(int64(sim.Backlog))))
}

// defaultMaxAttempts is the reference relay's own attempt limit.
var defaultMaxAttempts = outbox.DefaultConfig("relay").MaxAttempts

// signedPercent prints a percentage with its sign and two decimals:
// +8.17 in English, +8,17 in German.
func signedPercent(p float64) lang.Text {
	en := strconv.FormatFloat(p, 'f', 2, 64)
	if p >= 0 {
		en = "+" + en
	}
	return lang.Text{EN: en, DE: strings.Replace(en, ".", ",", 1)}
}

// backlogRetries explains why a drain takes longer than the arithmetic
// says.
var backlogRetries = lang.Text{
	EN: "; the arithmetic assumes every message goes out the moment the broker is back, but the relay tries a message that failed during the outage again only after its backoff (up to 5 minutes), so the drain waits for those retries, not for the relay's throughput",
	DE: "; die Rechnung nimmt an, dass jede Nachricht rausgeht, sobald der Broker zurück ist, aber das Relay versucht eine Nachricht, die während des Ausfalls scheiterte, erst nach ihrem Backoff erneut (bis zu 5 Minuten), also wartet der Abbau auf diese Wiederholungen, nicht auf den Durchsatz des Relays",
}

func writeBacklogJSON(w io.Writer, est backlog.Estimate, sim *backlog.Simulation) error {
	out := struct {
		BacklogMessages       float64  `json:"backlogMessages"`
		Drains                bool     `json:"drains"`
		DrainSeconds          *float64 `json:"drainSeconds"`
		SimulatedDrainSeconds *float64 `json:"simulatedDrainSeconds,omitempty"`
		PeakOldestAgeSeconds  *float64 `json:"peakOldestAgeSeconds,omitempty"`
		SimulatedDrained      *bool    `json:"simulatedDrained,omitempty"`
		SimulatedRelay        *float64 `json:"simulatedRelay,omitempty"`
		Capacity              float64  `json:"capacity"`
		Bottleneck            string   `json:"bottleneck"`
	}{BacklogMessages: est.Backlog, Drains: est.Drains, Capacity: est.Capacity, Bottleneck: est.Bottleneck}
	if est.Drains {
		s := est.Drain.Seconds()
		out.DrainSeconds = &s
	}
	if sim != nil {
		peak := sim.PeakOldestAge.Seconds()
		out.PeakOldestAgeSeconds = &peak
		out.SimulatedDrained = &sim.Drained
		out.SimulatedRelay = &sim.Plan.Rate
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
// when it is a terminal, nil otherwise. It counts towards expected, when
// the arithmetic says the backlog has drained.
func simulationProgress(w io.Writer, expected time.Duration) func(simulated, horizon time.Duration, finished bool) {
	p := newProgress()
	if p == nil {
		return nil
	}
	l := langOf(w)
	return func(simulated, _ time.Duration, finished bool) {
		p.update(finished, func() string {
			return lang.Textf(lang.Text{
				EN: "simulated %s; the arithmetic drains the backlog at %s",
				DE: "%s simuliert; laut Rechnung ist der Rückstau bei %s abgebaut",
			}, short(simulated), short(expected)).In(l)
		})
	}
}
