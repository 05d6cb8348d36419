package longtest

import (
	"os"
	"testing"
)

// Env is the environment variable that switches the long forms on.
const Env = "OUTBOXLAB_LONG"

// Long reports whether t runs in its exhaustive form: Env is set. step
// names the step of .ci/run that runs that form (long_explore,
// long_verdict, ...); it is read from the source, not at run time.
func Long(t testing.TB, step string) bool {
	t.Helper()
	return os.Getenv(Env) != ""
}

// Only skips t unless it runs in its exhaustive form. step is the step of
// .ci/run that runs it; everyday says which case of go test ./... stands
// for it there.
func Only(t testing.TB, step, everyday string) {
	t.Helper()
	if !Long(t, step) {
		t.Skipf("an exhaustive form: %s=1 runs it (.ci/run's step %s); go test ./... has %s", Env, step, everyday)
	}
}

// Full reports whether the scheduled job's forms run (Env is "full"):
// those too long for any step of .ci/run (every door for every variant,
// over ten minutes). A test that has one calls Long first: its long form
// is what .ci/run runs.
func Full() bool { return os.Getenv(Env) == "full" }
