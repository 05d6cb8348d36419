package verify

import (
	"hash/crc32"
	"strings"
	"testing"
	"time"

	"outboxlab/billing"
	"outboxlab/domain"
	"outboxlab/outbox"
	"outboxlab/sim/check"
	"outboxlab/variant"
)

// story is a hand-made round: o-1 placed (e-1) and amended (e-2), and
// whatever a case does to what the broker stored and the harness did.
type story struct {
	e     Evidence
	procs map[string]*Proc
	n     int
}

func newStory(t *testing.T) *story {
	t.Helper()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o1, placed, err := domain.AcceptOrder("o-1", domain.MustMoney("10.00", "EUR"), now)
	if err != nil {
		t.Fatal(err)
	}
	o2, amended, err := o1.Amend(domain.MustMoney("2.50", "EUR"), "gift wrap", now)
	if err != nil {
		t.Fatal(err)
	}
	s := &story{procs: map[string]*Proc{}}
	for i, ev := range []domain.Event{placed, amended} {
		rec, err := domain.Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		s.e.Committed = append(s.e.Committed, Committed{EventID: []string{"e-1", "e-2"}[i], Record: rec, At: time.Duration(i+1) * 10 * time.Millisecond})
	}
	s.e.Orders = []domain.Order{o2}
	s.e.Changes = []check.Change{{OrderID: "o-1", Sequence: 1, Kind: billing.Invoice, Amount: o1.Total},
		{OrderID: "o-1", Sequence: 2, Kind: billing.Line, Amount: domain.MustMoney("2.50", "EUR")}}
	s.e.Lease, s.e.Instances, s.e.Quiesced = 2*time.Second, 2, true
	return s
}

func (s *story) proc(label string) *Proc {
	if p, ok := s.procs[label]; ok {
		return p
	}
	name, gen, _ := strings.Cut(label, "/")
	p := &Proc{Instance: name, Gen: int(gen[0] - '0'), PID: 100 + len(s.procs)}
	s.procs[label] = p
	return p
}

// store has from's produce of id stored at the time at, in the partition
// Kafka's default partitioner puts its key.
func (s *story) store(from, id string, at time.Duration, edit ...func(*SentRecord)) *Produce {
	c, _ := s.committed(id)
	rec := SentRecord{Key: c.Record.AggregateID, EventID: id, HasID: true, Value: []byte(c.Record.Payload)}
	rec.Partition = int32(Murmur2.Partition([]byte(rec.Key), Partitions))
	for _, e := range edit {
		e(&rec)
	}
	s.n++
	p := &Produce{N: s.n, Sender: s.proc(from), Arrived: at, Acks: -1, Records: []SentRecord{rec}, Answered: at,
		Results: map[int32]partResult{rec.Partition: {}}}
	s.e.Produces = append(s.e.Produces, p)
	s.e.Log = append(s.e.Log, &Stored{Partition: rec.Partition, Offset: int64(len(s.e.Log)), At: at, Record: rec, Produce: p})
	return p
}

func (s *story) committed(id string) (Committed, bool) {
	for _, c := range s.e.Committed {
		if c.EventID == id {
			return c, true
		}
	}
	return Committed{Record: domain.Record{AggregateID: "o-1", Payload: "{}"}}, false
}

func (s *story) interrupt(label string, from, to time.Duration) {
	s.e.Interruptions = append(s.e.Interruptions, Interruption{Proc: s.proc(label), From: from, To: to, Why: "test"})
}

