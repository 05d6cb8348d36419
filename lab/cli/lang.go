package cli

import (
	"bytes"
	"io"

	"outboxlab/lang"
)

// Learner-facing text is a lang.Text, printed in the output's language:
// English by default, German with --lang de or, for Lab.Main, when the
// environment asks for it (lang.Detect). The language travels with the
// output writer, so that runs in one process do not share it. Outcome
// words (LOST, ...), point ids, commands and the chapters' quotes are the
// same in both.

// languageWriter is an output that knows its language.
type languageWriter interface{ language() lang.Lang }

// langOf returns w's language: English unless w says otherwise.
func langOf(w io.Writer) lang.Lang {
	if lw, ok := w.(languageWriter); ok {
		return lw.language()
	}
	return lang.English
}

// german reports whether w is a German output.
func german(w io.Writer) bool { return langOf(w) == lang.German }

// langBuffer is an in-memory output in the language of the output it
// will be copied to.
type langBuffer struct {
	bytes.Buffer
	l lang.Lang
}

func (b *langBuffer) language() lang.Lang { return b.l }

// bufferFor returns a buffer in w's language.
func bufferFor(w io.Writer) *langBuffer {
	return &langBuffer{l: langOf(w)}
}

// langFlag is --lang: it sets the language of the command's output.
type langFlag struct{ out *errWriter }

func (f langFlag) String() string {
	if f.out != nil {
		return f.out.lang.String()
	}
	return lang.English.String()
}

func (f langFlag) Set(s string) error {
	l, err := lang.Parse(s)
	if err != nil {
		return err
	}
	if f.out != nil {
		f.out.lang = l
	}
	return nil
}
