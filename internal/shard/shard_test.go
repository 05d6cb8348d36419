package shard_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"outboxlab/internal/shard"
	"outboxlab/lang"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		text string
		want shard.Shard
	}{
		{"1/1", shard.Shard{I: 1, N: 1}},
		{"2/3", shard.Shard{I: 2, N: 3}},
		{"3/3", shard.Shard{I: 3, N: 3}},
	} {
		got, err := shard.Parse(c.text)
		if err != nil || got != c.want || got.String() != c.text {
			t.Errorf("Parse(%q) = %v (%q), %v; want %v", c.text, got, got.String(), err, c.want)
		}
	}
	for _, text := range []string{"", "0/2", "3/2", "1/0", "-1/2", "1", "1/", "/2", "a/b", "1/2/3", "1-2"} {
		_, err := shard.Parse(text)
		var msg *lang.Error
		if !errors.As(err, &msg) {
			t.Errorf("Parse(%q): error %v, want a lang.Error", text, err)
			continue
		}
		for _, want := range []string{"--shard", "want I/N with 1 <= I <= N", "e.g. 1/2"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Parse(%q): %q does not say %q", text, err, want)
			}
		}
		if de := msg.Text.In(lang.German); !strings.Contains(de, "erwartet I/N") {
			t.Errorf("Parse(%q): German %q", text, de)
		}
	}
	if s := (shard.Shard{}).String(); s != "" {
		t.Errorf("the unsharded run prints %q, want \"\"", s)
	}
}

// owned returns the items of items that s owns.
func owned(s shard.Shard, items int) []int {
	var mine []int
	for k := range items {
		if s.Owns(k) {
			mine = append(mine, k)
		}
	}
	return mine
}

// TestOneRule: for every split, the shards own every item once; Count
// counts what Owns gives; ByCost with equal costs gives what Owns gives
// (the one rule: round the shards when the items cost the same).
func TestOneRule(t *testing.T) {
	for n := 1; n <= 5; n++ {
		for items := 0; items <= 23; items++ {
			equal := slices.Repeat([]int{7}, items)
			seen := make([]int, items)
			for i := 1; i <= n; i++ {
				s := shard.Shard{I: i, N: n}
				mine := owned(s, items)
				if s.Count(items) != len(mine) {
					t.Errorf("%v of %d items: Count %d, Owns %d", s, items, s.Count(items), len(mine))
				}
				if byCost := s.ByCost(equal); !slices.Equal(byCost, mine) {
					t.Errorf("%v of %d items of equal cost: ByCost %v, Owns %v", s, items, byCost, mine)
				}
				for _, k := range mine {
					seen[k]++
				}
			}
			for k, times := range seen {
				if times != 1 {
					t.Errorf("%d shards of %d items: item %d owned %d times", n, items, k, times)
				}
			}
		}
	}
	whole := shard.Shard{}
	if whole.Count(4) != 4 || !slices.Equal(owned(whole, 4), []int{0, 1, 2, 3}) || !slices.Equal(whole.ByCost([]int{1, 5, 2}), []int{0, 1, 2}) {
		t.Errorf("the unsharded run does not own every item")
	}
}

// TestByCost: the costliest item goes first, each to the shard with the
// least so far, the first of equals; the shards cost about as much.
func TestByCost(t *testing.T) {
	costs := []int{1, 4, 1, 4, 0, 4, 4, 1, 1}
	// 4 (item 1) to shard 1, 4 (3) to 2, 4 (5) to 1, 4 (6) to 2, then the
	// ones: 0 to 1, 2 to 2, 7 to 1, 8 to 2, and the 0 (item 4) to 1.
	for i, want := range [][]int{{0, 1, 4, 5, 7}, {2, 3, 6, 8}} {
		s := shard.Shard{I: i + 1, N: 2}
		if got := s.ByCost(costs); !slices.Equal(got, want) {
			t.Errorf("%v: ByCost %v, want %v", s, got, want)
		}
	}
}

type item struct {
	at   int
	name string
}

func TestMerge(t *testing.T) {
	position := func(it item) int { return it.at }
	parts := [][]item{{{4, "e"}, {1, "b"}}, {}, {{0, "a"}, {3, "d"}}, {{2, "c"}}}
	merged, err := shard.Merge(parts, position)
	if err != nil || !slices.Equal(merged, []item{{0, "a"}, {1, "b"}, {2, "c"}, {3, "d"}, {4, "e"}}) {
		t.Errorf("Merge = %v, %v", merged, err)
	}
	if merged, err := shard.Merge([][]item{{}, nil}, position); merged != nil || err != nil {
		t.Errorf("Merge of no items = %#v, %v; want nil, as the unsharded run's", merged, err)
	}
	// A shard given twice, and an item two shards hold.
	for _, c := range []struct {
		parts         [][]item
		first, second int
	}{
		{[][]item{parts[0], parts[2], parts[0]}, 0, 2},
		{[][]item{{{1, "b"}}, {{0, "a"}}, {{1, "b again"}}}, 0, 2},
		{[][]item{{{1, "b"}, {1, "b"}}}, 0, 0},
	} {
		_, err := shard.Merge(c.parts, position)
		var twice *shard.TwiceError[item]
		if !errors.As(err, &twice) || twice.First != c.first || twice.Second != c.second {
			t.Errorf("Merge(%v) = %v, want an item in parts %d and %d", c.parts, err, c.first, c.second)
		}
	}
}

func TestComplete(t *testing.T) {
	of3 := func(i int) shard.Shard { return shard.Shard{I: i, N: 3} }
	names := []string{"a.json", "b.json", "c.json"}
	if err := shard.Complete(names, []shard.Shard{of3(2), of3(3), of3(1)}); err != nil {
		t.Errorf("every shard once, in any order: %v", err)
	}
	for _, c := range []struct {
		names  []string
		shards []shard.Shard
		want   string
	}{
		{names, []shard.Shard{of3(1), of3(2), of3(2)}, "shard 2/3 is given twice (b.json and c.json)"},
		{names[:2], []shard.Shard{of3(1), of3(3)}, "shard(s) 2/3 missing: merge all 3 shards"},
		{names[:1], []shard.Shard{of3(2)}, "shard(s) 1/3, 3/3 missing"},
		{names[:2], []shard.Shard{of3(1), {I: 2, N: 2}}, "b.json is shard 2/2, but a.json of 3 shards: merge the shards of one split"},
	} {
		err := shard.Complete(c.names, c.shards)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Complete(%v, %v) = %v, want %q", c.names, c.shards, err, c.want)
		}
	}
}
