package verify

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestAKillIsRecordedWhenTheSignalGoes holds the kill's time to the
// moment the signal went, not the moment the harness saw the process
// reaped: between the two, an instance whose claim ends with its
// connection takes the row over, and a kill recorded at the reaping
// judged its copy as two live senders (seen once in CI, with the Python
// relay at kill-after-answer, 6 ms apart). Here the reaping is held back
// by 300 ms; the kill must be recorded before it.
func TestAKillIsRecordedWhenTheSignalGoes(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start a child process: %v", err)
	}
	p := &Proc{Instance: "relay-1", Gen: 1, PID: cmd.Process.Pid, cmd: cmd, done: make(chan struct{})}
	const reaping = 300 * time.Millisecond
	go func() {
		cmd.Wait()
		time.Sleep(reaping) // the harness reads the process's last output
		close(p.done)
	}()
	tl := NewTimeline()
	d := &driver{tl: tl, fleet: &Fleet{tl: tl, current: map[string]*Proc{}, killed: map[int]bool{}}}
	before := tl.Since()
	d.kill(p, "at the test's word")
	after := tl.Since()
	if len(d.interruptions) != 1 {
		t.Fatalf("interruptions: %+v, want one kill", d.interruptions)
	}
	i := d.interruptions[0]
	if after-before < reaping {
		t.Fatalf("kill returned after %s, before the process was reaped (%s): the test does not hold the reaping back", after-before, reaping)
	}
	if i.From < before || i.From-before >= reaping/2 {
		t.Errorf("the kill is recorded at %s, %s after the signal went at about %s: it is the reaping's time, not the signal's", i.From, i.From-before, before)
	}
	if !d.fleet.killed[p.PID] {
		t.Errorf("the fleet does not know it killed pid %d", p.PID)
	}
}
