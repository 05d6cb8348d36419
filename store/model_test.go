package store_test

import (
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"outboxlab/store"
)

// modelTx is the reference model of an open transaction: its owner and the
// rows it wrote (nil value = deleted), plus the keys it must insert uniquely.
type modelTx struct {
	tx      *store.Tx
	owner   string
	start   int // commits before it began
	writes  map[string]*int
	inserts []insertion
}

type insertion struct {
	key          string
	afterOwnDrop bool // the transaction deleted the key before inserting it
}

// TestStoreAgainstModel drives the store with random transactions, crashes,
// commits and rollbacks, and compares every read and the committed state with
// a plain map. Table "t" has a partial index "odd" over odd values.
func TestStoreAgainstModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		db := store.New("model")
		if err := db.CreateTable("t", store.Index{Name: "odd", Where: func(v any) bool { return v.(int)%2 == 1 }}); err != nil {
			t.Fatal(err)
		}
		committed := map[string]int{}
		commits := 0                  // successful commits so far
		lastWrite := map[string]int{} // key -> the commit that last wrote it
		var open []*modelTx
		keys := rapid.SampledFrom([]string{"a", "b", "c", "d", "e"})
		owners := rapid.SampledFrom([]string{"service", "relay", "billing"})
		pick := func(t *rapid.T) *modelTx {
			if len(open) == 0 {
				t.Skip("no open transaction")
			}
			return open[rapid.IntRange(0, len(open)-1).Draw(t, "tx")]
		}
		drop := func(m *modelTx) {
			for i, o := range open {
				if o == m {
					open = append(open[:i], open[i+1:]...)
					return
				}
			}
		}
		view := func(m *modelTx, k string) (int, bool) {
			if v, ok := m.writes[k]; ok {
				if v == nil {
					return 0, false
				}
				return *v, true
			}
			v, ok := committed[k]
			return v, ok
		}
		t.Repeat(map[string]func(*rapid.T){
			"begin": func(t *rapid.T) {
				owner := owners.Draw(t, "owner")
				open = append(open, &modelTx{tx: db.Begin(owner), owner: owner, start: commits, writes: map[string]*int{}})
			},
			"put": func(t *rapid.T) {
				m, k, v := pick(t), keys.Draw(t, "key"), rapid.IntRange(0, 9).Draw(t, "value")
				m.tx.Put("t", k, v)
				m.writes[k] = &v
			},
			"insert": func(t *rapid.T) {
				m, k, v := pick(t), keys.Draw(t, "key"), rapid.IntRange(0, 9).Draw(t, "value")
				_, exists := view(m, k)
				err := m.tx.Insert("t", k, v)
				if exists != errors.Is(err, store.ErrDuplicateKey) {
					t.Fatalf("Insert(%s) with exists=%v: err = %v", k, exists, err)
				}
				if err == nil {
					w, wrote := m.writes[k]
					m.inserts = append(m.inserts, insertion{key: k, afterOwnDrop: wrote && w == nil})
					m.writes[k] = &v
				}
			},
			"delete": func(t *rapid.T) {
				m, k := pick(t), keys.Draw(t, "key")
				m.tx.Delete("t", k)
				m.writes[k] = nil
			},
			"get": func(t *rapid.T) {
				m, k := pick(t), keys.Draw(t, "key")
				wantV, wantOK := view(m, k)
				gotV, gotOK := m.tx.Get("t", k)
				if gotOK != wantOK || (gotOK && gotV.(int) != wantV) {
					t.Fatalf("%s Get(%s) = %v, %v; model says %v, %v", m.owner, k, gotV, gotOK, wantV, wantOK)
				}
			},
			"scanIndex": func(t *rapid.T) {
				m := pick(t)
				var want []string // key=value: a member's value must be its latest
				for _, k := range []string{"a", "b", "c", "d", "e"} {
					if v, ok := view(m, k); ok && v%2 == 1 {
						want = append(want, fmt.Sprintf("%s=%d", k, v))
					}
				}
				var got []string
				m.tx.ScanIndex("t", "odd", func(k string, v any) bool { got = append(got, fmt.Sprintf("%s=%d", k, v)); return true })
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("ScanIndex (-model +store):\n%s", diff)
				}
			},
			"commit": func(t *rapid.T) {
				m := pick(t)
				duplicate, conflict := false, false
				for _, ins := range m.inserts {
					if _, exists := committed[ins.key]; exists && !ins.afterOwnDrop {
						duplicate = true
					}
				}
				for k := range m.writes {
					if lastWrite[k] > m.start {
						conflict = true // first committer wins
					}
				}
				err := m.tx.Commit()
				switch {
				case duplicate || conflict:
					if !errors.Is(err, store.ErrDuplicateKey) && !errors.Is(err, store.ErrConflict) {
						t.Fatalf("Commit with duplicate=%v conflict=%v: err = %v", duplicate, conflict, err)
					}
					if !conflict && !errors.Is(err, store.ErrDuplicateKey) {
						t.Fatalf("Commit of a duplicate insert: err = %v, want ErrDuplicateKey", err)
					}
				case err != nil:
					t.Fatalf("Commit without duplicate or conflict: err = %v", err)
				default:
					commits++
					for k, v := range m.writes {
						lastWrite[k] = commits
						if v == nil {
							delete(committed, k)
						} else {
							committed[k] = *v
						}
					}
				}
				drop(m)
			},
			"rollback": func(t *rapid.T) {
				m := pick(t)
				m.tx.Rollback()
				drop(m)
			},
			"crash": func(t *rapid.T) {
				owner := owners.Draw(t, "owner")
				var victims []*modelTx
				for _, m := range open {
					if m.owner == owner {
						victims = append(victims, m)
					}
				}
				if n := db.Crash(owner); n != len(victims) {
					t.Fatalf("Crash(%s) aborted %d transactions, model %d", owner, n, len(victims))
				}
				for _, m := range victims {
					drop(m)
					if err := m.tx.Commit(); !errors.Is(err, store.ErrAborted) {
						t.Fatalf("commit of a crashed transaction: err = %v", err)
					}
				}
			},
			"": func(t *rapid.T) {
				got := map[string]int{}
				for _, k := range db.Keys("t") {
					v, _ := db.Get("t", k)
					got[k] = v.(int)
				}
				if diff := cmp.Diff(committed, got); diff != "" {
					t.Fatalf("committed state (-model +store):\n%s", diff)
				}
				odd := 0
				for _, v := range committed {
					odd += v % 2
				}
				if n := db.IndexLen("t", "odd"); n != odd {
					t.Fatalf("index holds %d rows, model %d", n, odd)
				}
				if db.OpenTransactions() != len(open) {
					t.Fatalf("open transactions = %d, model %d", db.OpenTransactions(), len(open))
				}
			},
		})
	})
}

