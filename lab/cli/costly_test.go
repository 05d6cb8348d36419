package cli

import (
	"slices"

	"outboxlab/scenarios"
)

// gradesAtCourse reports whether the labrun command args grades a
// variant that claims to be correct at depth course: the summary, a
// matrix or grade of one without --depth quick, every claim checked. Such
// a command costs seconds of CPU (some 10,000 runs a variant), so the
// everyday suite leaves it to the long forms (.ci/run's long_cli), and
// keeps the commands of every other kind.
func gradesAtCourse(args []string) bool {
	var named []string
	rest := args
	for len(rest) > 0 && rest[0] == "--lang" {
		rest = rest[2:]
	}
	if len(rest) == 0 {
		return true // the summary
	}
	for i := 0; i+1 < len(rest); i++ {
		switch rest[i] {
		case "--depth":
			if rest[i+1] == "quick" {
				return false
			}
		case "--variant":
			named = append(named, rest[i+1])
		}
	}
	switch rest[0] {
	case "claims":
		return slices.Contains(rest, "--check")
	case "matrix", "grade":
		if len(named) == 0 {
			return rest[0] == "matrix"
		}
		for _, name := range named {
			if v, err := scenarios.FindVariant(name); err == nil && v.Correct() {
				return true
			}
		}
	}
	return false
}
