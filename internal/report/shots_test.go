package report_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"outboxlab/internal/longtest"
	"outboxlab/lab/cli"
)

// shots are the README's pictures of the pages: docs/NAME, taken by
// TestPagesInABrowser from the page labrun ARGS writes, stepped to the
// first event whose line has step ("": the page as it opens).
var shots = []struct {
	name, step string
	args       []string
}{
	{"report-scenario.png", "command amend o-1", []string{"scenario", "after-send-before-sent", "--format", "html"}},
	{"report-matrix.png", "", []string{"matrix", "--format", "html", "--variant", "outbox", "--variant", "dual-write", "--variant", "non-idempotent-consumer"}},
}

// refreshShots is the command that takes the pictures anew (from the
// module's root; it needs Chromium).
const refreshShots = "OUTBOXLAB_BROWSER=1 OUTBOXLAB_SCREENSHOTS=$PWD/docs go test -run TestPagesInABrowser ./internal/report"

// shotKey is the PNG text chunk's keyword that says what a picture shows.
const shotKey = "outboxlab-shows"

// TestTheScreenshotsShowWhatLabrunPrints: each picture in docs/ says (in
// a text chunk written when it was taken) which page it shows: the page's
// title (the matrix's says how many points), how many events its run has,
// the one it is stepped to, and a digest of the page's bytes. A picture
// whose page labrun no longer prints byte for byte fails, naming the
// command that takes it anew: the README shows the page as it is. It
// needs no browser; the pictures' pixels are not compared.
func TestTheScreenshotsShowWhatLabrunPrints(t *testing.T) {
	long := longtest.Long(t, "long_cli")
	for _, s := range shots {
		if !long && s.name == "report-matrix.png" {
			continue // the long form's: the matrix page grades the reference at depth course
		}
		png, err := os.ReadFile(filepath.Join("..", "..", "docs", s.name))
		if err != nil {
			t.Fatal(err)
		}
		shown, err := pngText(png, shotKey)
		if err != nil {
			t.Errorf("docs/%s: %v; take it anew: %s", s.name, err, refreshShots)
			continue
		}
		if want := shows(t, s.args, s.step); shown != want {
			t.Errorf("docs/%s shows %q, but labrun %s prints %q now; take it anew: %s", s.name, shown, strings.Join(s.args, " "), want, refreshShots)
		}
	}
}

// shows says what a picture of the page labrun args writes shows,
// stepped to the first event with step: its title, and for a run its
// events and the one it is stepped to.
func shows(t *testing.T, args []string, step string) string {
	t.Helper()
	var page, stderr bytes.Buffer
	if code := (cli.Lab{Command: "labrun"}).Run(args, &page, &stderr); code > 1 {
		t.Fatalf("labrun %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	title := regexp.MustCompile(`<h1>(.*?)</h1>`).FindStringSubmatch(page.String())
	if title == nil {
		t.Fatalf("labrun %s: no title", strings.Join(args, " "))
	}
	out := html.UnescapeString(title[1])
	digest := fmt.Sprintf("page %x", sha256.Sum256(page.Bytes()))[:5+16]
	if step == "" {
		return out + "; " + digest
	}
	i, n := stepTo(t, page.String(), step)
	return fmt.Sprintf("%s; event %d of %d; %s", out, i+1, n, digest)
}

// stepTo returns the index of the first event of the page's run whose
// line has step, and how many events the run has.
func stepTo(t *testing.T, page, step string) (int, int) {
	t.Helper()
	data := regexp.MustCompile(`(?s)<script type="application/json" id="run-data">(.*?)</script>`).FindStringSubmatch(page)
	var run struct {
		Events []struct{ Text string } `json:"events"`
	}
	if data == nil || json.Unmarshal([]byte(data[1]), &run) != nil {
		t.Fatal("the page has no run data")
	}
	for i, e := range run.Events {
		if strings.Contains(e.Text, step) {
			return i, len(run.Events)
		}
	}
	t.Fatalf("no event of the run has %q", step)
	return 0, 0
}

// withText returns png with a text chunk keyword=text after its header.
func withText(png []byte, keyword, text string) []byte {
	const headerEnd = 8 + 8 + 13 + 4 // signature, IHDR's length, type, data and CRC
	data := append([]byte(keyword+"\x00"), text...)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	chunk = append(chunk, "tEXt"...)
	chunk = append(chunk, data...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	return append(append(append([]byte(nil), png[:headerEnd]...), chunk...), png[headerEnd:]...)
}

// pngText returns the text of png's text chunk keyword.
func pngText(png []byte, keyword string) (string, error) {
	if len(png) < 8 || string(png[1:4]) != "PNG" {
		return "", errors.New("not a PNG")
	}
	for at := 8; at+12 <= len(png); {
		n := int(binary.BigEndian.Uint32(png[at:]))
		if at+12+n > len(png) {
			break
		}
		if string(png[at+4:at+8]) == "tEXt" {
			if k, v, ok := strings.Cut(string(png[at+8:at+8+n]), "\x00"); ok && k == keyword {
				return v, nil
			}
		}
		at += 12 + n
	}
	return "", fmt.Errorf("no %q text chunk: it does not say which page it shows", keyword)
}

func TestATextChunkIsReadBack(t *testing.T) {
	// The smallest PNG: a 1x1 grey pixel.
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x00\x00\x00\x00:~\x9bU\x00\x00\x00\nIDATx\x9cc`\x00\x00\x00\x02\x00\x01H\xaf\xa4q\x00\x00\x00\x00IEND\xaeB`\x82")
	if _, err := pngText(png, shotKey); err == nil {
		t.Error("a PNG without the chunk says what it shows")
	}
	got, err := pngText(withText(png, shotKey, "Crash matrix: 3 variant(s) x 30 points"), shotKey)
	if err != nil || got != "Crash matrix: 3 variant(s) x 30 points" {
		t.Errorf("read back %q, %v", got, err)
	}
}
