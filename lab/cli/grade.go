package cli

import (
	"fmt"
	"io"
	"strings"

	"outboxlab/lab/verdict"
	"outboxlab/lang"
	"outboxlab/scenarios"
	"outboxlab/variant"
)

// runGrade is labrun grade: one variant through the lab's grader, as a
// learner's test grades it, with labrun's replay commands.
func runGrade(args []string, stdout io.Writer) error {
	fs := newFlags("grade", "", lang.Text{
		EN: "One variant through the lab's grader, as a learner's test grades it (grade.Variant): one finding per cause, each with the command that replays it, or one line that says what passed. The exit code is the verdict: 0 when every run is as the variant declares (the line says OK when every run is OK, and for a mistake \"fails as declared\" with where and how), 1 when a run disagrees, 2 on bad usage.",
		DE: "Eine Variante durch den Bewerter des Labors, wie ihn der Test eines Teilnehmers nutzt (grade.Variant): ein Befund je Ursache, jeder mit dem Befehl, der ihn wiederholt, oder eine Zeile, die sagt, was bestand. Der Exit-Code ist das Urteil: 0, wenn jeder Lauf so endet, wie die Variante es erwartet (die Zeile sagt OK, wenn jeder Lauf OK ist, und für einen Fehler „scheitert wie erwartet“ samt Ort und Art), 1, wenn ein Lauf widerspricht, 2 bei falscher Bedienung.",
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
		writeGrade(stdout, vd, v)
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
// what passed: "OK" for a variant whose every run was OK, and for a
// mistake that failed only where it declares, how it failed, with the
// chapter that tells it.
func writeGrade(w io.Writer, vd verdict.Verdict, v variant.Variant) {
	var stages []string
	for _, s := range vd.Stages {
		stages = append(stages, fmt.Sprintf("%s %s", in(w, s.Stage.Text()), in(w, lang.Count(int64(s.Runs)))))
	}
	groups := vd.Groups()
	if len(groups) == 0 {
		fmt.Fprintln(w, lang.Wrap("", "  ", inf(w, lang.Text{EN: "%s: graded %s runs at depth %s (%s): %s", DE: "%s: %s Läufe bewertet, Tiefe %s (%s): %s"},
			vd.Variant, lang.Count(int64(vd.Runs())), vd.Depth, strings.Join(stages, ", "), passedText(vd, v)), width))
		return
	}
	fmt.Fprintln(w, lang.Wrap("", "  ", inf(w, lang.Text{EN: "%s: %d cause(s) in %s runs at depth %s (%s):", DE: "%s: %d Ursache(n) in %s Läufen, Tiefe %s (%s):"},
		vd.Variant, len(groups), lang.Count(int64(vd.Runs())), vd.Depth, strings.Join(stages, ", ")), width))
	if u := vd.Untested(); u.EN != "" {
		fmt.Fprintln(w, lang.Wrap("  ", "  ", in(w, u), width))
	}
	for _, g := range groups {
		fmt.Fprintln(w)
		fmt.Fprintln(w, g.Report(langOf(w), lang.Text{}, withLang(w, g.First().Run.Command(programName())), width))
	}
}

// passedText says what a verdict without findings means (see
// verdict.Verdict.PassedText), with the variant's chapter.
func passedText(vd verdict.Verdict, v variant.Variant) lang.Text {
	return vd.PassedText(scenarios.ChapterText(v.Chapter))
}
