package verify

import (
	"encoding/binary"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetCommit is one offset commit as the broker's side of the wire saw
// it: which consumer process sent it, for which member and generation of
// the group, the offsets it commits on the topic, and the broker's answer.
type OffsetCommit struct {
	N          int   // 1 for the first offset commit of a consumer process in the round
	Sender     *Proc // nil when no consumer process holds the connection
	Arrived    time.Duration
	Member     string
	Generation int32
	Offsets    map[int32]int64
	// Refused are the partitions the broker refused, with its error; nil
	// until it answered.
	Refused map[int32]string
	// Withheld says the commit never reached the broker; Lost that its
	// sender was told it did.
	Withheld, Lost bool
}

// From names the sender.
func (c *OffsetCommit) From() string {
	if c.Sender == nil {
		return "an unknown process"
	}
	return c.Sender.Label()
}

// CommitHook is called as each offset commit arrives, before the broker
// reads it, and says what becomes of it. It may act on the sender and
// sleep: it holds up only the sender's connection.
type CommitHook func(c *OffsetCommit) CommitAction

// CommitAction is what becomes of an offset commit.
type CommitAction int

const (
	// PassCommit hands the commit to the broker.
	PassCommit CommitAction = iota
	// DropCommit never hands it on, and closes the connection (its sender
	// was killed).
	DropCommit
	// LoseCommit answers it as stored and never hands it on: the broker
	// keeps the offsets it had (a commit lost in a failover of the
	// group's coordinator).
	LoseCommit
)

// OffsetTap is the broker's side of the consumers' connections: it wraps
// the broker's listener (kfake.ListenFn) as Tap does for producers, reads
// each offset commit and its answer, tells the consumer process that sent
// it by its socket, and asks the round's hook what to do.
type OffsetTap struct {
	tl    *Timeline
	owner func(port, remote int) *Proc
	// describe names the record just before an offset of a partition.
	describe func(partition int32, offset int64) string
	hook     CommitHook

	mu      sync.Mutex
	commits []*OffsetCommit
}

// Listen is kfake.ListenFn's function: net.Listen, with every accepted
// connection tapped.
func (t *OffsetTap) Listen(network, address string) (net.Listener, error) {
	l, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	return &offsetListener{Listener: l, tap: t}, nil
}

// Commits returns every offset commit so far.
func (t *OffsetTap) Commits() []*OffsetCommit {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]*OffsetCommit(nil), t.commits...)
}

type offsetListener struct {
	net.Listener
	tap *OffsetTap
}

func (l *offsetListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &offsetConn{Conn: c, tap: l.tap, waiting: map[int32]*OffsetCommit{}, versions: map[int32]int16{}}, nil
}

// offsetConn is one client connection; as with tapConn, requests and
// answers pair up by correlation id.
type offsetConn struct {
	net.Conn
	tap      *OffsetTap
	buf, out []byte
	wmu      sync.Mutex // held while an answer is written
	sender   *Proc
	looked   bool
	mu       sync.Mutex
	waiting  map[int32]*OffsetCommit
	versions map[int32]int16
}

func (c *offsetConn) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		frame, err := readFrame(c.Conn)
		if err != nil {
			return 0, err
		}
		if c.arrive(frame) != PassCommit {
			continue // answered here, or its sender is gone
		}
		c.buf = frame
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}

func (c *offsetConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.out = append(c.out, p...)
	for len(c.out) >= 8 {
		size := 4 + int(uint32(c.out[0])<<24|uint32(c.out[1])<<16|uint32(c.out[2])<<8|uint32(c.out[3]))
		if len(c.out) < size {
			break
		}
		c.answered(c.out[:size:size])
		c.out = c.out[size:]
	}
	return c.Conn.Write(p)
}

