package verify

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"outboxlab/domain"
	"outboxlab/orders"
)

// GapDelay is how late the gap round's held event is published.
const GapDelay = 1500 * time.Millisecond

// EffectHold is how long kill-before-effect holds the effect written
// before the kill, unless an offset commit past its record comes first:
// longer than the auto-commit interval of the Kafka clients (5 s in the
// Java client and librdkafka), whose default commits what a poll
// returned, applied or not.
const EffectHold = 6 * time.Second

// consumerDriver makes a consumer round's faults: the offset tap calls it
// at every offset commit, the gate at every ledger row the round aims at,
// and the play loop at every event it publishes.
type consumerDriver struct {
	tl      *Timeline
	fleet   *Fleet
	cluster *kfake.Cluster
	watch   *dbWatch
	tap     *OffsetTap
	pub     *publisher
	svc     *Service
	group   *groupView
	faults  []Fault
	rng     *rand.Rand // the amounts of the amendments the round injects
	active  atomic.Int32

	mu            sync.Mutex
	fired         []bool
	commits       int
	published     int
	instances     int
	held          map[string]heldEvent // order id → its event the relay holds back
	inject        []orders.Command
	interruptions []Interruption
	notMade       []NotMade
	lose          bool // offset commits are answered as stored and lost
	// fresh are the partitions that want a record published after a
	// fault: their consumers commit again only when they read one.
	fresh map[int32]bool
}

type heldEvent struct {
	c    Committed
	late bool
}

// due returns the fault of moment m that the n-th occurrence fires, and
// marks it fired; suits says whether the occurrence suits a kind.
func (d *consumerDriver) due(m consumerMoment, n int, suits func(FaultKind) bool) (FaultKind, bool) {
	for i, f := range d.faults {
		if d.fired[i] || consumerDefOf(f.Kind).moment != m || n < f.At || (m == atEffect && n != f.At) || !suits(f.Kind) {
			continue
		}
		d.fired[i] = true
		return f.Kind, true
	}
	return "", false
}

func anyKind(FaultKind) bool { return true }

// notReached returns the faults whose moment never came.
func (d *consumerDriver) notReached() []Fault {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []Fault
	for i, f := range d.faults {
		if !d.fired[i] {
			out = append(out, f)
		}
	}
	return out
}

// unmade returns the faults whose moment came and which the harness
// could not make.
func (d *consumerDriver) unmade() []NotMade {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]NotMade(nil), d.notMade...)
}

func (d *consumerDriver) couldNotMake(k FaultKind, why string) {
	d.tl.Add("harness", 0, "%s not made: %s", k, why)
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, f := range d.faults {
		if f.Kind == k {
			d.notMade = append(d.notMade, NotMade{Fault: f, Why: why})
			return
		}
	}
}

func (d *consumerDriver) busy() bool { return d.active.Load() > 0 }

// wantsMore reports whether the round wants more commands: a fault not
// reached or in progress, a partition that wants a fresh record, or
// commands the round injects.
func (d *consumerDriver) wantsMore() bool {
	d.mu.Lock()
	pending := len(d.fresh) + len(d.inject)
	d.mu.Unlock()
	return pending > 0 || d.busy() || len(d.notReached()) > 0
}

// onCommit is the offset tap's hook.
func (d *consumerDriver) onCommit(c *OffsetCommit) CommitAction {
	if c.Sender == nil {
		return PassCommit
	}
	d.mu.Lock()
	if d.lose {
		d.mu.Unlock()
		return LoseCommit
	}
	d.commits++
	kind, ok := d.due(atCommit, d.commits, anyKind)
	d.mu.Unlock()
	if !ok {
		return PassCommit
	}
	d.active.Add(1)
	defer d.active.Add(-1)
	switch kind {
	case KillAfterEffect:
		d.kill(c.Sender, "as its offset commit #%d arrives (%s), before the broker reads it; %s", c.N, d.group.describe(c.Offsets), d.applied(c.Offsets))
		return DropCommit
	case DeliveredTwice:
		d.mu.Lock()
		d.lose = true
		d.mu.Unlock()
		d.active.Add(1)
		go d.joinWhileLosing()
		return LoseCommit
	case Rebalance:
		d.active.Add(1)
		go d.rebalance()
	case FetchRefused:
		d.refuseFetches(OutageLength)
	}
	return PassCommit
}

