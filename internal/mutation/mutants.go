package mutation

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Reference is the reference path the analysis mutates, in reading order,
// with the functions it leaves alone and why.
var Reference = []File{
	{Path: "orders/service.go", Skip: map[string]string{
		"Install": "creates the table", "Get": "read by the checker", "All": "read by the checker", "String": "text for traces"}},
	{Path: "outbox/message.go", Skip: map[string]string{
		"String": "text for traces", "why": "the text of an error"}},
	{Path: "outbox/relay.go", Skip: map[string]string{
		"NewRelay": "checks its arguments (unit tests)", "Did": "used by Run, not by the simulator"}},
	{Path: "outbox/maintenance.go", Skip: map[string]string{
		"Metrics": "observability: counts nothing the checker reads", "Measure": "observability: counts nothing the checker reads"}},
	{Path: "inbox/consumer.go", Skip: map[string]string{
		"Validate": "checks its configuration (unit tests)", "DefaultConfig": "configuration", "NewConsumer": "checks its arguments (unit tests)",
		"Error": "the text of an error", "Held": "read by the checker", "DeadLetters": "read by the checker", "Blocked": "a metric"}},
	{Path: "billing/ledger.go", Skip: map[string]string{
		"Install": "creates the tables", "Accounts": "read by the checker", "Ledger": "read by the checker"}},
}

// File is one file of the reference path.
type File struct {
	// Path is the file's path from the module's root.
	Path string
	// Skip names the functions not mutated, with the reason.
	Skip map[string]string
}

// The kinds of change a mutant makes.
const (
	OpDelete    = "delete"     // the statement is not executed
	OpNegate    = "negate"     // an if's condition is inverted
	OpBound     = "bound"      // < becomes <=, <= becomes <, and so on
	OpDropLeft  = "drop-left"  // the left side of && (||) counts as true (false)
	OpDropRight = "drop-right" // the right side likewise
	OpSwap      = "swap"       // two consecutive statements run the other way round
)

// Mutant is one small change of the reference path.
type Mutant struct {
	// ID numbers the mutants of one analysis (file, position, kind).
	ID int
	// Key names the mutant across edits of other lines: file, function,
	// kind, and the code it changes.
	Key  string
	File string
	Func string
	// Line and EndLine are the lines of the code it changes.
	Line, EndLine int
	Op            string
	// Code is the code it changes, on one line; Change says what it does.
	Code, Change string
	// Independent marks a swap of two statements that touch different
	// variables (see independent): an equivalent mutant, by construction.
	Independent bool

	start, end  int    // the byte span it wraps
	open, close string // what it inserts before and after the span; @ID@ is its id
}

// Generate returns the mutants of files, read from the module at root.
func Generate(root string, files []File) ([]Mutant, error) {
	var all []Mutant
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(root, f.Path))
		if err != nil {
			return nil, fmt.Errorf("mutation: %w", err)
		}
		ms, err := generateFile(f, src)
		if err != nil {
			return nil, err
		}
		all = append(all, ms...)
	}
	// The same change of the same code twice in one function (two equal
	// writes) needs two names: the second is "(2)", and so on.
	seen := map[string]int{}
	for i := range all {
		all[i].ID = i
		seen[all[i].Key]++
		if n := seen[all[i].Key]; n > 1 {
			all[i].Key += fmt.Sprintf(" (%d)", n)
		}
	}
	return all, nil
}

// switchPackage is what a mutated file imports to ask whether its mutant
// is on.
const switchPackage = `__mut "outboxlab/internal/mutation/on"`