// TestOrderedIndexUnderChurn checks the partial index's order and membership
// after many adds and removes, across several of its blocks.
func TestOrderedIndexUnderChurn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		db := store.New("churn")
		if err := db.CreateTable("t", store.Index{Name: "all", Where: func(any) bool { return true }}); err != nil {
			t.Fatal(err)
		}
		model := map[string]bool{}
		space := rapid.IntRange(1, 2000).Draw(t, "space")
		ops := rapid.SliceOfN(rapid.IntRange(0, 2*space-1), 1, 3000).Draw(t, "ops")
		for _, op := range ops {
			k := fmt.Sprintf("%04d", op%space)
			tx := db.Begin("w")
			if op >= space {
				tx.Delete("t", k)
				delete(model, k)
			} else {
				tx.Put("t", k, op)
				model[k] = true
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		var want []string
		for k := range model {
			want = append(want, k)
		}
		sort.Strings(want)
		var got []string
		tx := db.Begin("r")
		tx.ScanIndex("t", "all", func(k string, _ any) bool { got = append(got, k); return true })
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("index order (-model +store):\n%s", diff)
		}
		if db.IndexLen("t", "all") != len(want) {
			t.Fatalf("IndexLen = %d, model %d", db.IndexLen("t", "all"), len(want))
		}
	})
}

// TestOrderedIndexAcrossManyBlocks adds 5,000 keys in a shuffled order,
// removes every third, and checks order and count: enough keys to split the
// index's blocks many times and empty some of them.
func TestOrderedIndexAcrossManyBlocks(t *testing.T) {
	db := store.New("blocks")
	if err := db.CreateTable("t", store.Index{Name: "all", Where: func(any) bool { return true }}); err != nil {
		t.Fatal(err)
	}
	const n = 5000
	order := make([]int, n)
	for i := range order {
		order[i] = (i * 7919) % n // a permutation: 7919 is prime and does not divide 5000
	}
	put := func(keys []int, del bool) {
		tx := db.Begin("w")
		for _, i := range keys {
			if del {
				tx.Delete("t", fmt.Sprintf("%05d", i))
			} else {
				tx.Put("t", fmt.Sprintf("%05d", i), i)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	put(order, false)
	var want []string
	var removed []int
	for i := range n {
		if i%3 == 0 {
			removed = append(removed, i)
		} else {
			want = append(want, fmt.Sprintf("%05d", i))
		}
	}
	put(removed, true)
	var got []string
	db.Begin("r").ScanIndex("t", "all", func(k string, _ any) bool { got = append(got, k); return true })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("index (-want +got):\n%s", diff)
	}
	if db.IndexLen("t", "all") != len(want) {
		t.Fatalf("IndexLen = %d, want %d", db.IndexLen("t", "all"), len(want))
	}
}