// applied says which events of the records an offset commit passes (from
// the offsets the broker keeps) have their effects committed in the
// billing database, and which do not: what the harness sees of both sides
// at the moment of a kill-after-effect.
func (d *consumerDriver) applied(offsets map[int32]int64) string {
	kept := d.group.now().Commits
	var ids []string
	for _, r := range d.pub.Log() {
		if off, ok := offsets[r.Partition]; ok && r.Offset < off && r.Offset >= kept[r.Partition] && r.Planned == "" && !slices.Contains(ids, r.EventID) {
			ids = append(ids, r.EventID)
		}
	}
	var done []string
	rows, err := d.watch.pool.Query(context.Background(), `SELECT DISTINCT event_id FROM billing_ledger WHERE event_id = ANY($1)`, ids)
	if err == nil {
		done, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		return fmt.Sprintf("the ledger cannot be read: %v", err)
	}
	var applied, open []string // in the order published
	for _, id := range ids {
		if slices.Contains(done, id) {
			applied = append(applied, id)
		} else {
			open = append(open, id)
		}
	}
	return fmt.Sprintf("the effects it passes committed: %s; not committed: %s", orNone(applied), orNone(open))
}

func orNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, " ")
}

// joinWhileLosing loses every offset commit until each partition has
// lost one past the offset the broker keeps (so that whichever partition
// moves is read again), or 5 s have passed; then starts one more instance
// and goes on losing them until the group has given it partitions.
func (d *consumerDriver) joinWhileLosing() {
	defer d.active.Add(-1)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !d.lostEverywhere(); {
		time.Sleep(20 * time.Millisecond)
	}
	name := d.join("while every offset commit is lost")
	d.group.waitFor(10*time.Second, func(v groupState) bool { return v.stable() && v.holds(name) })
	time.Sleep(300 * time.Millisecond)
	d.mu.Lock()
	d.lose = false
	for p := range int32(Partitions) {
		d.fresh[p] = true // the offsets lost wait for the next commit of each partition
	}
	d.mu.Unlock()
	d.tl.Add("harness", 0, "offset commits reach the broker again; the partitions that moved are read again from the offsets the broker kept")
}

// lostEverywhere reports whether every partition has had an offset
// commit lost past the offset the broker keeps of it.
func (d *consumerDriver) lostEverywhere() bool {
	kept := d.group.now().Commits
	for p := range int32(Partitions) {
		if !slices.ContainsFunc(d.tap.Commits(), func(c *OffsetCommit) bool {
			off, ok := c.Offsets[p]
			k, has := kept[p]
			return c.Lost && ok && (!has || off > k)
		}) {
			return false
		}
	}
	return true
}

// rebalance starts one more instance and, 1.5 s after the group gave it
// partitions, has it leave the group for good (SIGTERM): its partitions
// go back. The service amends every open order as it joins (the others'
// partitions are revoked while they hold records of that burst), once
// the new instance holds partitions, as it leaves (SIGTERM finds it in a
// burst: what it polled and has not applied must not be committed), and
// once its partitions are back: an instance that gets a partition back
// reads events of orders it applied events of before, and another
// instance in between. Where the new instance took no partition,
// or none went back to an instance that held it before, the assignor
// chose otherwise: once more, three times at most; after that the round
// says it could not make its fault.
func (d *consumerDriver) rebalance() {
	defer d.active.Add(-1)
	const cycles = 3
	for cycle := 1; cycle <= cycles; cycle++ {
		before := d.group.now()
		d.amendOpen("as an instance joins", 1)
		name := d.join("under load")
		d.group.waitFor(10*time.Second, func(s groupState) bool { return s.stable() && s.holds(name) })
		took := d.group.now().partitionsOf(name)
		d.amendOpen("while "+name+" holds partitions", 1)
		time.Sleep(1500 * time.Millisecond)
		for _, p := range d.fleet.Live() {
			if p.Instance == name {
				d.leaveInBurst(p)
			}
		}
		d.group.waitFor(10*time.Second, func(s groupState) bool { return s.stable() && !s.holds(name) && s.assigned() == Partitions })
		d.amendOpen("now that "+name+" has left", 1)
		if len(took) == 0 {
			d.tl.Add("harness", 0, "%s took no partition", name)
			continue
		}
		if back := returned(before, d.group.now(), took); back != "" {
			d.tl.Add("harness", 0, "%s went back to the instance that held it before %s joined", back, name)
			return
		}
		d.tl.Add("harness", 0, "no partition %s held went back to the instance that held it before", name)
	}
	d.couldNotMake(Rebalance, fmt.Sprintf("in %d tries, no partition that a joining instance took went back to the instance that held it before (the group's assignor gave them to others)", cycles))
}