func generateFile(f File, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, f.Path, src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	text := func(n ast.Node) string { return string(src[off(n.Pos()):off(n.End())]) }
	var out []Mutant
	add := func(fn string, n ast.Node, op, change, open, close string) *Mutant {
		code := strings.Join(strings.Fields(text(n)), " ")
		out = append(out, Mutant{
			Key:  fmt.Sprintf("%s:%s:%s:%s", f.Path, fn, op, code),
			File: f.Path, Func: fn, Op: op, Code: code, Change: change,
			Line: fset.Position(n.Pos()).Line, EndLine: fset.Position(n.End()).Line,
			start: off(n.Pos()), end: off(n.End()), open: open, close: close,
		})
		return &out[len(out)-1]
	}
	for _, decl := range file.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		if _, skip := f.Skip[fd.Name.Name]; skip {
			continue
		}
		fn := fd.Name.Name
		bodies := map[*ast.BlockStmt]bool{fd.Body: true} // whose last statement ends a function
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				bodies[n.Body] = true
			case *ast.BlockStmt:
				list := n.List
				if bodies[n] && len(list) > 0 {
					list = list[:len(list)-1] // without it the function would not end in a return
				}
				statements(list, fn, add, text)
			case *ast.CaseClause:
				statements(n.Body, fn, add, text)
			case *ast.IfStmt:
				add(fn, n.Cond, OpNegate, "negates `"+text(n.Cond)+"`", "(", ") != __mut.On(@ID@)")
			case *ast.BinaryExpr:
				expression(n, fn, add, text)
			}
			return true
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out, nil
}

// adder adds a mutant and returns it, to be amended before the next add.
type adder func(fn string, n ast.Node, op, change, open, close string) *Mutant

// statements adds the mutants of a statement list: each simple statement
// deleted, each pair of consecutive simple statements swapped.
func statements(list []ast.Stmt, fn string, add adder, text func(ast.Node) string) {
	for i, s := range list {
		if deletable(s) {
			add(fn, s, OpDelete, "deletes `"+oneLine(text(s))+"`", "if !__mut.On(@ID@) { ", " }")
		}
		if i+1 < len(list) && deletable(s) && deletable(list[i+1]) && text(s) != text(list[i+1]) {
			pair := &span{s.Pos(), list[i+1].End()}
			m := add(fn, pair, OpSwap, fmt.Sprintf("runs `%s` before `%s`", oneLine(text(list[i+1])), oneLine(text(s))),
				"if __mut.On(@ID@) {\n"+text(list[i+1])+"\n"+text(s)+"\n} else {\n", "\n}")
			m.Independent = independent(s, list[i+1])
		}
	}
}

// independent reports whether a and b give the same result in either
// order: each assigns (or increments) without calling anything, and
// neither writes a variable or field the other reads or writes. Variables
// and fields are told apart by their access path (acc.Billed and
// acc.Cancelled are apart; acc and acc.Billed are not; m[k] counts as all
// of m).
func independent(a, b ast.Stmt) bool {
	readsA, writesA, okA := accesses(a)
	readsB, writesB, okB := accesses(b)
	if !okA || !okB {
		return false
	}
	for _, w := range writesA {
		if overlaps(w, readsB) || overlaps(w, writesB) {
			return false
		}
	}
	for _, w := range writesB {
		if overlaps(w, readsA) {
			return false
		}
	}
	return true
}

// accesses returns the access paths s reads and writes, and false if s is
// not a plain assignment or increment without calls.
func accesses(s ast.Stmt) (reads, writes []string, ok bool) {
	var lhs, rhs []ast.Expr
	switch s := s.(type) {
	case *ast.AssignStmt:
		if s.Tok == token.DEFINE {
			return nil, nil, false
		}
		lhs, rhs = s.Lhs, s.Rhs
		if s.Tok != token.ASSIGN { // +=, -=, ...: reads what it writes
			rhs = append(rhs, s.Lhs...)
		}
	case *ast.IncDecStmt:
		lhs, rhs = []ast.Expr{s.X}, []ast.Expr{s.X}
	default:
		return nil, nil, false
	}
	for _, e := range lhs {
		path, inner := accessPath(e)
		writes = append(writes, path)
		reads = append(reads, inner...)
	}
	ok = true
	for _, e := range rhs {
		reads = append(reads, readsOf(e, &ok)...)
	}
	return reads, writes, ok
}

