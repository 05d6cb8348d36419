package cli

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress is a line on a terminal that says how far a long command got.
// It reads the wall clock, outside the simulated world: it shows nothing
// in the first second and redraws at most five times a second, and no
// output of a command depends on it.
type progress struct {
	w          io.Writer
	now        func() time.Time
	start      time.Time
	last       time.Time
	shown      bool
	lastLength int
}

// newProgress returns a progress line on stderr when stderr is a terminal,
// and nil otherwise (a pipe or a file gets no progress).
func newProgress() *progress {
	info, err := os.Stderr.Stat()
	if err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return &progress{w: os.Stderr, now: time.Now, start: time.Now()}
}

// update redraws the line with line() when it is due; finished ends a line
// that was shown.
func (p *progress) update(finished bool, line func() string) {
	now := p.now()
	if now.Sub(p.start) < time.Second || (!finished && now.Sub(p.last) < 200*time.Millisecond) {
		return
	}
	p.last = now
	text := line()
	fmt.Fprintf(p.w, "\r%-*s", p.lastLength, text)
	p.lastLength, p.shown = len(text), true
	if finished {
		fmt.Fprintln(p.w)
	}
}
