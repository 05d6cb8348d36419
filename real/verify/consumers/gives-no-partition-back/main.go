// Command gives-no-partition-back is the reference consumer with one
// change, which the contract allows: its assignor (a consumer chooses
// its assignment strategy) rotates the partitions by the number of
// members its group's leader has ever seen, so that after an instance
// joined and left, every partition goes to another instance than the one
// that held it before. Nothing of billing is wrong; but the rebalance
// round, which wants a partition back at an instance that held it, cannot
// make its fault. verify: NOT MADE at rebalance, never OK (a round that
// tested nothing is no pass).
package main

import (
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"outboxlab/real/verify/consumers/consumer"
)

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		// THE CHOICE: an assignor that gives no partition back.
		c.Client = append(c.Client, kgo.Balancers(&rotating{seen: map[string]bool{}}))
	})
}

// rotating is an eager assignor: partition p goes to member (p + the
// members ever seen) mod the members now, in the order of their ids.
type rotating struct{ seen map[string]bool }

func (*rotating) ProtocolName() string { return "rotating" }
func (*rotating) IsCooperative() bool  { return false }

func (*rotating) JoinGroupMetadata(interests []string, _ map[string][]int32, generation int32) []byte {
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Version = 3
	meta.Topics = interests
	meta.Generation = generation
	return meta.AppendTo(nil)
}

func (*rotating) ParseSyncAssignment(assignment []byte) (map[string][]int32, error) {
	return kgo.ParseConsumerSyncAssignment(assignment)
}

func (r *rotating) MemberBalancer(members []kmsg.JoinGroupResponseMember) (kgo.GroupMemberBalancer, map[string]struct{}, error) {
	b, err := kgo.NewConsumerBalancer(r, members)
	if err != nil {
		return nil, nil, err
	}
	return b, b.MemberTopics(), nil
}

func (r *rotating) Balance(b *kgo.ConsumerBalancer, topics map[string]int32) kgo.IntoSyncAssignment {
	members := slices.Clone(b.Members())
	slices.SortFunc(members, func(x, y kmsg.JoinGroupResponseMember) int { return strings.Compare(x.MemberID, y.MemberID) })
	for _, m := range members {
		r.seen[m.MemberID] = true
	}
	plan := b.NewPlan()
	for topic := range b.MemberTopics() {
		for p := range topics[topic] {
			m := members[(int(p)+len(r.seen))%len(members)]
			plan.AddPartition(&m, topic, p)
		}
	}
	return plan
}
