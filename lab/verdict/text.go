package verdict

import (
	"fmt"
	"strings"

	"outboxlab/lang"
	"outboxlab/sim"
	"outboxlab/variant"
)

// textf formats format in each language; an argument that is a
// lang.Text is taken in the same language.
func textf(format lang.Text, args ...any) lang.Text {
	in := func(l lang.Lang) []any {
		out := make([]any, len(args))
		for i, a := range args {
			if t, ok := a.(lang.Text); ok {
				out[i] = t.In(l)
			} else {
				out[i] = a
			}
		}
		return out
	}
	return lang.Text{EN: fmt.Sprintf(format.EN, in(lang.English)...), DE: fmt.Sprintf(format.In(lang.German), in(lang.German)...)}
}

// Text says what c is, in a few words ("" for CauseOutcome: its outcome
// says it).
func (c Cause) Text() lang.Text { return causeTexts[c] }

// causeTexts say what each cause other than an outcome is, in a few words.
var causeTexts = map[Cause]lang.Text{
	CauseUnhandled:        {EN: "an error the process should have handled itself", DE: "ein Fehler, den der Prozess selbst hätte behandeln müssen"},
	CauseUnreported:       {EN: "a failed commit that never came back as an error", DE: "ein gescheiterter Commit, der nie als Fehler zurückkam"},
	CauseSwallowedCrash:   {EN: "a crash the process went on from (effect.ErrCrashed swallowed)", DE: "ein Absturz, nach dem der Prozess weitermachte (effect.ErrCrashed verschluckt)"},
	CausePanic:            {EN: "a panic of the variant's code", DE: "eine Panic im Code der Variante"},
	CauseMissingSituation: {EN: "a row that never produced what it exists to produce", DE: "eine Zeile, die nie herbeiführte, wofür sie da ist"},
	CauseError:            {EN: "a run that could not be made", DE: "ein Lauf, der sich nicht machen ließ"},
}

// causeHints are the lab's own hints for the causes other than an
// outcome: what every variant must do, whatever it is.
var causeHints = map[Cause]lang.Text{
	CauseUnhandled: {
		EN: "Relay.Run stops at a step's error: only a failed commit is the caller's business. A broker's error, a race another relay won (store.ErrConflict), a lease another relay took over are the process's own: record them and return nil.",
		DE: "Relay.Run hört beim Fehler eines Schritts auf: nur ein gescheiterter Commit geht den Aufrufer an. Ein Fehler des Brokers, ein verlorener Wettlauf (store.ErrConflict), eine von einem anderen Relay übernommene Lease sind Sache des Prozesses: halte sie fest und gib nil zurück.",
	},
	CauseUnreported: {
		EN: "return the error of a commit that failed (a lost connection; in the lab sim.ErrCommitFailed): the claim, the mark or the delivery did not happen, and the caller must know. Do not log it and go on.",
		DE: "gib den Fehler eines gescheiterten Commits zurück (eine verlorene Verbindung; im Labor sim.ErrCommitFailed): Claim, Markierung oder Zustellung sind nicht geschehen, und der Aufrufer muss es wissen. Nicht nur loggen und weitermachen.",
	},
	CauseSwallowedCrash: {
		EN: "when an effect returns effect.ErrCrashed, the process is dead: return that error at once (errors.Is(err, effect.ErrCrashed)). Do not take it for a broker's error, nor log it and go on.",
		DE: "wenn ein Effekt effect.ErrCrashed zurückgibt, ist der Prozess tot: gib genau diesen Fehler sofort zurück (errors.Is(err, effect.ErrCrashed)). Nicht für einen Fehler des Brokers halten, nicht loggen und weitermachen.",
	},
	CausePanic: {
		EN: "the process died of the panic and restarted, again and again: the replay's timeline shows where. Handle the case instead of panicking.",
		DE: "der Prozess starb an der Panic und startete neu, immer wieder: die Zeitleiste der Wiederholung zeigt, wo. Behandle den Fall, statt eine Panic auszulösen.",
	},
	CauseMissingSituation: {
		EN: "the row no longer produces what it exists to produce, so it tests nothing there: the change took away what the row needs.",
		DE: "die Zeile führt nicht mehr herbei, wofür sie da ist, und prüft dort nichts: die Änderung nahm ihr, was sie braucht.",
	},
	CauseError: {
		EN: "the run could not be made: the error says why (a process the variant fails to build, a configuration the lab refuses).",
		DE: "der Lauf ließ sich nicht machen: der Fehler sagt, warum (ein Prozess, den die Variante nicht bauen kann, eine Konfiguration, die das Labor ablehnt).",
	},
}

