package lang

import "strings"

// Wrap breaks text into lines of at most width runes at its spaces: the
// first line after first, the others after rest. A word longer than a
// line stays whole; a first that ends in a non-blank (a label such as
// "usage:") is followed by a space. It is the lab's one line-wrapper:
// findings, timelines' notes, help screens, labrun-real's help.
func Wrap(first, rest, text string, width int) string {
	var b strings.Builder
	line := first
	for _, word := range strings.Fields(text) {
		if len([]rune(line))+1+len([]rune(word)) > width && strings.TrimSpace(line) != "" {
			b.WriteString(line + "\n")
			line = rest
		}
		if strings.TrimSpace(line) != "" && !strings.HasSuffix(line, " ") {
			line += " "
		}
		line += word
	}
	return b.String() + line
}

// WrapParts is Wrap for parts that each stay on one line (a flag and its
// value, "[--seed N]"): a line breaks between parts, never inside one.
func WrapParts(first, rest string, parts []string, width int) string {
	glued := make([]string, len(parts))
	for i, p := range parts {
		glued[i] = strings.ReplaceAll(p, " ", "\x00")
	}
	return strings.ReplaceAll(Wrap(first, rest, strings.Join(glued, " "), width), "\x00", " ")
}