// returned names a partition of took that an instance of the group
// before holds again after, "" if none.
func returned(before, after groupState, took []int32) string {
	for _, p := range took {
		if a, b := after.holder(p), before.holder(p); a != nil && b != nil && a.Instance == b.Instance {
			return fmt.Sprintf("p%d", p)
		}
	}
	return ""
}

// leaveInBurst has p leave the group for good (SIGTERM) while it holds
// records it polled and has not applied. The harness locks the accounts
// of two open orders of p's partitions, x and y (billing_accounts, FOR
// UPDATE: p's effects on them wait); has the service amend x, which p
// then waits on, and x again; amends y and every open order of p's
// partitions three times, all on the topic before p's client fetches
// them; lets x go, so that p applies x's amendments and polls the burst,
// whose first record waits on y; then sends p SIGTERM, and lets y go. p
// may finish y's amendment; the rest of its poll is in hand, and must
// not be committed.
func (d *consumerDriver) leaveInBurst(p *Proc) {
	ctx := context.Background()
	open := d.openOn(d.group.now().partitionsOf(p.Instance))
	if len(open) < 2 {
		d.tl.Add("harness", 0, "SIGTERM %s: it leaves the group for good (fewer than two open orders on its partitions: no burst)", p.Label())
		d.fleet.Retire(p, 3*time.Second)
		return
	}
	x, y := open[0], open[1]
	lockX, holderX := d.lockAccount(ctx, x.Record.AggregateID)
	lockY, holderY := d.lockAccount(ctx, y.Record.AggregateID)
	d.injectAll(d.amendment(x))
	d.blockedBy(ctx, p, holderX)
	// A second amendment of x fills what p's client fetches next (a client
	// buffers a fetch until it is polled): it fetches the burst only after
	// that, all of it at once.
	d.injectAll(d.amendment(x))
	time.Sleep(300 * time.Millisecond)
	burst := []orders.Command{d.amendment(y)}
	for _, c := range open {
		for range 3 {
			burst = append(burst, d.amendment(c))
		}
	}
	d.tl.Add("harness", 0, "%s waits on the account of %s; the service amends %s and every open order of its partitions three times (%d commands)",
		p.Label(), x.Record.AggregateID, y.Record.AggregateID, len(burst))
	d.injectAll(burst...)
	release(ctx, lockX)
	d.blockedBy(ctx, p, holderY)
	d.tl.Add("harness", 0, "SIGTERM %s, its poll of the burst in hand, its effect of %s waiting: it leaves the group for good", p.Label(), y.Record.AggregateID)
	time.AfterFunc(20*time.Millisecond, func() { release(ctx, lockY) }) // once SIGTERM has arrived
	d.fleet.Retire(p, 3*time.Second)
}

