package mistakes_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A function of the source: the file that holds it, the receiver's type
// ("" for a plain function) and its name.
type fn struct{ file, recv, name string }

// change pairs a reference function with the mistake's version of it.
type change struct {
	mistake   string
	reference fn
	wrong     fn
	// why explains a diff longer than maxChanged lines.
	why string
}

// maxChanged is what "the reference with one change" may cost in changed
// lines.
const maxChanged = 15

var changes = []change{
	// The frame the relay mistakes share: the reference's Step and its
	// SENT mark, with the claim and the mark replaceable.
	{"(frame) relay.step", fn{"../outbox/relay.go", "Relay", "Step"}, fn{"relay.go", "relay", "step"}, ""},
	{"(frame) relay.recordSentFenced", fn{"../outbox/relay.go", "Relay", "recordSent"}, fn{"relay.go", "relay", "recordSentFenced"}, ""},
	{"(frame) relay.recordFailure", fn{"../outbox/relay.go", "Relay", "recordFailure"}, fn{"relay.go", "relay", "recordFailure"}, ""},
	{"mark-before-send", fn{"../outbox/relay.go", "Relay", "Step"}, fn{"markbeforesend.go", "markBeforeSendRelay", "step"},
		"two effects swap: the mark's nine lines move above the send, and a diff counts a moved line twice"},
	{"no-inflight-recovery", fn{"../outbox/relay.go", "Relay", "Recover"}, fn{"noinflightrecovery.go", "noRecoveryRelay", "Recover"},
		"the whole recovery is the mistake: it is gone (and the lease made endless, see NoInflightRecovery)"},
	{"no-fencing", fn{"../outbox/relay.go", "Relay", "recordSent"}, fn{"nofencing.go", "relay", "recordSentBlind"}, ""},
	{"cleanup-by-age", fn{"../outbox/maintenance.go", "Relay", "Cleanup"}, fn{"cleanupbyage.go", "cleanupByAgeRelay", "Cleanup"}, ""},
	{"recover-all", fn{"../outbox/relay.go", "Relay", "Recover"}, fn{"recoverall.go", "recoverAllRelay", "recover"}, ""},
	{"claim-without-lock", fn{"../outbox/relay.go", "Relay", "ClaimDue"}, fn{"claimwithoutlock.go", "relay", "claimWithoutLock"},
		"the one commit of the reference becomes a read and a commit per message: the loop that writes them is the mistake"},
	{"offset-by-id", fn{"../outbox/relay.go", "Relay", "ClaimDue"}, fn{"offsetbyid.go", "offsetRelay", "claimAboveOffset"}, ""},
	{"parallel-workers", fn{"../outbox/relay.go", "Relay", "ClaimDue"}, fn{"parallelworkers.go", "relay", "claimEveryDue"}, ""},
	{"(frame) syncCallService.Handle", fn{"../alternatives/synccall/synccall.go", "Service", "Handle"}, fn{"synccallwithoutkey.go", "syncCallService", "Handle"}, ""},
	{"sync-call-without-key", fn{"../alternatives/synccall/synccall.go", "Service", "call"}, fn{"synccallwithoutkey.go", "syncCallService", "call"}, ""},
	{"unindexed-outbox", fn{"../outbox/relay.go", "Relay", "ClaimDue"}, fn{"unindexed.go", "relay", "claimByScan"}, ""},
	// The frame the consumer mistakes share: the reference's Step and the
	// functions below it, with handle, process and apply replaceable.
	{"(frame) consumer.Step", fn{"../inbox/consumer.go", "Consumer", "Step"}, fn{"consumer.go", "consumer", "Step"}, ""},
	{"(frame) consumer.handBack", fn{"../inbox/consumer.go", "Consumer", "handBack"}, fn{"consumer.go", "consumer", "handBack"}, ""},
	{"(frame) consumer.referenceHandle", fn{"../inbox/consumer.go", "Consumer", "handle"}, fn{"consumer.go", "consumer", "referenceHandle"}, ""},
	{"(frame) consumer.referenceProcess", fn{"../inbox/consumer.go", "Consumer", "process"}, fn{"consumer.go", "consumer", "referenceProcess"}, ""},
	{"(frame) consumer.referenceApply", fn{"../inbox/consumer.go", "Consumer", "apply"}, fn{"consumer.go", "consumer", "referenceApply"}, ""},
	{"(frame) consumer.drainParked", fn{"../inbox/consumer.go", "Consumer", "drainParked"}, fn{"consumer.go", "consumer", "drainParked"}, ""},
	{"(frame) consumer.countFailure", fn{"../inbox/consumer.go", "Consumer", "countFailure"}, fn{"consumer.go", "consumer", "countFailure"}, ""},
	{"non-idempotent-consumer (handle)", fn{"../inbox/consumer.go", "Consumer", "handle"}, fn{"nonidempotent.go", "consumer", "handleWithoutInbox"}, ""},
	{"non-idempotent-consumer (apply)", fn{"../inbox/consumer.go", "Consumer", "apply"}, fn{"nonidempotent.go", "consumer", "applyWithoutInbox"}, ""},
	{"non-idempotent-consumer (process)", fn{"../inbox/consumer.go", "Consumer", "process"}, fn{"unordered.go", "consumer", "processUnordered"},
		"three changes, because one is not enough: without the inbox, the applied sequence number still deduplicates, so the ordering goes too"},
	{"dedup-outside-tx (handle)", fn{"../inbox/consumer.go", "Consumer", "handle"}, fn{"dedupoutsidetx.go", "consumer", "handleThenRecord"}, ""},
	{"dedup-outside-tx (apply)", fn{"../inbox/consumer.go", "Consumer", "apply"}, fn{"nonidempotent.go", "consumer", "applyWithoutInbox"}, ""},
	{"unordered-consumer", fn{"../inbox/consumer.go", "Consumer", "process"}, fn{"unordered.go", "consumer", "processUnordered"},
		"the mistake is a deletion: the whole ordering block (stale, gap, drain) goes"},
	{"max-version-only", fn{"../inbox/consumer.go", "Consumer", "process"}, fn{"maxversiononly.go", "consumer", "processMaxVersion"}, ""},
	// The slips the lab does not ship (slips_test.go, mistakes.Slips).
	{"(slip) park-and-record", fn{"../inbox/consumer.go", "Consumer", "process"}, fn{"slips_test.go", "consumer", "processParkAndRecord"}, ""},
	{"(slip) duplicate-key-is-an-error", fn{"../inbox/consumer.go", "Consumer", "handle"}, fn{"slips_test.go", "consumer", "handleStrictly"}, ""},
	{"(slip) drain-one (process)", fn{"../inbox/consumer.go", "Consumer", "process"}, fn{"slips_test.go", "consumer", "processDrainOne"}, ""},
	{"(slip) drain-one (drain)", fn{"../inbox/consumer.go", "Consumer", "drainParked"}, fn{"slips_test.go", "consumer", "drainOne"}, ""},
	{"(slip) cleanup-by-creation", fn{"../outbox/maintenance.go", "Relay", "Cleanup"}, fn{"slips_test.go", "cleanupByCreationRelay", "Cleanup"}, ""},
	{"dual-write", fn{"../orders/service.go", "Service", "Handle"}, fn{"dualwrite.go", "dualWriteService", "Handle"}, ""},
	{"publish-first", fn{"../orders/service.go", "Service", "Handle"}, fn{"publishfirst.go", "publishFirstService", "Handle"}, ""},
	{"separate-tx", fn{"../orders/service.go", "Service", "Handle"}, fn{"separatetx.go", "separateTxService", "Handle"}, ""},
	// dual-write-retry is dual-write with one change: the retry.
	{"dual-write-retry", fn{"dualwrite.go", "dualWriteService", "Handle"}, fn{"dualwriteretry.go", "dualWriteRetryService", "Handle"},
		"the retry loop builds the envelope once, so that every retry resends under the same id: dual-write's publish helper written out"},
	{"gross-to-net", fn{"../orders/service.go", "Service", "Handle"}, fn{"grosstonet.go", "netService", "Handle"}, ""},
	{"cron-relay", fn{"../variant/relayadapter.go", "RelayAdapter", "Step"}, fn{"cronrelay.go", "cronRelay", "Step"}, ""},
}