// readsOf returns the access paths e reads; it clears ok if e calls
// anything, takes an address or dereferences a pointer.
func readsOf(e ast.Expr, ok *bool) []string {
	var out []string
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr, *ast.StarExpr, *ast.FuncLit:
			*ok = false
		case *ast.UnaryExpr:
			if n.Op != token.SUB && n.Op != token.NOT {
				*ok = false // &x, <-ch
			}
		case *ast.KeyValueExpr:
			out = append(out, readsOf(n.Value, ok)...)
			return false // the key is a field name, not a variable
		case ast.Expr:
			if path, inner := accessPath(n); path != "" {
				out = append(append(out, path), inner...)
				return false
			}
		}
		return true
	})
	return out
}

// accessPath returns the path of a variable or field ("acc.Billed"), and
// the paths an index inside it reads; "" for anything else.
func accessPath(e ast.Expr) (string, []string) {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name, nil
	case *ast.SelectorExpr:
		path, reads := accessPath(e.X)
		if path == "" {
			return "", reads
		}
		return path + "." + e.Sel.Name, reads
	case *ast.IndexExpr:
		path, reads := accessPath(e.X)
		if i, _ := accessPath(e.Index); i != "" {
			reads = append(reads, i)
		}
		return path, reads
	case *ast.ParenExpr:
		return accessPath(e.X)
	}
	return "", nil
}

// overlaps reports whether path and any of others name the same memory:
// one is the other or a field inside it.
func overlaps(path string, others []string) bool {
	for _, o := range others {
		if o == path || strings.HasPrefix(o, path+".") || strings.HasPrefix(path, o+".") {
			return true
		}
	}
	return false
}

// span is the source range of two consecutive statements.
type span struct{ pos, end token.Pos }

func (s *span) Pos() token.Pos { return s.pos }
func (s *span) End() token.Pos { return s.end }

// deletable reports whether s can be skipped without breaking the build: a
// statement that declares nothing and does not end a function.
func deletable(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ExprStmt, *ast.IncDecStmt, *ast.IfStmt, *ast.RangeStmt, *ast.ForStmt:
		return true
	case *ast.AssignStmt:
		return s.Tok != token.DEFINE
	}
	return false
}