// Hint returns the lab's own hint for the group's cause; none for an
// outcome, whose hint depends on the exercise (see package grade), but
// NONDETERMINISTIC, whose cause is the same whatever the exercise.
func (g Group) Hint() lang.Text {
	if g.Cause == CauseOutcome && g.Outcome == variant.NonDeterministic {
		return nondeterministicHint
	}
	return causeHints[g.Cause]
}

// Headline says in one line what the group is and where it was found:
// "UNSAFE (a safety breach ...) in 13 runs: matrix at relay.after-claim,
// stall-release; sweep 5; failure sweep 4; exploration 5 of 138
// schedules".
func (g Group) Headline() lang.Text {
	what := textf(lang.Plain("%s,"), causeTexts[g.Cause]) // "…, in 10 runs"
	if g.Cause == CauseOutcome {
		what = textf(lang.Plain("%s, %s,"), g.Outcome, g.Outcome.Meaning())
		if e := g.First().Expected; g.sameExpected() && e != variant.OK {
			what = textf(lang.Text{EN: "%s where the variant declares %s,", DE: "%s wo die Variante %s erwartet,"}, what, e)
		}
	}
	runs := textf(lang.Text{EN: "in %s runs", DE: "in %s Läufen"}, lang.Count(int64(g.runs())))
	if g.runs() == 1 {
		runs = lang.Text{EN: "in 1 run", DE: "in 1 Lauf"}
	}
	return textf(lang.Plain("%s %s: %s"), what, runs, g.where())
}

// sameExpected reports whether every finding of the group has the same
// declaration.
func (g Group) sameExpected() bool {
	for _, f := range g.Findings {
		if f.Expected != g.First().Expected {
			return false
		}
	}
	return true
}

// runs counts the group's failing runs: an exploration's finding counts
// the schedules that broke.
func (g Group) runs() int {
	n := 0
	for _, f := range g.Findings {
		n += max(f.Found, 1)
	}
	return n
}

// maxPoints bounds the matrix rows a headline names.
const maxPoints = 3

// where lists the stages that found the group's cause, and where.
func (g Group) where() lang.Text {
	var parts []lang.Text
	for s := StageMatrix; s <= StageReplay; s++ {
		var points []string
		count, found, tried := 0, 0, 0
		for _, f := range g.Findings {
			if f.Stage != s {
				continue
			}
			count++
			points = append(points, f.Point)
			found, tried = found+f.Found, tried+f.Tried
		}
		switch {
		case count == 0:
		case s == StageMatrix || s == StageAssumptions || s == StagePolled:
			more := ""
			if len(points) > maxPoints {
				more = fmt.Sprintf(" (+%d)", len(points)-maxPoints)
				points = points[:maxPoints]
			}
			parts = append(parts, textf(lang.Text{EN: "%s at %s%s", DE: "%s bei %s%s"}, s.Text(), strings.Join(points, ", "), more))
		case s == StageExplore:
			parts = append(parts, textf(lang.Text{EN: "exploration %s of %s schedules", DE: "Exploration %s von %s Abläufen"}, lang.Count(int64(found)), lang.Count(int64(tried))))
		default:
			parts = append(parts, textf(lang.Plain("%s %s"), s.Text(), lang.Count(int64(count))))
		}
	}
	return lang.Join(parts, "; ")
}

