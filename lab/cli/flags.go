package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"outboxlab/lang"
)

// flags is a command's flag set: errors become usage errors instead of an
// exit, and -h prints the command's help (see help.go). Every flag is
// declared with the words its help says about it, in both languages.
type flags struct {
	*flag.FlagSet
	// positional is what the command takes besides flags ("NAME"), for
	// its synopsis.
	positional string
	about      lang.Text
	docs       []flagDoc
	stdout     io.Writer
}

// flagDoc is what the help says about one flag.
type flagDoc struct {
	name string
	// value names the flag's value in the synopsis ("N",
	// "text|json"); "" for a switch.
	value string
	// required flags are shown without brackets, repeated ones with
	// "..."; a positional one is part of the synopsis's positional
	// ("NAME|--file F") and not shown again.
	required, repeated, positional bool
	text                           lang.Text
}

// newFlags returns the flag set of command name, which takes positional
// (e.g. "NAME|--file F", or "") besides its flags and does what about
// says. --lang is every command's.
func newFlags(name, positional string, about lang.Text, stdout io.Writer) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // errors are reported once, by run
	f := &flags{FlagSet: fs, positional: positional, about: about, stdout: stdout}
	out, _ := stdout.(*errWriter)
	fs.Var(langFlag{out}, "lang", "")
	return f
}

// langDoc is what the help says about --lang; it comes last in every
// command's help.
var langDoc = flagDoc{name: "lang", value: "en|de", text: lang.Text{
	EN: "the language of the output, en or de (default: de when LC_ALL, or else LANG, starts with de)",
	DE: "die Sprache der Ausgabe, en oder de (Standard: de, wenn LC_ALL, sonst LANG, mit de beginnt)",
}}

func (f *flags) doc(d flagDoc) { f.docs = append(f.docs, d) }

// text adds an optional flag with a value, named value in the synopsis.
func (f *flags) text(name, value string, text lang.Text) *string {
	f.doc(flagDoc{name: name, value: value, text: text})
	return f.String(name, "", "")
}

// required adds a flag the command cannot do without.
func (f *flags) required(name, value string, text lang.Text) *string {
	f.doc(flagDoc{name: name, value: value, required: true, text: text})
	return f.String(name, "", "")
}

// alternative adds a flag that stands instead of the positional argument
// ("NAME|--file F").
func (f *flags) alternative(name, value string, text lang.Text) *string {
	f.doc(flagDoc{name: name, value: value, positional: true, text: text})
	return f.String(name, "", "")
}

// boolean adds a switch.
func (f *flags) boolean(name string, text lang.Text) *bool {
	f.doc(flagDoc{name: name, text: text})
	return f.Bool(name, false, "")
}

// repeated adds a flag that may be given more than once.
func (f *flags) repeated(name, value string, text lang.Text) *list {
	var l list
	f.doc(flagDoc{name: name, value: value, repeated: true, text: text})
	f.Var(&l, name, "")
	return &l
}

// formatFlag adds --format with the given choices; the first is the default.
func (f *flags) formatFlag(choices ...string) *choice {
	c := &choice{value: choices[0], choices: choices}
	all := strings.Join(choices, ", ")
	f.doc(flagDoc{name: "format", value: strings.Join(choices, "|"), text: lang.Text{
		EN: fmt.Sprintf("the output's format: %s (default %s)", all, choices[0]),
		DE: fmt.Sprintf("das Format der Ausgabe: %s (Standard %s)", all, choices[0]),
	}})
	f.Var(c, "format", "")
	return c
}

// names lists the command's flags as they are typed: --variant, ...
func (f *flags) names() string {
	var names []string
	for _, d := range append(f.docs, langDoc) {
		names = append(names, "--"+d.name)
	}
	return strings.Join(names, ", ")
}

// parse parses flags, accepting positional arguments before and after them,
// and returns the positional arguments.
func parse(fs *flags, args []string) ([]string, error) {
	setLanguageFirst(fs, args)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.help()
				return nil, err
			}
			return nil, fs.explain(err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// setLanguageFirst sets --lang before the other flags are parsed, so that
// an error in a flag before it is in its language. A bad value is left
// to the parse, which reports it.
func setLanguageFirst(fs *flags, args []string) {
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "lang" {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		if _, err := lang.Parse(value); err == nil {
			_ = fs.Set("lang", value) // parsed above: cannot fail
		}
	}
}

// explain turns an error of package flag into a usage error that names
// the flag as it is typed (--seed, not -seed) and, for an unknown one,
// the valid flags.
func (f *flags) explain(err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return usageText(lang.Textf(lang.Text{
			EN: "unknown flag --%s (valid: %s; `labrun %s -h` says what each does)",
			DE: "unbekannter Schalter --%s (gültig: %s; `labrun %s -h` sagt, was jeder tut)",
		}, strings.TrimLeft(name, "-"), f.names(), f.Name()))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return usageText(lang.Textf(lang.Text{
			EN: "--%s needs a value (`labrun %s -h` says which)",
			DE: "--%s braucht einen Wert (`labrun %s -h` sagt, welchen)",
		}, strings.TrimLeft(name, "-"), f.Name()))
	}
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if value, err := strconv.QuotedPrefix(rest); err == nil {
			if rest, ok := strings.CutPrefix(rest[len(value):], " for flag -"); ok {
				if name, reason, ok := strings.Cut(rest, ": "); ok {
					return usagef(lang.Text{EN: "--%s %s: %s", DE: "--%s %s: %s"}, name, value, reason)
				}
			}
		}
	}
	return usageError{msg: msg}
}

// parseFlagsOnly parses a command that takes no positional argument.
func parseFlagsOnly(fs *flags, args []string) error {
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef(lang.Text{EN: "unexpected argument %q (%s takes only flags)", DE: "unerwartetes Argument %q (%s nimmt nur Schalter)"}, rest[0], fs.Name())
	}
	return nil
}

// choice is a flag whose value must be one of a fixed set.
type choice struct {
	value   string
	choices []string
}

func (c *choice) String() string { return c.value }

func (c *choice) Set(s string) error {
	for _, v := range c.choices {
		if v == s {
			c.value = s
			return nil
		}
	}
	return fmt.Errorf("%q is not one of %s", s, strings.Join(c.choices, ", "))
}

// list is a repeatable flag.
type list []string

func (l *list) String() string { return strings.Join(*l, ",") }

func (l *list) Set(s string) error {
	*l = append(*l, s)
	return nil
}