// expression adds the mutants of a binary expression: a comparison's bound
// moved, one side of && or || dropped.
func expression(b *ast.BinaryExpr, fn string, add adder, text func(ast.Node) string) {
	x, y := text(b.X), text(b.Y)
	same := "(" + x + ") == (" + y + ")"
	switch b.Op {
	case token.LSS, token.GTR: // < becomes <=, > becomes >=
		add(fn, b, OpBound, fmt.Sprintf("turns `%s` into `%s %s= %s`", text(b), x, b.Op, y), "(", " || __mut.On(@ID@) && "+same+")")
	case token.LEQ, token.GEQ: // <= becomes <, >= becomes >
		add(fn, b, OpBound, fmt.Sprintf("turns `%s` into `%s %s %s`", text(b), x, strings.TrimSuffix(b.Op.String(), "="), y), "(", " && !(__mut.On(@ID@) && "+same+"))")
	// A dropped side is not evaluated at all: the switch comes first, so
	// that a side with an effect (m.Replay(now) == nil) loses the effect
	// too, not only its value.
	case token.LAND:
		add(fn, b.X, OpDropLeft, "drops `"+x+"` from `"+oneLine(text(b))+"`", "(__mut.On(@ID@) || ", ")")
		add(fn, b.Y, OpDropRight, "drops `"+y+"` from `"+oneLine(text(b))+"`", "(__mut.On(@ID@) || ", ")")
	case token.LOR:
		add(fn, b.X, OpDropLeft, "drops `"+x+"` from `"+oneLine(text(b))+"`", "(!__mut.On(@ID@) && ", ")")
		add(fn, b.Y, OpDropRight, "drops `"+y+"` from `"+oneLine(text(b))+"`", "(!__mut.On(@ID@) && ", ")")
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 70 {
		return string(r[:69]) + "…"
	}
	return s
}

// Schema is one build of the mutated reference: every file's copy with
// the changes of Mutants, each guarded by its switch.
type Schema struct {
	Mutants []int
	// Files maps a file's path from the module's root to its mutated copy.
	Files map[string][]byte
}

// Schemata returns the builds that together hold every mutant: in one
// build the changed ranges of a file must nest or be apart, so two swaps
// that share a statement go into different builds.
func Schemata(root string, mutants []Mutant) ([]Schema, error) {
	var builds [][]Mutant
	for _, m := range mutants {
		placed := false
		for i, b := range builds {
			if fits(b, m) {
				builds[i] = append(b, m)
				placed = true
				break
			}
		}
		if !placed {
			builds = append(builds, []Mutant{m})
		}
	}
	var out []Schema
	for _, b := range builds {
		s := Schema{Files: map[string][]byte{}}
		byFile := map[string][]Mutant{}
		for _, m := range b {
			s.Mutants = append(s.Mutants, m.ID)
			byFile[m.File] = append(byFile[m.File], m)
		}
		for file, ms := range byFile {
			src, err := os.ReadFile(filepath.Join(root, file))
			if err != nil {
				return nil, fmt.Errorf("mutation: %w", err)
			}
			mutated, err := apply(src, ms)
			if err != nil {
				return nil, fmt.Errorf("mutation: %s: %w", file, err)
			}
			s.Files[file] = mutated
		}
		out = append(out, s)
	}
	return out, nil
}

// fits reports whether m's range nests with or stays apart from every
// range of the same file in b.
func fits(b []Mutant, m Mutant) bool {
	for _, o := range b {
		if o.File != m.File {
			continue
		}
		apart := m.end <= o.start || o.end <= m.start
		nested := (m.start <= o.start && o.end <= m.end) || (o.start <= m.start && m.end <= o.end)
		if !apart && !nested {
			return false
		}
	}
	return true
}

// apply inserts the guarded changes of ms into src, and the switch's import
// behind the package clause (on the same line, so lines keep their
// numbers).
func apply(src []byte, ms []Mutant) ([]byte, error) {
	type insertion struct {
		at      int
		closing bool
		length  int // of the span: outer spans open first and close last
		id      int
		text    string
	}
	var ins []insertion
	for _, m := range ms {
		ins = append(ins,
			insertion{m.start, false, m.end - m.start, m.ID, withID(m.open, m.ID)},
			insertion{m.end, true, m.end - m.start, m.ID, withID(m.close, m.ID)})
	}
	sort.SliceStable(ins, func(i, j int) bool {
		a, b := ins[i], ins[j]
		switch {
		case a.at != b.at:
			return a.at < b.at
		case a.closing != b.closing:
			return a.closing // close what ends here before opening what starts here
		case a.closing:
			if a.length != b.length {
				return a.length < b.length // inner first
			}
			return a.id > b.id
		}
		if a.length != b.length {
			return a.length > b.length // outer first
		}
		return a.id < b.id
	})
	pkg := strings.Index(string(src), "\npackage ")
	if pkg < 0 && strings.HasPrefix(string(src), "package ") {
		pkg = -1
	} else if pkg < 0 {
		return nil, fmt.Errorf("no package clause")
	}
	lineEnd := strings.IndexByte(string(src[pkg+1:]), '\n') + pkg + 1
	ins = append(ins, insertion{})
	copy(ins[1:], ins)
	ins[0] = insertion{at: lineEnd, text: "; import " + switchPackage}
	sort.SliceStable(ins, func(i, j int) bool { return ins[i].at < ins[j].at })
	var b strings.Builder
	last := 0
	for _, in := range ins {
		b.Write(src[last:in.at])
		b.WriteString(in.text)
		last = in.at
	}
	b.Write(src[last:])
	return []byte(b.String()), nil
}

// withID puts a mutant's id into the text it inserts.
func withID(text string, id int) string { return strings.ReplaceAll(text, "@ID@", strconv.Itoa(id)) }
