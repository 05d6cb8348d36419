package cli

import (
	"strconv"
	"strings"
	"time"

	"outboxlab/lang"
	"outboxlab/outbox"
	"outboxlab/scenarios"
	"outboxlab/variant"
)

// relayFlags are the flags of the scenario and matrix commands that
// change the reference relay's policy: how often it tries a message, how long a message's
// backoff and the relay's pause grow, how long it keeps a SENT message.
type relayFlags struct {
	maxAttempts, backoffCap, pauseCap, retention, batch *string
}

// declareRelayFlags adds the relay's settings to fs.
func declareRelayFlags(fs *flags) relayFlags {
	course := outbox.DefaultConfig("relay")
	return relayFlags{
		maxAttempts: fs.text("max-attempts", "N", lang.Textf(lang.Text{
			EN: "the reference relay's attempts before a message becomes a dead letter (the course's: %d); the run is judged by the changed policy",
			DE: "die Versuche des Referenz-Relays, bevor eine Nachricht ein Dead Letter wird (die des Kurses: %d); der Lauf wird nach der geänderten Strategie beurteilt",
		}, course.MaxAttempts)),
		backoffCap: fs.text("backoff-cap", "D", lang.Textf(lang.Text{
			EN: "the longest a message waits before its next attempt (the course's: %s); shorter, the broker's return is noticed sooner and attempts are spent faster",
			DE: "die längste Wartezeit einer Nachricht vor ihrem nächsten Versuch (die des Kurses: %s); kürzer wird die Rückkehr des Brokers früher bemerkt, und die Versuche sind schneller verbraucht",
		}, lang.Duration(course.BackoffCap))),
		pauseCap: fs.text("pause-cap", "D", lang.Textf(lang.Text{
			EN: "the longest the relay as a whole pauses after failed sends (the course's: %s)",
			DE: "die längste Pause des Relays als Ganzes nach gescheiterten Sendeversuchen (die des Kurses: %s)",
		}, lang.Duration(course.PauseCap))),
		retention: fs.text("retention", "D", lang.Textf(lang.Text{
			EN: "how long a SENT message is kept before the cleanup may delete it (the course's: %s; chapter 003: three days may do)",
			DE: "wie lange eine SENT-Nachricht bleibt, bevor die Bereinigung sie löschen darf (die des Kurses: %s; Kapitel 003: drei Tage können reichen)",
		}, lang.Duration(course.Retention))),
		batch: fs.text("batch", "N", lang.Textf(lang.Text{
			EN: "the most messages one claim of the relay takes (the course's: %d; chapter 000: too large batches block the database)",
			DE: "die meisten Nachrichten, die ein Claim des Relays nimmt (die des Kurses: %d; Kapitel 000: zu große Batches blockieren die Datenbank)",
		}, course.BatchSize)),
	}
}

// maxBatch bounds --batch: the largest workload a story file makes
// (scenarios' "workload orders N").
const maxBatch = 10_000

// relaySetting is one changed setting: its flag, value and field.
type relaySetting struct {
	flag, value string
	set         func(*outbox.Config)
}

// settings reads the flags that were given.
func (f relayFlags) settings() ([]relaySetting, error) {
	var out []relaySetting
	if *f.maxAttempts != "" {
		n, err := strconv.Atoi(*f.maxAttempts)
		if err != nil || n < 1 || n > 1000 {
			return nil, usagef(lang.Text{EN: "--max-attempts %q is not a whole number from 1 to 1000", DE: "--max-attempts %q ist keine ganze Zahl von 1 bis 1000"}, *f.maxAttempts)
		}
		out = append(out, relaySetting{"--max-attempts", *f.maxAttempts, func(c *outbox.Config) { c.MaxAttempts = n }})
	}
	if *f.batch != "" {
		n, err := strconv.Atoi(*f.batch)
		if err != nil || n < 1 || n > maxBatch {
			return nil, usagef(lang.Text{EN: "--batch %q is not a whole number from 1 to %d", DE: "--batch %q ist keine ganze Zahl von 1 bis %d"}, *f.batch, maxBatch)
		}
		out = append(out, relaySetting{"--batch", *f.batch, func(c *outbox.Config) { c.BatchSize = n }})
	}
	for _, d := range []struct {
		flag, text string
		set        func(*outbox.Config, time.Duration)
	}{
		{"--backoff-cap", *f.backoffCap, func(c *outbox.Config, d time.Duration) { c.BackoffCap = d }},
		{"--pause-cap", *f.pauseCap, func(c *outbox.Config, d time.Duration) { c.PauseCap = d }},
		{"--retention", *f.retention, func(c *outbox.Config, d time.Duration) { c.Retention = d }},
	} {
		if d.text == "" {
			continue
		}
		v, err := time.ParseDuration(d.text)
		if err != nil || v <= 0 {
			return nil, usagef(lang.Text{EN: "%s %q is not a positive duration (e.g. 30s, 5m, 72h)", DE: "%s %q ist keine positive Dauer (z. B. 30s, 5m, 72h)"}, d.flag, d.text)
		}
		set := d.set
		out = append(out, relaySetting{d.flag, d.text, func(c *outbox.Config) { set(c, v) }})
	}
	return out, nil
}

