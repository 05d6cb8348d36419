package cli

import (
	"fmt"
	"io"
	"strings"

	"outboxlab/lab/lang"
	"outboxlab/lab/variant"
	"outboxlab/lab/verdict"
	"outboxlab/scenarios"
)

// runGrade is labrun grade: one variant through the lab's grader, as a
// learner's test grades it, with labrun's replay commands.
func runGrade(args []string, stdout io.Writer) error {
	fs := newFlags("grade", "", lang.Text{
		EN: "One variant through the lab's grader, as a learner's test grades it (grade.Variant): one finding per cause, each with the command that replays it, or one line that says what passed. The exit code is the verdict.",
		DE: "Eine Variante durch den Bewerter des Labs, wie ihn der Test eines Teilnehmers nutzt (grade.Variant): ein Befund je Ursache, jeder mit dem Befehl, der ihn wiederholt, oder eine Zeile, die sagt, was bestand. Der Exit-Code ist das Urteil.",
	}, stdout)
	variantName := fs.required("variant", "V", lang.Textf(lang.Text{EN: "the variant to grade: %s", DE: "die Variante, die bewertet wird: %s"}, strings.Join(scenarios.VariantNames(), ", ")))
	depth := fs.depthFlag()
	format := fs.formatFlag("text", "json")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	if *variantName == "" {
		return usagef(lang.Text{EN: "missing --variant (valid: %s)", DE: "--variant fehlt (gültig: %s)"}, strings.Join(scenarios.VariantNames(), ", "))
	}
	v, err := scenarios.FindVariant(*variantName)
	if err != nil {
		return usageFrom(err)
	}
	verdicts, err := gradeAll([]variant.Variant{v}, depth.value)
	if err != nil {
		return err
	}
	vd := verdicts[0]
	if format.value == "json" {
		err = writeJSON(stdout, toJSONVerdict(vd))
	} else {
		writeGrade(stdout, vd)
	}
	if err != nil {
		return err
	}
	if !vd.Passed() {
		return errMismatch
	}
	return nil
}

// writeGrade writes a verdict as a learner reads it: one finding per
// cause with the labrun command that replays it, or one line that says
// what passed.
func writeGrade(w io.Writer, v verdict.Verdict) {
	var stages []string
	for _, s := range v.Stages {
		stages = append(stages, fmt.Sprintf("%s %d", in(w, s.Stage.Text()), s.Runs))
	}
	groups := v.Groups()
	if len(groups) == 0 {
		fmt.Fprintln(w, hanging("", "  ", inf(w, lang.Text{EN: "%s: graded %s runs at depth %s (%s): OK", DE: "%s: %s Läufe bewertet, Tiefe %s (%s): OK"},
			v.Variant, lang.Count(int64(v.Runs())), v.Depth, strings.Join(stages, ", "))))
		return
	}
	fmt.Fprintln(w, hanging("", "  ", inf(w, lang.Text{EN: "%s: %d cause(s) in %s runs at depth %s (%s):", DE: "%s: %d Ursache(n) in %s Läufen, Tiefe %s (%s):"},
		v.Variant, len(groups), lang.Count(int64(v.Runs())), v.Depth, strings.Join(stages, ", "))))
	for _, g := range groups {
		fmt.Fprintln(w)
		fmt.Fprintln(w, g.Report(langOf(w), lang.Text{}, withLang(w, g.First().Run.Labrun(programName(), v.Variant)), width))
	}
}
