package verify

import (
	"hash/crc32"
	"hash/fnv"
	"slices"

	"outboxlab/sim/check"
	"outboxlab/variant"
)

// Contract rule 2 asks for Kafka's default partitioner: the partition of a
// keyed record is murmur2 of its key, its sign bit cleared, modulo the
// topic's partitions (the Java client's and franz-go's default). A relay
// whose records all land in one partition per key but another one than
// murmur2's (librdkafka's default partitioner, CRC32) keeps its own order
// and breaks every other producer's: a Java or franz-go service producing
// the same keys puts them elsewhere, and a consumer reads the two
// partitions in any order.

// Partitioner is a way to pick a keyed record's partition.
type Partitioner struct {
	// Name says whose default it is, for a verdict.
	Name string
	// Partition returns the partition of key among n.
	Partition func(key []byte, n int) int
}

// Murmur2 is Kafka's default partitioner, the one the contract asks for.
var Murmur2 = Partitioner{"Kafka's default partitioner (murmur2 of the key: the Java client's, franz-go's, librdkafka's murmur2_random)",
	func(key []byte, n int) int { return int(murmur2(key)&0x7fffffff) % n }}

// otherPartitioners are the defaults of other clients, which a verdict
// names when every record of a round fits one of them.
var otherPartitioners = []Partitioner{
	{"librdkafka's default partitioner (consistent_random: CRC32 of the key; set partitioner=murmur2_random)",
		func(key []byte, n int) int { return int(crc32.ChecksumIEEE(key) % uint32(n)) }},
	{"Sarama's default partitioner (FNV-1a of the key)", func(key []byte, n int) int {
		h := fnv.New32a()
		h.Write(key)
		p := int32(h.Sum32()) % int32(n)
		return int(max(p, -p))
	}},
}

// murmur2 is Kafka's murmur2 (org.apache.kafka.common.utils.Utils), its
// unsigned shifts on uint32.
func murmur2(b []byte) uint32 {
	const (
		seed uint32 = 0x9747b28c
		m    uint32 = 0x5bd1e995
	)
	h := seed ^ uint32(len(b))
	for ; len(b) >= 4; b = b[4:] {
		k := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
		k *= m
		k ^= k >> 24
		k *= m
		h = h*m ^ k
	}
	switch len(b) {
	case 3:
		h ^= uint32(b[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(b[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(b[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}

// partitions finds the aggregates whose records are not where Kafka's
// default partitioner puts their key, one MISMATCH each, naming the
// partitioner that put every record of the round where it is, if one of
// the other clients' defaults did. A record keyed other than by its
// aggregate is envelopes' MISMATCH, and not judged again here.
func partitions(log []*Stored, byID map[string]Committed, n int) []check.Violation {
	var wrong []*Stored
	var all []SentRecord
	for _, s := range log {
		c, ok := byID[s.Record.EventID]
		if !ok || !s.Record.HasID || s.Record.Key != c.Record.AggregateID {
			continue
		}
		all = append(all, s.Record)
		if int(s.Partition) != Murmur2.Partition([]byte(s.Record.Key), n) {
			wrong = append(wrong, s)
		}
	}
	if len(wrong) == 0 {
		return nil
	}
	whose := "a partitioner that is not Kafka's default"
	for _, p := range otherPartitioners {
		if !slices.ContainsFunc(all, func(r SentRecord) bool { return int(r.Partition) != p.Partition([]byte(r.Key), n) }) {
			whose = p.Name
			break
		}
	}
	var vs []check.Violation
	said := map[string]bool{}
	for _, s := range wrong {
		key := s.Record.Key
		if said[key] {
			continue
		}
		said[key] = true
		vs = append(vs, check.Violation{Outcome: variant.Mismatch, AggregateID: key, Detail: english(
			"%s was stored at p%d/%d: %s puts key %s in partition %d of %d; these records were placed by %s. A producer of the same keys on Kafka's default (Java, franz-go) writes them to another partition than this relay, and a consumer reads the two partitions in any order",
			s.Record.EventID, s.Partition, s.Offset, Murmur2.Name, key, Murmur2.Partition([]byte(key), n), n, whose)})
	}
	return vs
}
