// Package lang is the lab's one way to speak two languages: a Text holds
// a learner-facing sentence in English and in German, a Lang says which
// one to print, and Detect is the one place that reads the choice from a
// flag or the environment.
//
// Outcome words (LOST, ...), crash point and fault ids, commands and the
// chapters' quotes are the same in both languages; everything else a
// learner reads is a Text:
//
//	msg := lang.Textf(lang.Text{
//		EN: "billing applied the change %d times",
//		DE: "Billing hat die Änderung %d-mal angewendet",
//	}, 2)
//	fmt.Println(msg.In(lang.German))
package lang
