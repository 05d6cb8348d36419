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