// openOn returns the acceptances of the orders not cancelled whose
// records are on the partitions, in the order first published.
func (d *consumerDriver) openOn(partitions []int32) []Committed {
	cancelled := map[string]bool{}
	for _, c := range d.svc.Committed() {
		cancelled[c.Record.AggregateID] = cancelled[c.Record.AggregateID] || c.Record.Type == domain.TypeOrderCancelled
	}
	var out []Committed
	seen := map[string]bool{}
	for _, r := range d.pub.Log() {
		if r.Planned != "" || seen[r.Key] || cancelled[r.Key] || !slices.Contains(partitions, r.Partition) {
			continue
		}
		seen[r.Key] = true
		if c, ok := d.acceptance(r.Key); ok {
			out = append(out, c)
		}
	}
	return out
}

// injectAll has the service run cmds at once and waits until their
// events are on the topic.
func (d *consumerDriver) injectAll(cmds ...orders.Command) {
	from := len(d.pub.Log())
	d.mu.Lock()
	d.inject = append(d.inject, cmds...)
	d.mu.Unlock()
	d.onTopic(from + len(cmds))
}

// lockAccount locks the account of an order in a transaction of the
// harness's, and returns it with its backend (nil if it failed).
func (d *consumerDriver) lockAccount(ctx context.Context, order string) (pgx.Tx, int) {
	tx, err := d.watch.pool.Begin(ctx)
	backend := 0
	if err == nil {
		err = tx.QueryRow(ctx, `SELECT pg_backend_pid() FROM billing_accounts WHERE order_id = $1 FOR UPDATE`, order).Scan(&backend)
	}
	if err != nil {
		d.tl.Add("harness", 0, "cannot lock the account of %s: %v", order, err)
		if tx != nil {
			tx.Rollback(ctx)
		}
		return nil, 0
	}
	return tx, backend
}

func release(ctx context.Context, tx pgx.Tx) {
	if tx != nil {
		tx.Rollback(ctx)
	}
}

// blockedBy waits until a backend of p waits on the harness's backend
// holder, at most two seconds.
func (d *consumerDriver) blockedBy(ctx context.Context, p *Proc, holder int) {
	for deadline := time.Now().Add(2 * time.Second); holder != 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		n := 0
		d.watch.pool.QueryRow(ctx, `SELECT count(*) FROM unnest($1::int[]) AS b(pid) WHERE $2::int = ANY(pg_blocking_pids(b.pid))`, d.watch.backends(ctx, p), holder).Scan(&n)
		if n > 0 {
			return
		}
	}
	d.tl.Add("harness", 0, "%s did not wait on the harness's lock within 2 s", p.Label())
}

// onTopic waits until the service has taken the commands injected and
// the topic holds n records, at most two seconds.
func (d *consumerDriver) onTopic(n int) {
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		d.mu.Lock()
		waiting := len(d.inject)
		d.mu.Unlock()
		if waiting == 0 && len(d.pub.Log()) >= n {
			return
		}
	}
}

// amendOpen has the service amend every order not cancelled, times
// times each, all at once (a burst of records), and returns how many
// commands that is.
func (d *consumerDriver) amendOpen(when string, times int) int {
	last := map[string]Committed{}
	var order []string
	for _, c := range d.svc.Committed() {
		if _, seen := last[c.Record.AggregateID]; !seen {
			order = append(order, c.Record.AggregateID)
		}
		last[c.Record.AggregateID] = c
	}
	var cmds []orders.Command
	for _, id := range order {
		if last[id].Record.Type == domain.TypeOrderCancelled {
			continue
		}
		if c, ok := d.acceptance(id); ok {
			for range times {
				cmds = append(cmds, d.amendment(c))
			}
		}
	}
	d.tl.Add("harness", 0, "the service amends the %d open order(s) %s", len(cmds)/times, when)
	d.mu.Lock()
	d.inject = append(d.inject, cmds...)
	d.mu.Unlock()
	return len(cmds)
}