// frameHooks are the lines where a frame differs from the reference on
// purpose besides its signature: the calls it routes through a function a
// mistake replaces. A frame differs in nothing else, so that a mistake
// built on it has its one marked change and no other: when the reference
// changes, its frame must follow.
var frameHooks = map[string][]string{
	"(frame) relay.step": {"batch, err := r.claim()"},
}

// TestEachMistakeIsTheReferenceWithOneChange prints, with -v, every
// mistake's diff against the reference function it changes, and fails when
// one grows beyond maxChanged changed lines without a reason. Package
// qualifiers are left out (the mistakes live in another package), and so
// are comments other than the MISTAKE marker.
//
//	go test ./mistakes -run OneChange -v
func TestEachMistakeIsTheReferenceWithOneChange(t *testing.T) {
	for _, c := range changes {
		t.Run(c.mistake, func(t *testing.T) {
			ref, err := source(c.reference)
			if err != nil {
				t.Fatal(err)
			}
			wrong, err := source(c.wrong)
			if err != nil {
				t.Fatal(err)
			}
			diff, n := lineDiff(normalize(ref), normalize(wrong))
			t.Logf("%s: %s.%s (%s) against %s.%s, %d changed line(s)\n%s",
				c.mistake, c.reference.recv, c.reference.name, c.reference.file, c.wrong.recv, c.wrong.name, n, diff)
			if n > maxChanged && c.why == "" {
				t.Errorf("%s changes %d lines of the reference, more than %d, and says nothing about why", c.mistake, n, maxChanged)
			}
			if strings.HasPrefix(c.mistake, "(frame)") {
				checkFrame(t, c.mistake, diff, n)
			}
			if !strings.Contains(wrong, "MISTAKE") && c.mistake != "no-inflight-recovery" && !strings.HasPrefix(c.mistake, "(frame)") {
				t.Errorf("%s: no // MISTAKE: marker where the mistake is made", c.mistake)
			}
		})
	}
}

