package verdict_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"outboxlab/lab/cli"
	"outboxlab/lab/grade"
	"outboxlab/scenarios"
)

// logRecorder is a test that keeps what it logs.
type logRecorder struct {
	*testing.T
	log strings.Builder
}

func (r *logRecorder) Log(args ...any) { fmt.Fprintln(&r.log, args...) }

// replayLine is labrun's line that names the replay command, which a
// test log leaves out: the test's flags replay it there.
var replayLine = regexp.MustCompile(`(?m)^(Replay|Wiederholen): .*\n`)

// TestTheCLIAndTheTestLogTellARunAlike: labrun scenario and a test's
// -lab.replay write one replayed run in the same sentences, folded the
// same, in both languages: a test log's transcript (after its title) is
// labrun's, but for labrun's replay line. The runs: a crash whose
// timeline folds a repeated event, a mistake's story that ends LOST with
// violations, and a failed commit under a fault row.
func TestTheCLIAndTheTestLogTellARunAlike(t *testing.T) {
	for _, l := range []string{"en", "de"} {
		for _, c := range []struct{ variant, run string }{
			{"outbox", "relay.after-send@2"},
			{"dual-write", "mistake/dual-write"},
			{"outbox", "broker-outage+commit-failure:relay.mark@1"},
		} {
			var stdout, stderr bytes.Buffer
			if code := (cli.Lab{Command: "labrun"}).Run([]string{"scenario", c.run, "--variant", c.variant, "--lang", l}, &stdout, &stderr); code != 0 {
				t.Fatalf("labrun scenario %s --variant %s: exit %d: %s", c.run, c.variant, code, stderr.String())
			}
			v, err := scenarios.FindVariant(c.variant)
			if err != nil {
				t.Fatal(err)
			}
			setFlag(t, "lab.lang", l)
			r := &logRecorder{T: t}
			if err := grade.Replay(r, v, scenarios.MustParseRun(c.run)); err != nil {
				t.Fatalf("-lab.replay=%s of %s: %v", c.run, c.variant, err)
			}
			_, transcript, _ := strings.Cut(r.log.String(), "\n\n")
			labrun := replayLine.ReplaceAllString(stdout.String(), "")
			if transcript == "" || !strings.HasSuffix(labrun+"\n", transcript) || !strings.Contains(transcript, "\n... ") && c.run == "relay.after-send@2" {
				t.Errorf("%s, %s, --lang %s: the test log's transcript is not labrun's:\n--- test log\n%s\n--- labrun\n%s", c.run, c.variant, l, transcript, labrun)
			}
		}
	}
}