// arrive reads a request frame; an offset commit of the topic is recorded
// and handed to the hook.
func (c *offsetConn) arrive(frame []byte) CommitAction {
	key, version, corr, body, err := requestHeader(frame)
	if err != nil || key != int16(kmsg.OffsetCommit) {
		return PassCommit
	}
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Version = version
	if err := req.ReadFrom(body); err != nil {
		c.tap.tl.Add("broker", 0, "cannot read an offset commit: %v", err)
		return PassCommit
	}
	t := c.tap
	t.mu.Lock()
	owner := t.owner
	t.mu.Unlock()
	if !c.looked && owner != nil {
		c.looked = true
		peer, ok1 := c.RemoteAddr().(*net.TCPAddr)
		self, ok2 := c.LocalAddr().(*net.TCPAddr)
		if ok1 && ok2 {
			c.sender = owner(peer.Port, self.Port)
		}
	}
	oc := &OffsetCommit{Sender: c.sender, Member: req.MemberID, Generation: req.Generation, Offsets: map[int32]int64{}}
	for _, topic := range req.Topics {
		for _, p := range topic.Partitions {
			oc.Offsets[p.Partition] = p.Offset
		}
	}
	t.mu.Lock()
	oc.N, oc.Arrived = len(t.commits)+1, t.tl.Since()
	t.commits = append(t.commits, oc)
	hook := t.hook
	t.mu.Unlock()
	c.mu.Lock()
	c.waiting[corr], c.versions[corr] = oc, version
	c.mu.Unlock()
	t.tl.Add("broker", 0, "offset commit #%d from %s (generation %d): %s", oc.N, oc.From(), oc.Generation, t.offsets(oc.Offsets))
	if hook == nil {
		return PassCommit
	}
	switch a := hook(oc); a {
	case DropCommit:
		t.mu.Lock()
		oc.Withheld = true
		t.mu.Unlock()
		c.Conn.Close()
		return a
	case LoseCommit:
		c.mu.Lock()
		delete(c.waiting, corr)
		c.mu.Unlock()
		t.mu.Lock()
		oc.Withheld, oc.Lost, oc.Refused = true, true, map[int32]string{}
		t.mu.Unlock()
		t.tl.Add("broker", 0, "offset commit #%d from %s answered as stored, and lost: the broker keeps the offsets it had", oc.N, oc.From())
		c.wmu.Lock()
		defer c.wmu.Unlock()
		c.Conn.Write(storedAnswer(req, corr))
		return a
	}
	return PassCommit
}

// storedAnswer is the frame of an answer to req that says every offset
// was stored. kfake answers a request before it reads the next one, so
// this answer, written before the broker reads on, keeps its place among
// the connection's answers.
func storedAnswer(req *kmsg.OffsetCommitRequest, corr int32) []byte {
	resp := req.ResponseKind().(*kmsg.OffsetCommitResponse)
	for _, t := range req.Topics {
		rt := kmsg.NewOffsetCommitResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewOffsetCommitResponseTopicPartition()
			rp.Partition = p.Partition
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	frame := binary.BigEndian.AppendUint32(make([]byte, 4), uint32(corr))
	if resp.IsFlexible() {
		frame = append(frame, 0) // the response header's empty tagged fields
	}
	frame = resp.AppendTo(frame)
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
	return frame
}

// answered reads an answer frame; the answer to an offset commit is
// recorded.
func (c *offsetConn) answered(frame []byte) {
	corr := responseCorr(frame)
	c.mu.Lock()
	oc, version := c.waiting[corr], c.versions[corr]
	delete(c.waiting, corr)
	c.mu.Unlock()
	if oc == nil {
		return
	}
	r := kbin.Reader{Src: frame[8:]}
	resp := kmsg.NewPtrOffsetCommitResponse()
	resp.Version = version
	if resp.IsFlexible() {
		kmsg.SkipTags(&r)
	}
	if err := resp.ReadFrom(r.Src); err != nil {
		c.tap.tl.Add("broker", 0, "cannot read the answer to offset commit #%d: %v", oc.N, err)
		return
	}
	refused := map[int32]string{}
	for _, topic := range resp.Topics {
		for _, p := range topic.Partitions {
			if p.ErrorCode != 0 {
				refused[p.Partition] = codeName(p.ErrorCode)
			}
		}
	}
	c.tap.mu.Lock()
	oc.Refused = refused
	c.tap.mu.Unlock()
	if len(refused) == 0 {
		c.tap.tl.Add("broker", 0, "offset commit #%d from %s stored", oc.N, oc.From())
		return
	}
	var said []string
	for _, p := range slices.Sorted(maps.Keys(refused)) {
		said = append(said, fmt.Sprintf("p%d: %s", p, refused[p]))
	}
	c.tap.tl.Add("broker", 0, "offset commit #%d from %s refused: %s", oc.N, oc.From(), strings.Join(said, ", "))
}

// offsets says what a commit commits: each partition's next offset and
// the record before it.
func (t *OffsetTap) offsets(offsets map[int32]int64) string {
	t.mu.Lock()
	describe := t.describe
	t.mu.Unlock()
	var said []string
	for _, p := range slices.Sorted(maps.Keys(offsets)) {
		s := fmt.Sprintf("p%d→%d", p, offsets[p])
		if describe != nil && offsets[p] > 0 {
			if d := describe(p, offsets[p]-1); d != "" {
				s += " (past " + d + ")"
			}
		}
		said = append(said, s)
	}
	return strings.Join(said, ", ")
}
