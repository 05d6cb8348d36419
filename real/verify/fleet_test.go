package verify

import (
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestTheFleetKnowsWhoHoldsAConnection starts an instance whose shell
// starts another process that connects to a listener, and asks the fleet
// who holds the accepted connection's peer: the instance's process, found
// through its process group, though the connection is its child's.
func TestTheFleetKnowsWhoHoldsAConnection(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash for /dev/tcp:", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	tl := NewTimeline()
	f := StartFleet(fmt.Sprintf("bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d; echo connected; sleep 30'", port), []string{"relay-1"}, nil, tl)
	defer f.Shutdown(time.Second)
	conn, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	peer := conn.RemoteAddr().(*net.TCPAddr).Port
	var owner *Proc
	for deadline := time.Now().Add(5 * time.Second); owner == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		owner = f.Owner(peer, port)
	}
	if owner == nil || owner.Label() != "relay-1/1" {
		t.Fatalf("owner of port %d: %v, want relay-1/1\n%v", peer, owner, tl.Events())
	}
	if f.Owner(port, peer) != nil {
		t.Errorf("the listener's own port is owned by a relay")
	}
	f.Kill(owner)
	if lines := fmt.Sprint(tl.Events()); !strings.Contains(lines, "says: connected") {
		t.Errorf("the relay's output is not in the timeline: %s", lines)
	}
}

// TestAProcessThatEndsByItselfEndsTheRound: a relay that dies at once (a
// bad flag here) is no restart loop and no STUCK 15 s later: the fleet
// breaks at its first end with its own verdict, when it ended, and its
// last lines; its own process id is the command's, not the shell's.
func TestAProcessThatEndsByItselfEndsTheRound(t *testing.T) {
	tl := NewTimeline()
	f := StartFleet(`echo starting; echo "flag provided but not defined: -batch" >&2; exit 2`, []string{"relay-1"}, nil, tl)
	for deadline := time.Now().Add(5 * time.Second); f.Broken() == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	f.Shutdown(time.Second)
	b := f.Breaches()
	if f.Broken() == nil || !f.ended() || len(b) != 1 || b[0].Verdict != EndedByItself {
		t.Fatalf("broken %v, breaches %v\n%v", f.Broken(), b, tl.Events())
	}
	if !strings.HasPrefix(b[0].Detail, "relay-1 ended by itself (exit status 2) 0.") || strings.Join(b[0].Lines, "|") != "starting|flag provided but not defined: -batch" {
		t.Errorf("breach %q, lines %q", b[0].Detail, b[0].Lines)
	}
	if n := strings.Count(fmt.Sprint(tl.Events()), "started"); n != 1 {
		t.Errorf("%d processes started, want 1: the round ends at the first end\n%v", n, tl.Events())
	}
}

// TestAProcessThatEndsAfterAFaultIsRestarted: one a fault acted on may
// be a relay that exits on an error to be restarted: it is, and nothing
// is a breach.
func TestAProcessThatEndsAfterAFaultIsRestarted(t *testing.T) {
	tl := NewTimeline()
	f := StartFleet(`sleep 0.2; exit 1`, []string{"relay-1"}, nil, tl)
	defer f.Shutdown(time.Second)
	var first *Proc
	for first == nil {
		if live := f.Live(); len(live) > 0 {
			first = live[0]
		}
	}
	f.Faulted(first)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if live := f.Live(); len(live) == 1 && live[0].Gen == 2 {
			if b := f.Breaches(); len(b) > 0 || f.Broken() != nil {
				t.Fatalf("breaches %v, broken %v", b, f.Broken())
			}
			return
		}
	}
	t.Fatalf("no second process; broken %v, breaches %v\n%v", f.Broken(), f.Breaches(), tl.Events())
}

// TestAProcessThatIgnoresSIGTERMIsKilledAndJudged: rule 8. The shell
// traps SIGTERM and so does its child, which goes on; the shutdown kills
// it after the grace and says so in a verdict of its own. Its own pid is
// the child's.
func TestAProcessThatIgnoresSIGTERMIsKilledAndJudged(t *testing.T) {
	tl := NewTimeline()
	f := StartFleet(`trap "" TERM; sh -c 'trap "" TERM; echo waiting; sleep 30; true'; true`, []string{"relay-1"}, nil, tl)
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(fmt.Sprint(tl.Events()), "says: waiting") && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	p := f.Live()[0]
	start := time.Now()
	f.Shutdown(300 * time.Millisecond)
	b := f.Breaches()
	if len(b) != 1 || b[0].Verdict != IgnoredSIGTERM || b[0].Proc != p || !strings.Contains(b[0].Detail, "still running 300ms after SIGTERM") || time.Since(start) > 5*time.Second {
		t.Fatalf("breaches %v after %s\n%v", b, time.Since(start), tl.Events())
	}
	if p.OwnPID() == p.PID {
		t.Errorf("own pid %d is the shell's", p.OwnPID())
	}
}

// TestAnInstanceThatLeavesButIgnoresSIGTERMIsKilledAndJudged: rule 8 for
// an instance that leaves the round for good (a consumer's rebalance):
// Retire kills it after the grace, judges it, and does not start it again.
func TestAnInstanceThatLeavesButIgnoresSIGTERMIsKilledAndJudged(t *testing.T) {
	tl := NewTimeline()
	f := StartFleet(`trap "" TERM; sh -c 'trap "" TERM; echo waiting; sleep 30; true'; true`, []string{"billing-3"}, nil, tl)
	defer f.Shutdown(time.Second)
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(fmt.Sprint(tl.Events()), "says: waiting") && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	p := f.Live()[0]
	f.Retire(p, 300*time.Millisecond)
	b := f.Breaches()
	if len(b) != 1 || b[0].Verdict != IgnoredSIGTERM || b[0].Proc != p || !strings.Contains(b[0].Detail, "still running 300ms after SIGTERM") {
		t.Fatalf("breaches %v\n%v", b, tl.Events())
	}
	time.Sleep(100 * time.Millisecond)
	if live := f.Live(); len(live) != 0 {
		t.Errorf("%v live after Retire: a retired instance is not started again", live)
	}
}