// RunText says what happens in the finding's run: "at relay.after-claim
// (relay.after-claim@1, 2 relays)", "after a crash at P@1, then at Q@1",
// "when commit relay.mark@1 fails under broker-outage", "in a random
// schedule: ...".
func (f Finding) RunText() lang.Text {
	r := f.Run
	relays := lang.Plain("")
	if r.Relays > 1 {
		relays = textf(lang.Text{EN: ", %d relays", DE: ", %d Relays"}, r.Relays)
	}
	var t lang.Text
	switch f.Stage {
	case StageMatrix, StageAssumptions, StagePolled:
		t = textf(lang.Text{EN: "at %s (%s%s)", DE: "bei %s (%s%s)"}, f.Point, r.Name(), relays)
		if r.Row == f.Point && len(r.Crashes) == 0 && r.Failure == nil { // the row's own run: its name once
			t = textf(lang.Text{EN: "at %s", DE: "bei %s"}, f.Point)
			if r.Relays > 1 {
				t = textf(lang.Text{EN: "at %s (%d relays)", DE: "bei %s (%d Relays)"}, f.Point, r.Relays)
			}
		}
		if f.Stage == StagePolled {
			t = lang.Join([]lang.Text{t, {EN: "with the relays polled as Relay.Run polls them", DE: "mit Relays, die gepollt werden wie in Relay.Run"}}, " ")
		}
	case StageSweep:
		var crashes []string
		for _, c := range r.Crashes {
			crashes = append(crashes, sim.RunID{Crashes: []sim.Crash{c}}.Name())
		}
		t = textf(lang.Text{EN: "after a crash at %s%s", DE: "nach einem Absturz bei %s%s"},
			lang.Text{EN: strings.Join(crashes, ", then at "), DE: strings.Join(crashes, ", dann bei ")}, relays)
		if len(r.Crashes) == 0 {
			t = textf(lang.Text{EN: "without a crash%s", DE: "ohne Absturz%s"}, relays)
		}
	case StageFailureSweep:
		switch {
		case r.Failure == nil: // the sweep's first run, before any commit fails
			t = textf(lang.Text{EN: "in %s, before any commit fails%s", DE: "in %s, bevor ein Commit scheitert%s"}, r.Name(), relays)
		case f.Point != "":
			t = textf(lang.Text{EN: "when commit %s fails under %s%s", DE: "wenn der Commit %s unter %s scheitert%s"}, commitText(*r.Failure), f.Point, relays)
		default:
			t = textf(lang.Text{EN: "when commit %s fails%s", DE: "wenn der Commit %s scheitert%s"}, commitText(*r.Failure), relays)
		}
	case StageExplore:
		t = textf(lang.Text{EN: "in a random schedule, shrunk: %s", DE: "in einem zufälligen Ablauf, geschrumpft: %s"}, strings.Join(r.Schedule, "; "))
		if f.Cause == CauseError { // the schedule that could not be run, as drawn
			t = textf(lang.Text{EN: "in random schedule %d: %s", DE: "im zufälligen Ablauf %d: %s"}, f.Tried, strings.Join(r.Schedule, "; "))
		}
	case StageReplay:
		t = textf(lang.Text{EN: "when the run %s is made twice", DE: "wenn der Lauf %s zweimal gemacht wird"}, r.Name())
		if r.Explore {
			t = textf(lang.Text{EN: "when the exploration's shrunk schedule is made twice: %s", DE: "wenn der geschrumpfte Ablauf der Exploration zweimal gemacht wird: %s"}, strings.Join(r.Schedule, "; "))
		}
	}
	return t
}

// commitText names a failed commit as a failure sweep's run does, after
// its prefix: "relay.mark@1", "consumer.commit@2-4".
func commitText(f sim.Fault) string {
	return strings.TrimPrefix(sim.RunID{Failure: &f}.Name(), sim.FailurePrefix)
}

// Report is the group as a learner reads it: the headline, its first run
// with what went wrong, the hint (the given one, else the lab's own for
// the cause) and the command that replays that run, each line wrapped at
// width; the lines after the first are indented.
func (g Group) Report(l lang.Lang, hint lang.Text, replay string, width int) string {
	if hint.EN == "" {
		hint = g.Hint()
	}
	first := g.First()
	detail := lang.Join([]lang.Text{{EN: "first", DE: "zuerst"}, first.RunText()}, " ")
	if first.Detail.EN != "" {
		detail = lang.Join([]lang.Text{detail, first.Detail}, ": ")
	}
	var b strings.Builder
	b.WriteString(lang.Wrap("", "  ", g.Headline().In(l), width))
	b.WriteString("\n" + lang.Wrap("    ", "      ", detail.In(l), width))
	if d := first.Divergence; d != nil {
		for _, line := range strings.Split(d.Lines().In(l), "\n") {
			b.WriteString("\n      " + line)
		}
	}
	if hint.EN != "" {
		b.WriteString("\n" + lang.Wrap("    "+(lang.Text{EN: "hint", DE: "Hinweis"}).In(l)+": ", "      ", hint.In(l), width))
	}
	b.WriteString("\n" + Command("    "+(lang.Text{EN: "replay", DE: "Wiederholen"}).In(l)+": ", replay, width))
	return b.String()
}

// Command writes a shell command after prefix, continued with a backslash
// where it would pass width, so that it still pastes as one command. A
// flag and its value stay together ("--variant V", "-run '^TestX$'").
func Command(prefix, cmd string, width int) string {
	var words []string
	for _, f := range strings.Fields(cmd) {
		if n := len(words); n > 0 && isFlagWithoutValue(words[n-1]) && !strings.HasPrefix(f, "-") {
			words[n-1] += " " + f
			continue
		}
		words = append(words, f)
	}
	var b strings.Builder
	line := prefix
	for i, word := range words {
		if i > 0 && len([]rune(line))+1+len([]rune(word))+2 > width {
			b.WriteString(line + " \\\n")
			line = strings.Repeat(" ", len([]rune(prefix))+4)
		} else if i > 0 {
			line += " "
		}
		line += word
	}
	return b.String() + line
}

// isFlagWithoutValue reports whether word is a flag whose value follows
// as the next word.
func isFlagWithoutValue(word string) bool {
	return strings.HasPrefix(word, "-") && !strings.Contains(word, "=") && !strings.Contains(word, " ")
}