// checkFrame fails unless a frame's diff against the reference changes its
// signature and its hooks (frameHooks) and nothing else.
func checkFrame(t *testing.T, frame, diff string, n int) {
	t.Helper()
	hooks := frameHooks[frame]
	for _, l := range strings.Split(diff, "\n") {
		added, ok := strings.CutPrefix(l, "+ ")
		if !ok {
			continue
		}
		added = strings.TrimSpace(added)
		if !strings.HasPrefix(added, "func ") && !slices.Contains(hooks, added) {
			t.Errorf("%s differs from the reference in %q: a frame may differ in its signature and its hooks only, or every mistake built on it carries a second, unmarked change", frame, added)
		}
	}
	if want := 2 + 2*len(hooks); n != want {
		t.Errorf("%s: %d changed lines, want %d (the signature and %d hook(s), each a line out and a line in)", frame, n, want, len(hooks))
	}
}

// source returns the text of one function declaration.
func source(f fn) (string, error) {
	b, err := os.ReadFile(filepath.FromSlash(f.file))
	if err != nil {
		return "", err
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, f.file, b, parser.ParseComments)
	if err != nil {
		return "", err
	}
	for _, d := range file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != f.name || receiver(fd) != f.recv {
			continue
		}
		return string(b[fset.Position(fd.Pos()).Offset:fset.Position(fd.End()).Offset]), nil
	}
	return "", fmt.Errorf("%s: no func (%s) %s", f.file, f.recv, f.name)
}

func receiver(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	switch t := fd.Recv.List[0].Type.(type) {
	case *ast.StarExpr:
		return t.X.(*ast.Ident).Name
	case *ast.Ident:
		return t.Name
	}
	return ""
}

var qualifier = regexp.MustCompile(`\b(outbox|orders|inbox|billing|store|domain|broker|effect|synccall)\.`)

// normalize drops package qualifiers, and comment lines other than the
// MISTAKE marker, and returns the lines.
func normalize(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "//") && !strings.Contains(trimmed, "MISTAKE") {
			continue
		}
		if i := strings.Index(l, " //"); i >= 0 && !strings.Contains(l, "MISTAKE") {
			l = strings.TrimRight(l[:i], " ")
		}
		out = append(out, qualifier.ReplaceAllString(l, ""))
	}
	return out
}

// lineDiff returns a, b as a diff ("  " same, "- " only in a, "+ " only
// in b) by their longest common subsequence, and how many lines changed.
func lineDiff(a, b []string) (string, int) {
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	n := 0
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			fmt.Fprintf(&out, "  %s\n", a[i])
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			fmt.Fprintf(&out, "+ %s\n", b[j])
			j, n = j+1, n+1
		default:
			fmt.Fprintf(&out, "- %s\n", a[i])
			i, n = i+1, n+1
		}
	}
	return out.String(), n
}
