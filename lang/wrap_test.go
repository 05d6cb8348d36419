package lang_test

import (
	"fmt"
	"strings"
	"testing"

	"outboxlab/lang"
)

func ExampleWrap() {
	fmt.Println(lang.Wrap("hint:", "      ", "take time only from the clocks you are given, randomness only from env.Rand", 40))
	// Output:
	// hint: take time only from the clocks you
	//       are given, randomness only from
	//       env.Rand
}

// TestWrapPartsKeepsEachPartWhole: a part breaks to the next line whole,
// never at its own spaces; a word longer than the width stays whole.
func TestWrapPartsKeepsEachPartWhole(t *testing.T) {
	parts := []string{"labrun", "scenario", "[--variant V]", "[--seed N]", "[--format text|json|html|mermaid|metrics]"}
	got := lang.WrapParts("usage:", "        ", parts, 32)
	want := "usage: labrun scenario\n        [--variant V] [--seed N]\n        [--format text|json|html|mermaid|metrics]"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, line := range strings.Split(lang.Wrap("", "", "a verylongwordthatdoesnotfit b", 5), "\n") {
		if strings.Contains(line, "verylong") && line != "verylongwordthatdoesnotfit" {
			t.Errorf("the long word was split or joined: %q", line)
		}
	}
}
