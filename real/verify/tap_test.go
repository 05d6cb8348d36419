package verify

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestTheTapReadsProducesAndActsAtEachMoment produces through franz-go (a
// real Kafka client, compressing its batches) to kfake behind the tap:
// the tap reads every record with its key, partition and id header, asks
// the hook at each moment in order, and a withheld answer makes the
// client retry a batch the broker already stored, which the log keeps
// once.
func TestTheTapReadsProducesAndActsAtEachMoment(t *testing.T) {
	tl := NewTimeline()
	tap := NewTap(tl, "event-id")
	var mu sync.Mutex
	var moments []string
	tap.SetHook(func(p *Produce, m Moment) Verdict {
		mu.Lock()
		moments = append(moments, fmt.Sprintf("#%d:%d", p.N, m))
		mu.Unlock()
		if p.N == 2 && m == Answering {
			return Verdict{Withhold: true, After: 200 * time.Millisecond}
		}
		return Pass
	}, nil)
	client := tappedClient(t, tap, kgo.ProducerBatchCompression(kgo.ZstdCompression()), kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, key := range []string{"o-1", "o-2", "o-1"} {
		rec := &kgo.Record{Key: []byte(key), Value: []byte(`{"n":1}`), Headers: []kgo.RecordHeader{{Key: "event-id", Value: []byte(fmt.Sprintf("e-%d", i+1))}}}
		if err := client.ProduceSync(ctx, rec).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	var stored []string
	for _, s := range tap.Log() {
		stored = append(stored, s.Record.EventID+" "+s.Record.Key)
	}
	if got := strings.Join(stored, ", "); got != "e-1 o-1, e-2 o-2, e-3 o-1" {
		t.Errorf("log %q, want each record once with its key", got)
	}
	produces := tap.Produces()
	if len(produces) != 4 || !produces[1].Withheld || produces[2].Records[0].EventID != "e-2" {
		t.Errorf("%d produce requests (want 4: the retry of e-2 after its withheld answer), second withheld: %v", len(produces), len(produces) > 1 && produces[1].Withheld)
	}
	if p := produces[0]; p.Records[0].Partition != produces[3].Records[0].Partition || p.Acks == 0 {
		t.Errorf("o-1's records in partitions %d and %d (want one), acks %d", p.Records[0].Partition, produces[3].Records[0].Partition, p.Acks)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(moments[:3], " "); got != "#1:0 #1:1 #1:2" {
		t.Errorf("moments of produce #1: %s, want arrived, answering, answered", got)
	}
}

// TestAWithheldRequestSilencesItsConnection: once the tap withholds a
// produce request, the requests a client pipelined behind it on the same
// connection never reach the broker, and nothing is answered, until the
// connection closes, as on a connection that timed out. When the tap let
// them through, the broker answered them around the withheld one, and the
// Java client failed its I/O thread on the correlation ids and hung
// (Debezium's relay, STUCK at publish-timeout-dropped).
func TestAWithheldRequestSilencesItsConnection(t *testing.T) {
	tl := NewTimeline()
	tap := NewTap(tl, "event-id")
	const timeout = 400 * time.Millisecond
	tap.SetHook(func(p *Produce, m Moment) Verdict {
		if p.N == 2 && m == Arrived {
			return Verdict{Withhold: true, After: timeout}
		}
		return Pass
	}, nil)
	client := tappedClient(t, tap, kgo.ProducerLinger(0), kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(5))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var failed error
	var mu sync.Mutex
	for i := range 100 { // a record every 2 ms: many requests, pipelined
		time.Sleep(2 * time.Millisecond)
		wg.Add(1)
		rec := &kgo.Record{Key: []byte(fmt.Sprintf("o-%d", i%7)), Value: []byte(`{}`), Headers: []kgo.RecordHeader{{Key: "event-id", Value: []byte(fmt.Sprintf("e-%d", i+1))}}}
		client.Produce(ctx, rec, func(_ *kgo.Record, err error) {
			defer wg.Done()
			if err != nil {
				mu.Lock()
				failed = err
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if failed != nil {
		t.Fatal(failed)
	}
	produces := tap.Produces()
	if len(produces) < 3 {
		t.Fatalf("%d produce requests: want the client to go on after the withheld #2", len(produces))
	}
	if gap := produces[2].Arrived - produces[1].Arrived; gap < timeout*3/4 {
		t.Errorf("produce #3 reached the broker %s after the withheld #2: within its connection's %s of silence", gap, timeout)
	}
	if n := len(tap.Log()); n != 100 {
		t.Errorf("the broker holds %d records, want each of the 100 once", n)
	}
}

// tappedClient starts kfake behind tap and returns a franz-go client of
// it with opts; both end with the test.
func tappedClient(t *testing.T, tap *Tap, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(Partitions, Topic), kfake.ListenFn(tap.Listen))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	client, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.DefaultProduceTopic(Topic)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return client
}

// TestARefusedProduceReadsRefused: a request the broker refuses (an
// outage) is marked refused in the timeline, with the events it carried,
// so that a row's excerpt shows its refused tries.
func TestARefusedProduceReadsRefused(t *testing.T) {
	tl := NewTimeline()
	tap := NewTap(tl, "event-id")
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(Partitions, Topic), kfake.ListenFn(tap.Listen))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Err: kerr.NotEnoughReplicas, Count: 1})
	client, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.DefaultProduceTopic(Topic),
		kgo.RetryBackoffFn(func(int) time.Duration { return 10 * time.Millisecond }), kgo.MetadataMinAge(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec := &kgo.Record{Key: []byte("o-1"), Value: []byte(`{}`), Headers: []kgo.RecordHeader{{Key: "event-id", Value: []byte("e-1")}}}
	if err := client.ProduceSync(ctx, rec).FirstErr(); err != nil {
		t.Fatal(err)
	}
	lines := fmt.Sprint(tl.Events())
	if !strings.Contains(lines, "produce #1 from an unknown process refused: e-1 refused at p") || !strings.Contains(lines, "(NOT_ENOUGH_REPLICAS)") || !strings.Contains(lines, "produce #2 from an unknown process handled: e-1 stored at p") {
		t.Errorf("the timeline:\n%s", lines)
	}
}
