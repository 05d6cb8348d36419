package cli

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// flagsIn returns the flags a help text names, as typed: --variant, ...
func flagsIn(help string) []string {
	names := regexp.MustCompile(`(?m)(?:^|[\s\[|(])--?([a-z][a-z-]*)`).FindAllStringSubmatch(help, -1)
	var out []string
	for _, n := range names {
		if !slices.Contains(out, "--"+n[1]) {
			out = append(out, "--"+n[1])
		}
	}
	return out
}

// TestTheHelpNamesEveryFlag: `labrun --help` names every flag of every
// command, `labrun help CMD` and `labrun CMD -h` are the command's own help
// (not the general one, not "usage: labrun labrun"), and the help of a
// command names every flag its flag set has, so that a flag declared
// without its words cannot hide.
func TestTheHelpNamesEveryFlag(t *testing.T) {
	code, general, _ := runLabrun("--help")
	if code != 0 {
		t.Fatalf("labrun --help: exit %d", code)
	}
	for _, c := range commands() {
		code, own, _ := runLabrun(c.name, "-h")
		if code != 0 || !strings.HasPrefix(own, "usage: labrun ") || strings.HasPrefix(own, "usage: labrun labrun") || own == general {
			t.Errorf("labrun %s -h: exit %d, output %q; want the command's own usage", c.name, code, own)
			continue
		}
		if _, viaHelp, _ := runLabrun("help", c.name); viaHelp != own {
			t.Errorf("labrun help %s differs from labrun %s -h:\n%s\n---\n%s", c.name, c.name, viaHelp, own)
		}
		defined := describe(c).defined
		if len(defined) == 0 {
			t.Errorf("%s: no flags seen", c.name)
		}
		for _, name := range defined {
			if !slices.Contains(flagsIn(own), "--"+name) {
				t.Errorf("labrun %s -h does not name --%s:\n%s", c.name, name, own)
			}
			if !slices.Contains(flagsIn(general), "--"+name) {
				t.Errorf("labrun --help does not name %s's --%s", c.name, name)
			}
		}
		// Each flag's own help line, and its words below it.
		for _, name := range defined {
			if !regexp.MustCompile(`(?m)^  --` + name + `( .*)?\n {6}\S`).MatchString(own) {
				t.Errorf("labrun %s -h: --%s has no line of its own with its words below:\n%s", c.name, name, own)
			}
		}
	}
	for _, want := range []string{"--format table|markdown|json|html", "--poll", "--lang en|de", "scenario NAME|--file F", "labrun help [COMMAND]", "  sweep "} {
		if !strings.Contains(general, want) {
			t.Errorf("labrun --help does not say %q:\n%s", want, general)
		}
	}
}

// TestHelpInGerman: --lang de before -h, and the environment's German,
// speak German in the help too.
func TestHelpInGerman(t *testing.T) {
	for _, args := range [][]string{{"--lang", "de", "--help"}, {"help", "--lang", "de"}, {"help", "matrix", "--lang", "de"}, {"help", "--lang=de", "scenario"}, {"backlog", "--lang", "de", "-h"}} {
		code, out, stderr := runLabrun(args...)
		if code != 0 || !strings.HasPrefix(out, "Aufruf: labrun") {
			t.Errorf("labrun %s: exit %d, stderr %q, output starts %q", strings.Join(args, " "), code, stderr, firstLine(out))
		}
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// TestHelpOfAnUnknownCommandSpeaksTheLanguageAskedFor: exit 2, one line,
// in German when --lang de says so.
func TestHelpOfAnUnknownCommandSpeaksTheLanguageAskedFor(t *testing.T) {
	code, stdout, stderr := runLabrun("help", "nope", "--lang", "de")
	if code != 2 || stdout != "" || !strings.HasPrefix(stderr, `labrun help: unbekannter Befehl "nope" (gültig: summary,`) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestHelpFitsTheScreen: no line of any help passes 100 columns.
func TestHelpFitsTheScreen(t *testing.T) {
	outputs := [][]string{{"--help"}, {"--lang", "de", "--help"}}
	for _, c := range commands() {
		outputs = append(outputs, []string{c.name, "-h"}, []string{c.name, "--lang", "de", "-h"})
	}
	for _, args := range outputs {
		_, out, _ := runLabrun(args...)
		for _, line := range strings.Split(out, "\n") {
			if n := len([]rune(line)); n > width {
				t.Errorf("labrun %s: a line of %d columns: %q", strings.Join(args, " "), n, line)
			}
		}
	}
}