// withRelaySettings returns v with the settings applied to its relay, and
// the flags as the replay command repeats them. Only the lab's own
// variants whose relay is the reference relay can be changed.
func withRelaySettings(v variant.Variant, settings []relaySetting) (variant.Variant, string, error) {
	if len(settings) == 0 {
		return v, "", nil
	}
	if !scenarios.IsLabVariant(v.Name) || v.RelayConfig == nil {
		return v, "", usageText(lang.Textf(lang.Text{
			EN: "%s changes the policy of the reference relay in the lab's variants built on it; %s is not one of them (valid: %s)",
			DE: "%s ändert die Strategie des Referenz-Relays in den Varianten des Labors, die darauf aufbauen; %s ist keine davon (gültig: %s)",
		}, settings[0].flag, v.Name, strings.Join(tunableVariants(), ", ")))
	}
	var flags []string
	change := func(c *outbox.Config) {
		for _, s := range settings {
			s.set(c)
		}
	}
	for _, s := range settings {
		flags = append(flags, s.flag+" "+s.value)
	}
	w, err := variant.WithRelayConfig(v, change)
	if err != nil {
		base := outbox.DefaultConfig("relay").BackoffBase
		return v, "", usagef(lang.Text{EN: "%s: %v (the backoff and the pause start at BackoffBase, %s)", DE: "%s: %v (Backoff und Pause beginnen bei BackoffBase, %s)"}, strings.Join(flags, " "), err, base)
	}
	return w, " " + strings.Join(flags, " "), nil
}

// tunableVariants are the lab's variants whose relay's policy labrun can
// change.
func tunableVariants() []string {
	var names []string
	for _, name := range append(scenarios.VariantNames(), extraNames()...) {
		if v, err := scenarios.FindVariant(name); err == nil && v.RelayConfig != nil {
			names = append(names, name)
		}
	}
	return names
}

// extraNames are the names of the variants beyond the matrix.
func extraNames() []string {
	var names []string
	for _, v := range append(scenarios.Extras(), scenarios.StoryVariants()...) {
		names = append(names, v.Name)
	}
	return names
}

// describePolicy says the relay policy a run is judged by, when flags
// changed it.
func describePolicy(v variant.Variant) lang.Text {
	p := v.RelayPolicy()
	cfg := outbox.DefaultConfig("relay")
	if v.RelayConfig != nil {
		v.RelayConfig(&cfg)
	}
	return lang.Textf(lang.Text{
		EN: "Relay policy: %d attempts, backoff %s to %s, pause up to %s, SENT kept %s, up to %d messages a claim (changed with labrun's flags; the run is judged by it)",
		DE: "Strategie des Relays: %d Versuche, Backoff %s bis %s, Pause bis %s, SENT bleibt %s, bis zu %d Nachrichten je Claim (mit den Schaltern von labrun geändert; der Lauf wird danach beurteilt)",
	}, p.MaxAttempts, lang.Duration(p.BackoffBase), lang.Duration(p.BackoffCap), lang.Duration(p.PauseCap), lang.Duration(p.Retention), cfg.BatchSize)
}
