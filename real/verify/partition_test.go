package verify

import (
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestTheHarnessPartitionsAsKafkasClientsDo holds the judge's murmur2 to
// franz-go's default partitioner (Kafka's, as the Java client's) and its
// CRC32 to franz-go's copy of librdkafka's consistent partitioner, over
// keys of every length modulo four and every partition count up to 12.
func TestTheHarnessPartitionsAsKafkasClientsDo(t *testing.T) {
	kafka := kgo.StickyKeyPartitioner(nil).ForTopic(Topic)
	rdkafka := kgo.StickyKeyPartitioner(kgo.SaramaHasher(crc32.ChecksumIEEE)).ForTopic(Topic)
	differ := 0
	for i := range 200 {
		key := []byte(fmt.Sprintf("o-%d%s", i, "xyz"[:i%4]))
		for n := 1; n <= 12; n++ {
			rec := &kgo.Record{Key: key}
			if got, want := Murmur2.Partition(key, n), kafka.Partition(rec, n); got != want {
				t.Fatalf("murmur2 of %q among %d: partition %d, franz-go's default %d", key, n, got, want)
			}
			if got, want := otherPartitioners[0].Partition(key, n), rdkafka.Partition(rec, n); got != want {
				t.Fatalf("CRC32 of %q among %d: partition %d, librdkafka's (as franz-go copies it) %d", key, n, got, want)
			}
			if n == Partitions && Murmur2.Partition(key, n) != otherPartitioners[0].Partition(key, n) {
				differ++
			}
		}
	}
	if differ < 100 {
		t.Errorf("murmur2 and CRC32 put only %d of 200 keys in different partitions of %d: the check could hardly tell them apart", differ, Partitions)
	}
}
