package store

import "sort"

// Index declares a partial index over a table: the rows whose value satisfies
// Where, visited in key order by Tx.ScanIndex.
type Index struct {
	Name  string
	Where func(value any) bool
}

// orderedSet is the membership of one index: the members' keys in order,
// each with its row's committed value, kept in blocks of at most blockMax
// members, so that adding or removing a key anywhere costs O(log n +
// blockMax) and visiting the members from any key on costs O(log n) to
// start and O(1) per member. Keys appended in ascending order (sequence
// numbers, the common case) land at the end of the last block. With the
// values at hand a scan never looks into the table's rows, which in a
// large table are far apart in memory.
type orderedSet struct {
	blocks [][]member // each sorted and non-empty; all keys of a block < those of the next
	n      int
	spare  []member // the last block that emptied, for the next one needed
}

// member is one row in an index.
type member struct {
	key   string
	value any
}

const blockMax = 512

func newOrderedSet() *orderedSet { return &orderedSet{} }

func (s *orderedSet) len() int { return s.n }

// find returns the block and position where key is or would be inserted.
func (s *orderedSet) find(key string) (bi, i int, found bool) {
	bi = sort.Search(len(s.blocks), func(b int) bool {
		blk := s.blocks[b]
		return blk[len(blk)-1].key >= key
	})
	if bi == len(s.blocks) {
		return bi, 0, false
	}
	blk := s.blocks[bi]
	i = sort.Search(len(blk), func(j int) bool { return blk[j].key >= key })
	return bi, i, i < len(blk) && blk[i].key == key
}

// add makes key a member with value, or updates a member's value.
func (s *orderedSet) add(key string, value any) {
	bi, i, found := s.find(key)
	if found {
		s.blocks[bi][i].value = value
		return
	}
	s.n++
	if bi == len(s.blocks) { // greater than every key: append to the last block
		if bi == 0 || len(s.blocks[bi-1]) >= blockMax {
			s.blocks = append(s.blocks, s.newBlock())
			bi++
		}
		s.blocks[bi-1] = append(s.blocks[bi-1], member{key, value})
		return
	}
	blk := append(s.blocks[bi], member{})
	copy(blk[i+1:], blk[i:])
	blk[i] = member{key, value}
	s.blocks[bi] = blk
	if len(blk) > blockMax { // split in two
		half := len(blk) / 2
		right := append(make([]member, 0, len(blk)-half), blk[half:]...)
		clear(blk[half:])
		s.blocks[bi] = blk[:half]
		s.blocks = append(s.blocks, nil)
		copy(s.blocks[bi+2:], s.blocks[bi+1:])
		s.blocks[bi+1] = right
	}
}

func (s *orderedSet) remove(key string) {
	bi, i, found := s.find(key)
	if !found {
		return
	}
	s.n--
	blk := s.blocks[bi]
	switch {
	case len(blk) == 1: // the block empties: drop it, keep its array
		blk[0] = member{}
		if cap(blk) > cap(s.spare) {
			s.spare = blk[:0]
		}
		copy(s.blocks[bi:], s.blocks[bi+1:])
		s.blocks[len(s.blocks)-1] = nil
		s.blocks = s.blocks[:len(s.blocks)-1]
	case i == 0: // the oldest key, the common case of a queue: O(1)
		blk[0] = member{}
		s.blocks[bi] = blk[1:]
	default:
		copy(blk[i:], blk[i+1:])
		blk[len(blk)-1] = member{}
		s.blocks[bi] = blk[:len(blk)-1]
	}
}

// newBlock returns an empty block: the spare one, or a small new one that
// grows as keys come. A queue that empties and fills again, as the unsent
// messages of a relay that keeps up do, reuses one block.
func (s *orderedSet) newBlock() []member {
	if blk := s.spare; blk != nil {
		s.spare = nil
		return blk
	}
	return make([]member, 0, 8)
}

// after appends to out up to n members greater than key (all members from
// the first if first is set), in ascending order.
func (s *orderedSet) after(key string, first bool, n int, out []member) []member {
	bi, i := 0, 0
	if !first {
		var found bool
		bi, i, found = s.find(key)
		if found {
			i++
		}
	}
	for ; bi < len(s.blocks) && n > 0; bi, i = bi+1, 0 {
		blk := s.blocks[bi][i:]
		take := min(n, len(blk))
		out = append(out, blk[:take]...)
		n -= take
	}
	return out
}
