// Package langtest finds English in output that should be German: the
// check behind the tests that run labrun and a grading with --lang de
// (and -lab.lang=de) and fail on an English sentence.
//
// What is the same in both languages is left out before it looks: ids
// (anything with a dot, slash, hyphen, underscore, colon, @ or #, such as
// relay.after-send, o-1#1, mark-before-send), words in capitals (LOST,
// SENT, IN_FLIGHT), numbers, quotes ("…", „…“: a chapter's words or the
// output a claim expects), text in backticks and the commands labrun
// prints (go run ./cmd/labrun ..., labrun ...). What is left is prose; a
// line whose prose has English words is English.
package langtest