// freshen has the service amend an open order of each partition that
// still wants a fresh record, once the workload's commands ran out.
func (d *consumerDriver) freshen() {
	d.mu.Lock()
	fresh := slices.Sorted(maps.Keys(d.fresh))
	d.mu.Unlock()
	cancelled := map[string]bool{}
	for _, c := range d.svc.Committed() {
		cancelled[c.Record.AggregateID] = c.Record.Type == domain.TypeOrderCancelled
	}
	var cmds []orders.Command
	for _, p := range fresh {
		for _, r := range d.pub.Log() {
			if c, ok := d.acceptance(r.Key); ok && r.Partition == p && !cancelled[r.Key] {
				cmds = append(cmds, d.amendment(c))
				break
			}
		}
	}
	d.mu.Lock()
	d.inject = append(d.inject, cmds...)
	d.mu.Unlock()
}

// acceptance returns the committed acceptance of an order.
func (d *consumerDriver) acceptance(order string) (Committed, bool) {
	for _, c := range d.svc.Committed() {
		if c.Record.AggregateID == order && c.Record.Type == domain.TypeOrderAccepted {
			return c, true
		}
	}
	return Committed{}, false
}

func (d *consumerDriver) join(why string) string {
	d.mu.Lock()
	d.instances++
	name := fmt.Sprintf("billing-%d", d.instances)
	d.mu.Unlock()
	d.tl.Add("harness", 0, "%s joins the group %s", name, why)
	d.fleet.Add(name)
	return name
}

// refuseFetches has the broker refuse every fetch for dur.
func (d *consumerDriver) refuseFetches(dur time.Duration) {
	d.active.Add(1)
	h := d.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Fetch}, Err: kerr.NotLeaderForPartition, Count: -1})
	d.tl.Add("harness", 0, "the broker refuses every fetch for %s", dur)
	time.AfterFunc(dur, func() {
		h.Remove()
		d.tl.Add("harness", 0, "the broker serves fetches again")
		d.active.Add(-1)
	})
}

// onEffect is the gate's: the effect the round aims at is written and its
// transaction open.
func (d *consumerDriver) onEffect(g Gated) {
	d.mu.Lock()
	kind, ok := d.due(atEffect, g.N, anyKind)
	d.mu.Unlock()
	if !ok {
		return
	}
	if g.Proc == nil {
		d.tl.Add("harness", 0, "%s not made: no consumer process holds backend %d, which wrote effect #%d (%s)", kind, g.Backend, g.N, g.Row)
		return
	}
	d.active.Add(1)
	defer d.active.Add(-1)
	ctx := context.Background()
	switch kind {
	case KillBeforeEffect:
		d.tl.Add("harness", 0, "%s wrote effect #%d (%s), not committed: held until an offset commit passes its record, at most %s", g.Proc.Label(), g.N, g.Row, EffectHold)
		d.holdForCommit(g.Row)
		d.kill(g.Proc, "with effect #%d (%s) written and not committed", g.N, g.Row)
		d.terminate(ctx, []int{g.Backend}, "of the killed transaction")
	case ConsumerStall:
		d.fleet.Stop(g.Proc)
		d.tl.Add("harness", 0, "SIGSTOP %s with effect #%d (%s) written and not committed, past the session timeout (%s)", g.Proc.Label(), g.N, g.Row, SessionTimeout)
		d.active.Add(1)
		go d.zombie(g.Proc, d.tl.Since())
	case ConsumerConnKilled:
		d.terminate(ctx, append(d.watch.backends(ctx, g.Proc), g.Backend), fmt.Sprintf("of %s, effect #%d (%s) written and not committed", g.Proc.Label(), g.N, g.Row))
		d.interrupted(g.Proc, d.tl.Since(), "its database connections were killed")
	}
}

// holdForCommit waits until an offset commit that passes the record of
// the event row names ("e-5 o-2#1 invoice") arrives (a consumer that
// commits what it polled, applied or not), at most EffectHold.
func (d *consumerDriver) holdForCommit(row string) {
	id, _, _ := strings.Cut(row, " ")
	var records []Published
	for _, p := range d.pub.Log() {
		if p.EventID == id {
			records = append(records, p)
		}
	}
	from := d.tl.Since()
	for deadline := time.Now().Add(EffectHold); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, c := range d.tap.Commits() {
			for _, r := range records {
				if off, ok := c.Offsets[r.Partition]; ok && off > r.Offset && !c.Withheld && c.Arrived >= from {
					d.tl.Add("harness", 0, "offset commit #%d from %s passes %s at p%d/%d while its effect is written and not committed", c.N, c.From(), id, r.Partition, r.Offset)
					return
				}
			}
		}
	}
}

