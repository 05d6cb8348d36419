// Command crc32-partitioner is the reference relay with one change: its
// producer picks a record's partition as librdkafka does by default
// (consistent_random: CRC32 of the key), not as Kafka does (murmur2 of
// the key, contract rule 2). Each aggregate stays in one partition and in
// order, so nothing downstream of this relay alone looks wrong; but a Java
// or franz-go producer of the same keys writes them to other partitions,
// and a consumer reads the two in any order. verify: MISMATCH at every
// round, naming librdkafka's partitioner.
package main

import (
	"hash/crc32"

	"github.com/twmb/franz-go/pkg/kgo"

	"outboxlab/real/verify/relays/relay"
)

func main() {
	relay.Main(func(r *relay.Relay) {
		// MISTAKE: librdkafka's default partitioner, CRC32 of the key
		// (the last RecordPartitioner option wins).
		r.Producer = append(r.Producer, kgo.RecordPartitioner(kgo.StickyKeyPartitioner(kgo.SaramaHasher(crc32.ChecksumIEEE))))
	})
}
