package verify

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Moment is when, in a produce's life at the broker, the tap asks the
// round what to do.
type Moment int

const (
	// Arrived: the request has arrived; the broker has not read it yet.
	Arrived Moment = iota
	// Answering: the broker has stored it (or refused it) and its answer
	// is about to leave.
	Answering
	// Answered: the answer has left.
	Answered
)

// Verdict is what the round tells the tap to do with a request or an
// answer: pass it on, or hold it back and close the connection after
// Drop (the sender waits that long for nothing, then sees its connection
// fail: the broker's side of a timeout).
type Verdict struct {
	Withhold bool
	After    time.Duration
}

// Pass lets a request or an answer through.
var Pass = Verdict{}

// Hook is called at every moment of every produce. It may act on the
// sender (kill it, stop it) and sleep: it holds up only the sender's
// connection.
type Hook func(p *Produce, m Moment) Verdict

// Produce is one produce request as the broker's side of the wire saw it.
type Produce struct {
	N       int   // 1 for the first produce request of the round
	Sender  *Proc // nil when no relay process holds the connection
	Arrived time.Duration
	Acks    int16
	Records []SentRecord
	// Answered is when the answer left, 0 if it never did.
	Answered time.Duration
	// Results are the broker's answers by partition, nil before it answered.
	Results map[int32]partResult
	// Withheld says the request never reached the broker or its answer
	// never left: the sender could not know what became of it.
	Withheld bool
}

// From names the sender.
func (p *Produce) From() string {
	if p.Sender == nil {
		return "an unknown process"
	}
	return p.Sender.Label()
}

// Stored is one record the broker stored, where and when, and who sent it.
type Stored struct {
	Partition int32
	Offset    int64
	At        time.Duration
	Record    SentRecord
	Produce   *Produce
}

// Tap is the broker's side of the wire: it wraps the listener of the
// Kafka-protocol broker (kfake.ListenFn), so that every byte between a
// relay and the broker passes it. It reads each produce request and its
// answer, knows which process sent it (Fleet.Owner), asks the round's
// Hook what to do at each moment, and keeps the log of what the broker
// stored.
type Tap struct {
	tl       *Timeline
	idHeader string
	owner    func(port, remote int) *Proc

	mu       sync.Mutex
	hook     Hook
	produces []*Produce
	stored   map[[2]int64]*Stored
	order    []*Stored
}

// NewTap returns a tap that writes to tl and reads the event id from the
// header idHeader.
func NewTap(tl *Timeline, idHeader string) *Tap {
	return &Tap{tl: tl, idHeader: idHeader, stored: map[[2]int64]*Stored{}}
}

// SetHook sets the hook and how the tap finds a connection's process.
func (t *Tap) SetHook(h Hook, owner func(port, remote int) *Proc) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hook, t.owner = h, owner
}

// Listen is kfake.ListenFn's function: net.Listen, with every accepted
// connection tapped.
func (t *Tap) Listen(network, address string) (net.Listener, error) {
	l, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	return &tapListener{Listener: l, tap: t}, nil
}

// Produces returns every produce request so far.
func (t *Tap) Produces() []*Produce {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]*Produce(nil), t.produces...)
}

// Log returns what the broker stored, in the order it stored it.
func (t *Tap) Log() []*Stored {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]*Stored(nil), t.order...)
}

type tapListener struct {
	net.Listener
	tap *Tap
}

func (l *tapListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &tapConn{Conn: c, tap: l.tap, waiting: map[int32]*Produce{}, versions: map[int32]int16{}}, nil
}

// tapConn is one client connection. kfake reads a request, answers it and
// only then reads the next, so requests and answers pair up in order.
type tapConn struct {
	net.Conn
	tap      *Tap
	buf      []byte // the part of a request frame not yet handed to the broker
	out      []byte // an answer frame not yet whole
	sender   *Proc  // nil until found
	mu       sync.Mutex
	waiting  map[int32]*Produce // produce requests by correlation id
	versions map[int32]int16
	// dead is the produce whose request or answer the round withheld:
	// from then on nothing passes either way until the connection closes,
	// as on a connection that timed out. A broker answers a connection's
	// requests in order; one that answered the later ones around a
	// withheld one would be no broker (the Java client fails its I/O
	// thread on the correlation ids).
	dead *Produce
}

func (c *tapConn) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		frame, err := readFrame(c.Conn)
		if err != nil {
			return 0, err
		}
		if dead := c.deadAt(); dead != nil {
			c.tap.tl.Add("broker", 0, "a request behind produce #%d from %s is lost with its connection", dead.N, dead.From())
			continue
		}
		if v := c.tap.arrive(c, frame); v.Withhold {
			c.die(c.waitingFor(frame))
			c.dropLater(v.After)
			continue
		}
		c.buf = frame
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}

