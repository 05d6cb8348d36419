package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

// Learner-facing text is English by default and German with --lang de, or
// when LANG or LC_ALL starts with "de" (read by Lab.Main only). The
// language travels with the output writer, so that runs in one process do
// not share it. Outcome words (LOST, ...), point ids, commands and the
// chapters' quotes are the same in both.

// germanByDefault is set by Lab.Main from the environment.
var germanByDefault bool

// germanEnv reports whether the environment asks for German.
func germanEnv() bool {
	for _, v := range []string{os.Getenv("LC_ALL"), os.Getenv("LANG")} {
		if v != "" {
			return strings.HasPrefix(v, "de")
		}
	}
	return false
}

// languageWriter is an output that knows its language.
type languageWriter interface{ german() bool }

// german reports whether w is a German output.
func german(w io.Writer) bool {
	lw, ok := w.(languageWriter)
	return ok && lw.german()
}

// tr returns en in the output's language: German from the catalogue when w
// is German and the catalogue has it, en otherwise.
func tr(w io.Writer, en string) string {
	if german(w) {
		if de, ok := catalogue[en]; ok {
			return de
		}
	}
	return en
}

// trf is tr for a format.
func trf(w io.Writer, format string, args ...any) string {
	return fmt.Sprintf(tr(w, format), args...)
}

// langBuffer is an in-memory output in the language of the output it
// will be copied to.
type langBuffer struct {
	bytes.Buffer
	de bool
}

func (b *langBuffer) german() bool { return b.de }

// bufferFor returns a buffer in w's language.
func bufferFor(w io.Writer) *langBuffer {
	return &langBuffer{de: german(w)}
}

// langFlag is --lang: it sets the language of the command's output.
type langFlag struct{ out *errWriter }

func (f langFlag) String() string {
	if f.out != nil && f.out.de {
		return "de"
	}
	return "en"
}

func (f langFlag) Set(s string) error {
	switch s {
	case "en", "de":
		if f.out != nil {
			f.out.de = s == "de"
		}
		return nil
	}
	return fmt.Errorf("%q is not one of en, de", s)
}