// change has writer commit a change of id's status at the time at, the
// lease before and after running until oldUntil and newUntil (0: none).
func (s *story) change(writer, id, old, new string, at, oldUntil, newUntil time.Duration) {
	var w *Proc
	if writer != "" {
		w = s.proc(writer)
	}
	s.e.History = append(s.e.History, StatusChange{EventID: id, Old: old, New: new, At: at, Writer: w, OldUntil: oldUntil, NewUntil: newUntil})
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// TestTheJudgeFindsEachBrokenRound builds, for every verdict the judge
// gives, the round that earns it, beside the clean round and the
// interruptions that excuse a second copy.
func TestTheJudgeFindsEachBrokenRound(t *testing.T) {
	for _, tc := range []struct {
		name string
		play func(s *story)
		want variant.Outcome
		say  string
	}{
		{"clean", func(s *story) { s.store("relay-1/1", "e-1", ms(15)); s.store("relay-1/1", "e-2", ms(25)) }, variant.OK, ""},
		{"a row never sent and gone", func(s *story) { s.store("relay-1/1", "e-1", ms(15)) }, variant.Lost, "billing never applied it"},
		{"a row left IN_FLIGHT", func(s *story) {
			s.store("relay-1/1", "e-1", ms(15))
			c, _ := s.committed("e-2")
			s.e.Unsent = []outbox.Message{{ID: "e-2", Event: c.Record, Status: outbox.InFlight, LeaseOwner: "relay-1"}}
		}, variant.Stuck, "IN_FLIGHT"},
		{"a row given up under transient faults", func(s *story) {
			s.store("relay-1/1", "e-1", ms(15))
			c, _ := s.committed("e-2")
			s.e.Unsent = []outbox.Message{{ID: "e-2", Event: c.Record, Status: outbox.DeadLetter}}
		}, variant.GaveUp, "dead-lettered"},
		{"two live senders", func(s *story) {
			s.store("relay-1/1", "e-1", ms(15))
			s.store("relay-2/1", "e-1", ms(16))
			s.store("relay-1/1", "e-2", ms(25))
		}, variant.Unsafe, "two live instances held one row"},
		{"a second copy a lease after the commit is not judged", func(s *story) {
			s.store("relay-1/1", "e-1", ms(15)) // relay-1 was slow to mark it: its lease ran out
			s.store("relay-2/1", "e-1", ms(10)+2*time.Second)
			s.store("relay-1/1", "e-2", ms(25))
		}, variant.OK, ""},
		{"the first sender was killed", func(s *story) {
			s.store("relay-1/1", "e-1", ms(15))
			s.interrupt("relay-1/1", ms(15), ms(15))
			s.store("relay-2/1", "e-1", ms(40))
			s.store("relay-2/1", "e-2", ms(45))
		}, variant.OK, ""},
		{"the first sender was killed before the service saw the commit", func(s *story) {
			s.store("relay-1/1", "e-1", ms(9)) // the service's clock read after its commit returned
			s.interrupt("relay-1/1", ms(9), ms(9))
			s.store("relay-1/2", "e-1", ms(190))
			s.store("relay-1/2", "e-2", ms(200))
		}, variant.OK, ""},
		{"the second sender was stopped past its lease", func(s *story) {
			s.interrupt("relay-2/1", ms(12), ms(12)+3*time.Second)
			s.store("relay-1/1", "e-1", ms(15))
			s.store("relay-2/1", "e-1", 3*time.Second)
			s.store("relay-1/1", "e-2", ms(25))
		}, variant.OK, ""},
		{"a request held while its sender was stopped counts when the broker got it", func(s *story) {
			s.store("relay-2/1", "e-1", ms(1500))
			s.store("relay-1/1", "e-1", 3*time.Second).Arrived = ms(15) // sent at 15 ms, stopped, stored at 3 s
			s.store("relay-2/1", "e-2", ms(1600))
		}, variant.OK, ""},
		{"a stop within the lease excuses nothing", func(s *story) {
			s.interrupt("relay-2/1", ms(12), ms(1012))
			s.store("relay-1/1", "e-1", ms(15))
			s.store("relay-2/1", "e-1", ms(1012))
			s.store("relay-1/1", "e-2", ms(25))
		}, variant.Unsafe, "relay-2/1"},
		{"a restart of another instance excuses nothing", func(s *story) {
			s.interrupt("relay-1/1", ms(12), ms(12)) // relay-1/1 is killed; relay-1/2 sends
			s.store("relay-1/2", "e-1", ms(15))
			s.store("relay-2/1", "e-1", ms(900))
			s.store("relay-1/2", "e-2", ms(25))
		}, variant.Unsafe, "relay-1/2"},
		{"the first sender's produce timed out", func(s *story) {
			s.store("relay-1/1", "e-1", ms(15)).Withheld = true
			s.store("relay-2/1", "e-1", ms(2100))
			s.store("relay-2/1", "e-2", ms(2200))
		}, variant.OK, ""},
		{"an aggregate's events swapped", func(s *story) { s.store("relay-1/1", "e-2", ms(15)); s.store("relay-1/1", "e-1", ms(25)) },
			variant.OutOfOrder, "a consumer reads #2 first"},
		{"an aggregate in two partitions", func(s *story) {
			s.store("relay-1/1", "e-1", ms(15))
			s.store("relay-1/1", "e-2", ms(25), func(r *SentRecord) { r.Partition = (r.Partition + 1) % Partitions })
		}, variant.OutOfOrder, "partitions independently"},
		{"an aggregate in the partition librdkafka's default puts it", func(s *story) {
			crc := func(r *SentRecord) { r.Partition = int32(crc32.ChecksumIEEE([]byte(r.Key)) % Partitions) }
			s.store("relay-1/1", "e-1", ms(15), crc)
			s.store("relay-1/1", "e-2", ms(25), crc)
		}, variant.Mismatch, "placed by librdkafka's default partitioner (consistent_random: CRC32"},
		{"an aggregate in a partition no client's default puts it", func(s *story) {
			other := func(r *SentRecord) {
				for r.Partition == int32(Murmur2.Partition([]byte(r.Key), Partitions)) || r.Partition == int32(crc32.ChecksumIEEE([]byte(r.Key))%Partitions) {
					r.Partition = (r.Partition + 1) % Partitions
				}
			}
			s.store("relay-1/1", "e-1", ms(15), other)
			s.store("relay-1/1", "e-2", ms(25), other)
		}, variant.Mismatch, "placed by a partitioner that is not Kafka's default"},
		{"a record no row explains", func(s *story) {
			s.store("relay-1/1", "e-1", ms(15))
			s.store("relay-1/1", "e-2", ms(25))
			s.store("relay-1/1", "e-9", ms(26))
		}, variant.Phantom, `"e-9"`},
		{"a record without the id header", func(s *story) {
			s.store("relay-1/1", "e-1", ms(15))
			s.store("relay-1/1", "e-2", ms(25), func(r *SentRecord) { r.HasID = false })
		}, variant.Lost, "no event id header"}, // the event never reached billing as itself
		{"a record keyed by something else", func(s *story) {
			s.store("relay-1/1", "e-1", ms(15), func(r *SentRecord) { r.Key = "order" })
			s.store("relay-1/1", "e-2", ms(25), func(r *SentRecord) { r.Key = "order" })
		}, variant.Mismatch, `with key "order"`},
		{"a value other than the row's payload", func(s *story) {
			s.store("relay-1/1", "e-1", ms(15), func(r *SentRecord) {
				r.Value = []byte(strings.Replace(string(r.Value), "10.00", "1.00", 1))
			})
			s.store("relay-1/1", "e-2", ms(25))
		}, variant.Mismatch, "billed invoice +1.00 EUR, the change was invoice +10.00 EUR"},
		{"a row written after SENT", func(s *story) {
			s.store("relay-1/1", "e-1", ms(15))
			s.store("relay-1/1", "e-2", ms(25))
			s.e.History = []StatusChange{{EventID: "e-1", Old: "PENDING", New: "IN_FLIGHT"}, {EventID: "e-1", Old: "IN_FLIGHT", New: "SENT"},
				{EventID: "e-1", Old: "SENT", New: "FAILED", Writer: s.proc("relay-1/1"), At: ms(30)}}
		}, variant.Unsafe, "(SENT → FAILED) by relay-1/1 (pid 100) at 0.030s"},
		{"a live claim handed back by another live instance", func(s *story) {
			s.change("relay-2/1", "e-1", "PENDING", "IN_FLIGHT", ms(12), 0, ms(2012))
			s.change("relay-1/1", "e-1", "IN_FLIGHT", "PENDING", ms(500), ms(2012), 0)
			s.store("relay-2/1", "e-1", ms(600))
			s.store("relay-2/1", "e-2", ms(700))
		}, variant.Unsafe, "relay-1/1 (pid 101) changed it (IN_FLIGHT → PENDING) at 0.500s, 1.512s before that lease ran out, with relay-2/1 alive"},
		{"a live claim taken over by another live instance", func(s *story) {
			s.change("relay-2/1", "e-1", "PENDING", "IN_FLIGHT", ms(12), 0, ms(2012))
			s.change("relay-1/1", "e-1", "IN_FLIGHT", "IN_FLIGHT", ms(500), ms(2012), ms(2500))
			s.store("relay-1/1", "e-1", ms(600))
			s.store("relay-1/1", "e-2", ms(700))
		}, variant.Unsafe, "took away another live instance's claim"},
		{"a claim released by the successor of its killed owner", func(s *story) {
			s.change("relay-1/1", "e-1", "PENDING", "IN_FLIGHT", ms(12), 0, ms(2012))
			s.e.Ended = map[*Proc]time.Duration{s.proc("relay-1/1"): ms(100)}
			s.change("relay-1/2", "e-1", "IN_FLIGHT", "PENDING", ms(200), ms(2012), 0)
			s.store("relay-1/2", "e-1", ms(300))
			s.store("relay-1/2", "e-2", ms(400))
		}, variant.OK, ""},
		{"a claim taken over once its lease ran out", func(s *story) {
			s.change("relay-1/1", "e-1", "PENDING", "IN_FLIGHT", ms(12), 0, ms(2012))
			s.change("relay-2/1", "e-1", "IN_FLIGHT", "IN_FLIGHT", ms(2100), ms(2012), ms(4100))
			s.store("relay-2/1", "e-1", ms(2200))
			s.store("relay-2/1", "e-2", ms(2300))
		}, variant.OK, ""},
		{"a claim changed by a connection no relay process held", func(s *story) {
			s.change("relay-1/1", "e-1", "PENDING", "IN_FLIGHT", ms(12), 0, ms(2012))
			s.change("", "e-1", "IN_FLIGHT", "PENDING", ms(500), ms(2012), 0)
			s.store("relay-1/1", "e-1", ms(600))
			s.store("relay-1/1", "e-2", ms(700))
		}, variant.OK, ""},
		{"an instance that never reconnected", func(s *story) {
			s.store("relay-1/1", "e-1", ms(15))
			c, _ := s.committed("e-2")
			s.e.Unsent = []outbox.Message{{ID: "e-2", Event: c.Record, Status: outbox.Pending}}
			s.e.Quiesced = false
			s.e.CutOff = []CutOff{{Proc: s.proc("relay-1/1"), Since: ms(300), Lines: []string{"claim: conn closed (pause 2s)"}}}
		}, variant.Stuck, "relay-1/1 (pid 100) held no database connection from 0.300s"},
		{"a row sent again after each lease it waited", func(s *story) {
			for i := range 5 { // 2 × (1 + 2 leases waited) = 6 allowed
				s.store("relay-1/1", "e-1", ms(10)+time.Duration(i)*time.Second)
			}
			s.store("relay-1/1", "e-2", ms(25)+4*time.Second)
		}, variant.OK, ""},
		{"a row sent more often than any fault explains", func(s *story) {
			for i := range 5 {
				s.store("relay-1/1", "e-1", ms(15+i))
			}
			s.store("relay-1/1", "e-2", ms(25))
		}, variant.Storm, "published 5 times"},
		{"requests hammered at a broker that is down", func(s *story) {
			s.store("relay-1/1", "e-1", ms(15))
			s.e.Outages = []Window{{ms(20), ms(1020)}}
			for i := range 200 {
				p := s.store("relay-1/1", "e-2", ms(20+i))
				p.Results = map[int32]partResult{0: {Code: 19}}
				s.e.Log = s.e.Log[:1]
			}
			s.store("relay-1/1", "e-2", ms(1100))
		}, variant.Storm, "refused 200 sends"},
		{"a produce without acknowledgement", func(s *story) {
			s.store("relay-1/1", "e-1", ms(15))
			s.store("relay-1/1", "e-2", ms(25)).Acks = 0
		}, variant.Lost, "acks=0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStory(t)
			tc.play(s)
			vs, err := Judge(s.e)
			if err != nil {
				t.Fatal(err)
			}
			text := ""
			for _, v := range vs {
				text += v.String() + "\n"
			}
			if check.Worst(vs) != tc.want || !strings.Contains(text, tc.say) {
				t.Errorf("verdict %s, want %s saying %q:\n%s", check.Worst(vs), tc.want, tc.say, text)
			}
		})
	}
}