func (c *tapConn) Write(p []byte) (int, error) {
	c.out = append(c.out, p...)
	for len(c.out) >= 8 {
		size := 4 + int(uint32(c.out[0])<<24|uint32(c.out[1])<<16|uint32(c.out[2])<<8|uint32(c.out[3]))
		if len(c.out) < size {
			break
		}
		frame := c.out[:size:size]
		c.out = c.out[size:]
		if err := c.answer(frame); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

func (c *tapConn) deadAt() *Produce {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

func (c *tapConn) die(p *Produce) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead == nil {
		c.dead = p
	}
}

// waitingFor returns the produce request frame is.
func (c *tapConn) waitingFor(frame []byte) *Produce {
	_, _, corr, _, _ := requestHeader(frame)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waiting[corr]
}

// dropLater closes the connection after d: the sender waited for an
// answer that never comes.
func (c *tapConn) dropLater(d time.Duration) {
	time.AfterFunc(d, func() { c.Conn.Close() })
}

// arrive reads a request frame; for a produce it records the request and
// asks the hook.
func (t *Tap) arrive(c *tapConn, frame []byte) Verdict {
	key, version, corr, body, err := requestHeader(frame)
	if err != nil || key != int16(kmsg.Produce) {
		return Pass
	}
	acks, recs, err := decodeProduce(version, body, t.idHeader)
	if err != nil {
		t.tl.Add("broker", 0, "cannot read a produce request: %v", err)
		return Pass
	}
	if c.sender == nil && t.owner != nil {
		peer, ok1 := c.RemoteAddr().(*net.TCPAddr)
		self, ok2 := c.LocalAddr().(*net.TCPAddr)
		if ok1 && ok2 {
			c.sender = t.owner(peer.Port, self.Port)
		}
	}
	t.mu.Lock()
	p := &Produce{N: len(t.produces) + 1, Sender: c.sender, Arrived: t.tl.Since(), Acks: acks, Records: recs}
	t.produces = append(t.produces, p)
	hook := t.hook
	t.mu.Unlock()
	c.mu.Lock()
	c.waiting[corr], c.versions[corr] = p, version
	c.mu.Unlock()
	t.tl.Add("broker", 0, "produce #%d from %s: %s", p.N, p.From(), describe(recs))
	if hook == nil {
		return Pass
	}
	v := hook(p, Arrived)
	if v.Withhold {
		p.Withheld = true
	}
	return v
}

// answer reads an answer frame; for a produce it records what the broker
// stored and asks the hook before and after the answer leaves.
func (c *tapConn) answer(frame []byte) error {
	corr := responseCorr(frame)
	c.mu.Lock()
	p, version := c.waiting[corr], c.versions[corr]
	delete(c.waiting, corr)
	c.mu.Unlock()
	if c.deadAt() != nil {
		return nil
	}
	if p == nil {
		_, err := c.Conn.Write(frame)
		return err
	}
	t := c.tap
	results, err := decodeProduceResponse(version, frame)
	if err != nil {
		t.tl.Add("broker", 0, "cannot read the answer to produce #%d: %v", p.N, err)
	}
	t.record(p, results)
	t.mu.Lock()
	hook := t.hook
	t.mu.Unlock()
	if hook != nil {
		if v := hook(p, Answering); v.Withhold {
			p.Withheld = true
			t.tl.Add("broker", 0, "answer to produce #%d withheld", p.N)
			c.die(p)
			c.dropLater(v.After)
			return nil
		}
	}
	if _, err := c.Conn.Write(frame); err != nil {
		return err
	}
	p.Answered = t.tl.Since()
	if hook != nil {
		hook(p, Answered)
	}
	return nil
}

// record notes what the broker did with p: the records it stored, at
// which offsets (a retried batch the broker already had keeps its first
// offsets and is not stored again).
func (t *Tap) record(p *Produce, results map[int32]partResult) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p.Results = results
	at := t.tl.Since()
	next := map[int32]int64{}
	var said []string
	refused := 0
	for _, rec := range p.Records {
		res, ok := results[rec.Partition]
		if ok && res.Code != 0 {
			said = append(said, fmt.Sprintf("%s refused at p%d (%s)", rec.EventID, rec.Partition, codeName(res.Code)))
			refused++
			continue
		}
		if !ok {
			continue
		}
		off := res.BaseOffset + next[rec.Partition]
		next[rec.Partition]++
		k := [2]int64{int64(rec.Partition), off}
		if _, dup := t.stored[k]; dup {
			said = append(said, fmt.Sprintf("%s already at p%d/%d", rec.EventID, rec.Partition, off))
			continue
		}
		s := &Stored{Partition: rec.Partition, Offset: off, At: at, Record: rec, Produce: p}
		t.stored[k] = s
		t.order = append(t.order, s)
		said = append(said, fmt.Sprintf("%s stored at p%d/%d", rec.EventID, rec.Partition, off))
	}
	how := "handled"
	if refused > 0 && refused == len(p.Records) {
		how = "refused"
	}
	t.tl.Add("broker", 0, "produce #%d from %s %s: %s", p.N, p.From(), how, strings.Join(said, ", "))
}

func describe(recs []SentRecord) string {
	var s []string
	for _, r := range recs {
		id := r.EventID
		if !r.HasID {
			id = "(no id header)"
		}
		s = append(s, fmt.Sprintf("%s key %s → p%d", id, r.Key, r.Partition))
	}
	return strings.Join(s, ", ")
}
