package verify

import (
	"fmt"
	"time"
)

// Breach is a rule of the contract that a relay's or a consumer's process
// broke and that none of the checker's outcomes names (they judge rows
// and records): a verdict of its own.
type Breach struct {
	// Verdict is the word: EndedByItself or IgnoredSIGTERM.
	Verdict string
	// Detail says what happened, with numbers; Lines are the process's
	// last lines.
	Detail string
	Lines  []string
	Proc   *Proc
}

// The breaches' verdicts.
const (
	// EndedByItself: a relay process ended when no fault of the round had
	// acted on it (a missing module, a bad flag, a crash of its own). The
	// round ends there.
	EndedByItself = "ENDED_BY_ITSELF"
	// IgnoredSIGTERM: a relay or consumer process still ran three seconds
	// after the harness sent it SIGTERM (rule 8 of either contract).
	IgnoredSIGTERM = "IGNORED_SIGTERM"
)

// LastLinesShown is how many of a process's last lines a breach shows.
const LastLinesShown = 5

func (b Breach) String() string { return b.Verdict + ": " + b.Detail }

// Faulted notes that a fault of the round acted on p (a stop, its
// database connection cut, a produce that failed): if p ends by itself
// after that, it may be a relay that exits on an error to be restarted,
// and it is restarted.
func (f *Fleet) Faulted(p *Proc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.faulted == nil {
		f.faulted = map[*Proc]bool{}
	}
	f.faulted[p] = true
}

// FaultedAll notes that a fault acted on every live process (an outage).
func (f *Fleet) FaultedAll() {
	for _, p := range f.Live() {
		f.Faulted(p)
	}
}

// endedByItself ends the round: p ended by itself, how says how.
func (f *Fleet) endedByItself(p *Proc, how string) {
	name := p.Instance
	if p.Gen > 1 {
		name = p.Label()
	}
	after := (p.Ended - p.Started).Seconds()
	b := Breach{Verdict: EndedByItself, Proc: p, Lines: LastLines(f.tl.Events(), p, LastLinesShown),
		Detail: fmt.Sprintf("%s ended by itself (%s) %.1f s after it started; its last lines:", name, how, after)}
	if len(b.Lines) == 0 {
		b.Detail = fmt.Sprintf("%s ended by itself (%s) %.1f s after it started, and said nothing", name, how, after)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.breaches = append(f.breaches, b)
	if f.broken == nil {
		f.broken = fmt.Errorf("%s", b.Detail)
	}
}

// ignoredSIGTERM records that p outlived SIGTERM by grace and was killed.
func (f *Fleet) ignoredSIGTERM(p *Proc, grace time.Duration) {
	b := Breach{Verdict: IgnoredSIGTERM, Proc: p, Lines: LastLines(f.tl.Events(), p, LastLinesShown),
		Detail: fmt.Sprintf("%s (pid %d) was still running %s after SIGTERM, and the harness killed it: an instance must end on SIGTERM within three seconds, finishing at most the step (a relay) or the record (a consumer) in progress (rule 8); its last lines:",
			p.Label(), p.OwnPID(), grace)}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.breaches = append(f.breaches, b)
}

// Breaches returns the contract's rules the relay's processes broke
// that the checker does not judge.
func (f *Fleet) Breaches() []Breach {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Breach(nil), f.breaches...)
}

// ended reports whether the round ended because a process ended by
// itself.
func (f *Fleet) ended() bool {
	for _, b := range f.Breaches() {
		if b.Verdict == EndedByItself {
			return true
		}
	}
	return false
}
