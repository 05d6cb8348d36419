package cli

// catalogue maps learner-facing English text, formats included, to German.
// A text missing here is printed in English.
var catalogue = map[string]string{
	// summary
	"outboxlab: %d variants at %d crash points and faults (%d runs, seed %d)\n\n": "outboxlab: %d Varianten an %d Absturzpunkten und Störungen (%d Läufe, Seed %d)\n\n",
	"✓ at every point":           "✓ an jedem Punkt",
	"; %s: %d runs, all OK":      "; %s: %d Läufe, alle OK",
	"; %s: %d of %d runs FAILED": "; %s: %d von %d Läufen FEHLGESCHLAGEN",
	"%s at %s":                   "%s bei %s",
	" (+%d more)":                " (+%d weitere)",
	"Every cell matches its variant's declaration: the mistakes fail where the chapters say.": "Jede Zelle stimmt mit ihrer Variante überein: die Fehler scheitern, wo die Kapitel es sagen.",
	"%d cell(s) disagree with their variant's declaration (marked !): see `%s matrix`.\n":     "%d Zelle(n) widersprechen der Erwartung ihrer Variante (mit ! markiert): siehe `%s matrix`.\n",
	"\nNext:": "\nAls Nächstes:",
	"every cell, every violation, its replay": "jede Zelle, jede Verletzung, ihre Wiederholung",
	"one mistake's story as a timeline":       "die Geschichte eines Fehlers als Zeitleiste",
	"the variants, points and stories":        "die Varianten, Punkte und Geschichten",
	"random schedules against the reference":  "zufällige Abläufe gegen die Referenz",

	// legend
	"Legend:": "Legende:",
	"the cell disagrees with what the variant declares": "die Zelle widerspricht der Erwartung der Variante",

	// matrix
	"Crash matrix: %d variant(s) x %d points, standard workload (%d commands), seed %d\n\n": "Crash-Matrix: %d Variante(n) x %d Punkte, Standard-Arbeitslast (%d Befehle), Seed %d\n\n",
	"variant":   "Variante",
	"\nPoints:": "\nPunkte:",
	"\n✓ all invariants hold   - never reached   ! disagrees with what the variant declares": "\n✓ alle Invarianten gelten   - nie erreicht   ! widerspricht der Erwartung der Variante",
	"%s at %s: %s, but the variant declares %s\n":                                            "%s bei %s: %s, die Variante erwartet aber %s\n",
	"as declared": "wie erwartet",
	"as declared, but with an error the process should have handled itself":             "wie erwartet, aber mit einem Fehler, den der Prozess selbst hätte behandeln müssen",
	"%s: an error the process should have handled itself (Relay.Run stops at it)":       "%s: ein Fehler, den der Prozess selbst hätte behandeln müssen (Relay.Run hört dabei auf)",
	"  - %s: an error the process should have handled itself (Relay.Run stops at it)\n": "  - %s: ein Fehler, den der Prozess selbst hätte behandeln müssen (Relay.Run hört dabei auf)\n",
	"but the variant declares %s":                             "die Variante erwartet aber %s",
	"%s at %s: %s (%s)\n":                                     "%s bei %s: %s (%s)\n",
	"  replay: ":                                              "  wiederholen: ",
	"Every cell matches its variant's declaration.":           "Jede Zelle stimmt mit der Erwartung ihrer Variante überein.",
	"%d cell(s) disagree with their variant's declaration.\n": "%d Zelle(n) widersprechen der Erwartung ihrer Variante.\n",
	"      replay: ":                                          "      wiederholen: ",

	// scenario
	"Scenario %s, variant %s, seed %d\n":                      "Szenario %s, Variante %s, Seed %d\n",
	"\nOutcome: %s (expected %s)\n":                           "\nErgebnis: %s (erwartet %s)\n",
	"  %s: an error the process should have handled itself\n": "  %s: ein Fehler, den der Prozess selbst hätte behandeln müssen\n",
	"  a failed commit never came back as an error: the process went on as if it had committed (never reached %s)\n": "  ein gescheiterter Commit kam nie als Fehler zurück: der Prozess machte weiter, als wäre gespeichert (nie erreicht: %s)\n",
	"Replay: %s\n": "Wiederholen: %s\n",
	"(The story above is told with the reference, variant outbox. With %s this run ends %s: see below.)": "(Die Geschichte oben ist mit der Referenz erzählt, Variante outbox. Mit %s endet dieser Lauf %s: siehe unten.)",
	"... the same %d event(s) %d more times, until %s ...\n":                                             "... dieselben %d Ereignis(se) noch %d Mal, bis %s ...\n",
	"%s fails at %s: %s": "%s scheitert bei %s: %s",
	"%s %s. Chapter %s.": "%s %s. Kapitel %s.",

	// list
	"mistake": "Fehler",
	"correct": "korrekt",
	"any point above, crashed at its K-th occurrence (default 1)": "jeder Punkt oben, Absturz bei seinem K-ten Vorkommen (Standard 1)",
	"crash": "Absturz",
	"fault": "Störung",

	// explore
	"No counterexample for %s in %d random schedules (seed %d).\n":                         "Kein Gegenbeispiel für %s in %d zufälligen Abläufen (Seed %d).\n",
	"%s broke in %d of %d random schedule(s) (seed %d); the smallest counterexample: %s\n": "%s scheiterte in %d von %d zufälligen Abläufen (Seed %d); das kleinste Gegenbeispiel: %s\n",
	"Shrunk from %d to %d items:\n":                                                        "Verkleinert von %d auf %d Einträge:\n",
	"\nTimeline of the shrunk schedule:":                                                   "\nZeitleiste des verkleinerten Ablaufs:",
	"\nViolations:":                                                                        "\nVerletzungen:",
	"none":                                                                                 "keine",
	"Situations reached, in how many of the %d schedules: %s\n":                            "Erreichte Situationen, in wie vielen der %d Abläufe: %s\n",

	// backlog
	"Backlog after a %s outage at %s events/s: %.0f messages (R·D)\n":                                                     "Rückstau nach einem Ausfall von %s bei %s Ereignissen/s: %.0f Nachrichten (R·D)\n",
	"Drain at %s/s relay throughput, %s/s net: %s (backlog / (P − R))\n":                                                  "Abbau bei %s/s Relay-Durchsatz, %s/s netto: %s (Rückstau / (P − R))\n",
	"The backlog never drains: the relay (%s/s) is not faster than the arrivals (%s/s).\n":                                "Der Rückstau baut sich nie ab: das Relay (%s/s) ist nicht schneller als die Ankünfte (%s/s).\n",
	" (%+.2f%% against the arithmetic)":                                                                                   " (%+.2f%% gegenüber der Rechnung)",
	"Simulated with the real relay: not drained by the end of the simulation.":                                            "Mit dem echten Relay simuliert: bis zum Ende der Simulation nicht abgebaut.",
	"Peak age of the oldest unsent message: %s (%d messages, %d waiting when the broker came back)\n":                     "Höchstes Alter der ältesten ungesendeten Nachricht: %s (%d Nachrichten, %d wartend, als der Broker zurückkam)\n",
	"Without cleanup, %g events/s leave %.0f SENT rows a day in the outbox (chapter 004: 2,000 a day are %.0f a year).\n": "Ohne Bereinigung hinterlassen %g Ereignisse/s %.0f SENT-Zeilen am Tag in der Outbox (Kapitel 004: 2.000 am Tag sind %.0f im Jahr).\n",

	// markdown
	"## Crash matrix\n\n%d variant(s) at %d points, standard workload (%d commands), seed %d.\n\n": "## Crash-Matrix\n\n%d Variante(n) an %d Punkten, Standard-Arbeitslast (%d Befehle), Seed %d.\n\n",
	"| point | kind |":            "| Punkt | Art |",
	"\n### Legend\n\n":            "\n### Legende\n\n",
	"\n### Findings\n\n":          "\n### Befunde\n\n",
	"- **%s** at `%s`: %s (%s)\n": "- **%s** bei `%s`: %s (%s)\n",
	"  - replay: `%s`\n":          "  - wiederholen: `%s`\n",

	// html
	"expected %s": "erwartet %s",
}