// zombie waits until the group has gone on without the stopped p and its
// partitions are another's, and a second more, then lets p go on.
func (d *consumerDriver) zombie(p *Proc, from time.Duration) {
	defer d.active.Add(-1)
	gone := d.group.waitFor(4*SessionTimeout, func(v groupState) bool { return v.stable() && !v.holds(p.Instance) && v.assigned() == Partitions })
	if gone {
		d.tl.Add("harness", 0, "the group went on without %s: another instance holds its partitions", p.Label())
	} else {
		d.tl.Add("harness", 0, "the group did not go on without %s within %s", p.Label(), 4*SessionTimeout)
	}
	time.Sleep(time.Second)
	d.fleet.Cont(p)
	to := d.tl.Since()
	d.tl.Add("harness", 0, "SIGCONT %s after %s: a zombie, its partitions are gone", p.Label(), (to - from).Round(time.Millisecond))
	d.mu.Lock()
	d.interruptions = append(d.interruptions, Interruption{Proc: p, From: from, To: to, Why: "stopped past the session timeout"})
	d.mu.Unlock()
}

// terminate ends backends with pg_terminate_backend.
func (d *consumerDriver) terminate(ctx context.Context, backends []int, whose string) {
	slices.Sort(backends)
	backends = slices.Compact(backends)
	var cut int
	if err := d.watch.pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid = ANY($1)`, backends).Scan(&cut); err != nil {
		d.tl.Add("harness", 0, "pg_terminate_backend %s failed: %v", whose, err)
		return
	}
	d.tl.Add("harness", 0, "pg_terminate_backend on %d database connection(s) %s", cut, whose)
}

func (d *consumerDriver) kill(p *Proc, format string, args ...any) {
	d.tl.Add("harness", 0, "SIGKILL %s "+format, append([]any{p.Label()}, args...)...)
	at := d.tl.Since()
	d.fleet.Kill(p)
	d.interrupted(p, at, "killed")
}

func (d *consumerDriver) interrupted(p *Proc, at time.Duration, why string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.interruptions = append(d.interruptions, Interruption{Proc: p, From: at, To: at, Why: why})
}

// publish publishes a committed event as the round's faults say.
func (d *consumerDriver) publish(c Committed) error {
	agg := c.Record.AggregateID
	d.mu.Lock()
	if h, ok := d.held[agg]; ok {
		delete(d.held, agg)
		d.mu.Unlock()
		return d.overtake(c, h)
	}
	d.published++
	kind, ok := d.due(atPublish, d.published, func(k FaultKind) bool {
		return (k != Reorder && k != Gap) || c.Record.Type == domain.TypeOrderAccepted
	})
	if ok && (kind == Reorder || kind == Gap) {
		d.held[agg] = heldEvent{c: c, late: kind == Gap}
		d.inject = append(d.inject, d.amendment(c))
		d.mu.Unlock()
		d.tl.Add("relay", 0, "holds %s (%s#%d) back: its order's amendment goes first", c.EventID, agg, c.Record.Sequence)
		return nil
	}
	d.mu.Unlock()
	if err := d.pub.event(c, ""); err != nil || !ok {
		return err
	}
	switch kind {
	case PublishedTwice:
		d.active.Add(1)
		time.AfterFunc(time.Second, func() {
			defer d.active.Add(-1)
			d.pub.event(c, ", again: the relay died after the send, before SENT, and sent it again")
		})
	case Poison:
		return d.unreadable(agg)
	case UnknownVersion:
		return d.unknownContract()
	}
	return nil
}

// unreadable publishes the poison round's records: a value that is no
// event among agg's records, then two acceptances of orders of their own
// whose totals no consumer can bill, an amount with three digits after
// the point in euros and a currency the contract does not define.
func (d *consumerDriver) unreadable(agg string) error {
	n := d.published
	if err := d.pub.planned(PlannedPoison, fmt.Sprintf("x-poison-%d", n), agg, domain.TypeOrderAmended, "1",
		[]byte(fmt.Sprintf(`{"orderId":%q,"sequence":`, agg))); err != nil {
		return err
	}
	for _, r := range []struct{ what, id, amount, currency string }{
		{PlannedAmount, "x-amount", "12.345", "EUR"},
		{PlannedCurrency, "x-currency", "10.00", "GBP"},
	} {
		order := fmt.Sprintf("o-%s-%d", r.id[2:], n)
		if err := d.pub.planned(r.what, fmt.Sprintf("%s-%d", r.id, n), order, domain.TypeOrderAccepted, "1", []byte(fmt.Sprintf(
			`{"orderId":%q,"sequence":1,"total":{"amount":%q,"currency":%q},"acceptedAt":"2026-03-01T10:00:00Z"}`, order, r.amount, r.currency))); err != nil {
			return err
		}
	}
	return nil
}

// unknownContract publishes the unknown-version round's records, each of
// an order of its own: an OrderAccepted of version 3, and an event type
// this contract does not define (OrderRefunded, version 1) with an
// amount, which a consumer that dispatches on the value's fields could
// take for an amendment.
func (d *consumerDriver) unknownContract() error {
	n := d.published
	order := fmt.Sprintf("o-future-%d", n)
	if err := d.pub.planned(PlannedVersion, fmt.Sprintf("x-version-%d", n), order, domain.TypeOrderAccepted, "3",
		[]byte(fmt.Sprintf(`{"orderId":%q,"sequence":1,"total":{"amount":"42.00","currency":"EUR"},"acceptedAt":"2030-01-01T00:00:00Z","priceModel":"subscription"}`, order))); err != nil {
		return err
	}
	order = fmt.Sprintf("o-refund-%d", n)
	return d.pub.planned(PlannedType, fmt.Sprintf("x-type-%d", n), order, "OrderRefunded", "1",
		[]byte(fmt.Sprintf(`{"orderId":%q,"sequence":1,"amount":{"amount":"5.00","currency":"EUR"},"refundedAt":"2026-03-01T10:00:00Z"}`, order)))
}

// overtake publishes c, the event that overtakes h, and then h: at once
// (reorder), or GapDelay later (gap).
func (d *consumerDriver) overtake(c Committed, h heldEvent) error {
	if err := d.pub.event(c, fmt.Sprintf(", before %s, which the relay holds back", h.c.EventID)); err != nil {
		return err
	}
	if !h.late {
		return d.pub.event(h.c, fmt.Sprintf(", after %s", c.EventID))
	}
	d.active.Add(1)
	time.AfterFunc(GapDelay, func() {
		defer d.active.Add(-1)
		d.pub.event(h.c, fmt.Sprintf(", %s late, after %s", GapDelay, c.EventID))
	})
	return nil
}

// amendment is the command the round injects after an acceptance it
// holds back: an amendment of the same order, in its currency.
func (d *consumerDriver) amendment(c Committed) orders.Command {
	currency := "EUR"
	if e, err := domain.Decode(c.Record); err == nil {
		currency = string(e.(domain.OrderAccepted).Total.Currency)
	}
	return orders.Command{Kind: orders.Amend, OrderID: c.Record.AggregateID, Amount: money(d.rng.IntN(10), 1+d.rng.IntN(99), currency), Text: "overtakes"}
}

// injected returns the commands the round injects now, and forgets them.
func (d *consumerDriver) injected() []orders.Command {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.inject
	d.inject = nil
	return out
}

// release publishes what the relay still holds back: the round is ending.
func (d *consumerDriver) release() {
	d.mu.Lock()
	held := d.held
	d.held = map[string]heldEvent{}
	d.mu.Unlock()
	for _, agg := range slices.Sorted(maps.Keys(held)) {
		d.pub.event(held[agg].c, " (held back; the round ends)")
	}
}
