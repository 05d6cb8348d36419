package store

import "sort"

// Index declares a partial index over a table: the rows whose value satisfies
// Where, visited in key order by Tx.ScanIndex.
type Index struct {
	Name  string
	Where func(value any) bool
}

// orderedSet is the membership of one index: a set of keys that can be
// visited in ascending order. Keys that are appended in ascending order (the
// common case: sequence numbers) cost O(1) to add; removed keys are left as
// tombstones in the sorted slice and compacted once they outnumber the
// members, so a scan skips each tombstone at most once on average.
type orderedSet struct {
	sorted []string            // ascending; may hold removed keys
	member map[string]struct{} // the keys that are really in the set
	head   int                 // sorted[:head] are all removed
}

func newOrderedSet() *orderedSet {
	return &orderedSet{member: make(map[string]struct{})}
}

func (s *orderedSet) len() int { return len(s.member) }

func (s *orderedSet) add(key string) {
	if _, ok := s.member[key]; ok {
		return
	}
	s.member[key] = struct{}{}
	n := len(s.sorted)
	if n == 0 || key > s.sorted[n-1] {
		s.sorted = append(s.sorted, key)
		return
	}
	i := sort.SearchStrings(s.sorted, key)
	if i < len(s.sorted) && s.sorted[i] == key {
		if i < s.head {
			s.head = i
		}
		return // a tombstone comes back to life
	}
	s.sorted = append(s.sorted, "")
	copy(s.sorted[i+1:], s.sorted[i:])
	s.sorted[i] = key
	if i < s.head {
		s.head = i
	}
}

func (s *orderedSet) remove(key string) {
	if _, ok := s.member[key]; !ok {
		return
	}
	delete(s.member, key)
	if dead := len(s.sorted) - s.head - len(s.member); dead > 64 && dead > len(s.member) {
		s.compact()
	}
}

func (s *orderedSet) compact() {
	live := make([]string, 0, len(s.member))
	for _, k := range s.sorted[s.head:] {
		if _, ok := s.member[k]; ok {
			live = append(live, k)
		}
	}
	s.sorted, s.head = live, 0
}

// ascend calls fn for every member in ascending order until fn returns false.
func (s *orderedSet) ascend(fn func(key string) bool) {
	for i := s.head; i < len(s.sorted); i++ {
		k := s.sorted[i]
		if _, ok := s.member[k]; !ok {
			if i == s.head {
				s.head++ // leading tombstones are never visited again
			}
			continue
		}
		if !fn(k) {
			return
		}
	}
}
