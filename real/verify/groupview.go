package verify

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// groupView is what the harness sees of the consumer group at the broker:
// its state and generation, each member with the consumer process that
// holds its connection, their partitions, and the committed offsets.
type groupView struct {
	cluster *kfake.Cluster
	fleet   *Fleet
	tl      *Timeline
	pub     *publisher
	broker  int // the broker's port

	mu    sync.Mutex
	procs map[string]*Proc // member id → the process that joined as it
}

// groupState is the group at one moment.
type groupState struct {
	State      string
	Generation int32
	Members    []member
	Commits    map[int32]int64 // partition → the next offset to read; absent: none committed
}

type member struct {
	ID         string
	Proc       *Proc // nil when no live consumer process holds its connection
	Partitions []int32
}

func (s groupState) stable() bool { return s.State == "Stable" }

// holds reports whether a process of instance holds partitions.
func (s groupState) holds(instance string) bool {
	return slices.ContainsFunc(s.Members, func(m member) bool {
		return m.Proc != nil && m.Proc.Instance == instance && len(m.Partitions) > 0
	})
}

// partitionsOf returns the partitions a process of instance holds.
func (s groupState) partitionsOf(instance string) []int32 {
	var out []int32
	for _, m := range s.Members {
		if m.Proc != nil && m.Proc.Instance == instance {
			out = append(out, m.Partitions...)
		}
	}
	return out
}

// holder returns the process that holds partition p, nil if none does.
func (s groupState) holder(p int32) *Proc {
	for _, m := range s.Members {
		if slices.Contains(m.Partitions, p) {
			return m.Proc
		}
	}
	return nil
}

// assigned counts the partitions the members hold.
func (s groupState) assigned() int {
	n := 0
	for _, m := range s.Members {
		n += len(m.Partitions)
	}
	return n
}

func (s groupState) String() string {
	var said []string
	for _, m := range s.Members {
		who := "a member no live process holds"
		if m.Proc != nil {
			who = m.Proc.Label()
		}
		var ps []string
		for _, p := range m.Partitions {
			ps = append(ps, "p"+strconv.Itoa(int(p)))
		}
		if len(ps) == 0 {
			ps = []string{"nothing"}
		}
		said = append(said, who+" "+strings.Join(ps, " "))
	}
	if len(said) == 0 {
		said = []string{"no members"}
	}
	return fmt.Sprintf("generation %d, %s: %s", s.Generation, s.State, strings.Join(said, "; "))
}

func newGroupView(cluster *kfake.Cluster, fleet *Fleet, tl *Timeline, pub *publisher) *groupView {
	g := &groupView{cluster: cluster, fleet: fleet, tl: tl, pub: pub, procs: map[string]*Proc{}}
	if addrs := cluster.ListenAddrs(); len(addrs) > 0 {
		if _, port, err := net.SplitHostPort(addrs[0]); err == nil {
			g.broker, _ = strconv.Atoi(port)
		}
	}
	return g
}

// now returns the group as the broker has it.
func (g *groupView) now() groupState {
	info := g.cluster.GroupInfo(Group)
	s := groupState{Commits: map[int32]int64{}}
	if info == nil {
		s.State = "Dead"
		return s
	}
	s.State, s.Generation = info.State, info.Epoch
	for _, m := range info.Members {
		parts := slices.Clone(m.Assignment[Topic])
		slices.Sort(parts)
		s.Members = append(s.Members, member{ID: m.MemberID, Proc: g.procOf(m.MemberID, m.ClientHost), Partitions: parts})
	}
	for p, c := range info.Commits[Topic] {
		s.Commits[p] = c.Offset
	}
	return s
}

func (g *groupView) procOf(id, host string) *Proc {
	g.mu.Lock()
	defer g.mu.Unlock()
	if p, ok := g.procs[id]; ok {
		return p
	}
	_, port, err := net.SplitHostPort(host)
	if err != nil {
		return nil
	}
	n, _ := strconv.Atoi(port)
	p := g.fleet.Owner(n, g.broker)
	if p != nil {
		g.procs[id] = p
	}
	return p
}

// waitFor polls the group until ok, at most d; it reports whether ok came.
func (g *groupView) waitFor(d time.Duration, ok func(groupState) bool) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if ok(g.now()) {
			return true
		}
	}
	return false
}

// watch writes each change of the group's members and partitions to the
// timeline until ctx ends.
func (g *groupView) watch(ctx context.Context) {
	last := ""
	for ctx.Err() == nil {
		s := g.now()
		s.Commits = nil
		if said := s.String(); said != last {
			g.tl.Add("broker", 0, "group %s %s", Group, said)
			last = said
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// describe says what offsets commit: each partition's next offset and
// the event before it.
func (g *groupView) describe(offsets map[int32]int64) string {
	var said []string
	for _, p := range slices.Sorted(maps.Keys(offsets)) {
		s := fmt.Sprintf("p%d→%d", p, offsets[p])
		if r, ok := g.pub.at(p, offsets[p]-1); ok {
			s += " past " + r.EventID
		}
		said = append(said, s)
	}
	return strings.Join(said, ", ")
}
