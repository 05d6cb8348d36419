package report_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"outboxlab/internal/report"
	"outboxlab/lab/cli"
)

// TestPagesInABrowser loads the three kinds of page in headless Chromium,
// steps through every event with the keyboard, fails on any console error
// or exception, and saves a screenshot of each. It runs with
// OUTBOXLAB_BROWSER=1 (CI installs Debian's chromium and sets it);
// OUTBOXLAB_SCREENSHOTS=DIR keeps the screenshots there, the README's
// pictures under their names in docs/ (see shots), each saying which page
// it shows.
func TestPagesInABrowser(t *testing.T) {
	b := browserOrSkip(t)
	dir := os.Getenv("OUTBOXLAB_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	pages := []struct {
		name string
		args []string
		runs int    // run sections to step through
		shot string // the picture it takes, one of shots ("": none), and its step
		step string
	}{
		{"scenario-after-send-before-sent", shots[0].args, 1, shots[0].name, shots[0].step},
		{"explore-mark-before-send", []string{"explore", "--variant", "mark-before-send", "--runs", "300", "--format", "html"}, 1, "", ""},
		{"matrix", shots[1].args, -1, shots[1].name, ""},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			page, file := pageFile(t, p.name, p.args)
			session := b.open(t)
			t.Logf("%s: %d bytes, loaded in %v", p.name, page.Len(), session.load(t, file).Round(time.Millisecond))

			if p.runs < 0 {
				// The table, before a cell is opened.
				screenshot(t, session, filepath.Join(dir, p.shot), shows(t, p.args, ""))
			}
			runs := session.eval(t, `Array.from(document.querySelectorAll(".run-section")).map(s => s.id)`).([]any)
			if len(runs) == 0 {
				t.Fatal("no run on the page")
			}
			for _, r := range runs {
				id := r.(string)
				if p.runs < 0 { // the matrix: open the cell's run as its link does
					session.eval(t, fmt.Sprintf(`document.querySelector('a[href="#%s"]').click(), true`, id))
				}
				n := int(session.eval(t, fmt.Sprintf(`JSON.parse(document.getElementById("%s-data").textContent).events.length`, id)).(float64))
				session.eval(t, fmt.Sprintf(`document.getElementById("%s-slider").focus(), true`, id))
				session.key(t, "Home")
				for i := 1; i < n; i++ {
					session.key(t, "ArrowRight")
					at := session.eval(t, fmt.Sprintf(`[document.getElementById("%s-slider").value, document.querySelector("#%s-svg .ev.cur").id]`, id, id)).([]any)
					if at[0] != fmt.Sprint(i) || at[1] != fmt.Sprintf("%s-e%d", id, i) {
						t.Fatalf("%s: after %d × ArrowRight the slider is at %v and the diagram at %v", id, i, at[0], at[1])
					}
				}
				got := session.eval(t, fmt.Sprintf(`[document.getElementById("%s-slider").value, document.getElementById("%s-current").textContent, document.querySelectorAll("#%s-tables tr").length, document.getElementById("%s-moment").textContent]`, id, id, id, id)).([]any)
				if got[0] != fmt.Sprint(n-1) || !strings.HasPrefix(got[1].(string), fmt.Sprintf("#%d/%d ", n, n)) || got[2].(float64) == 0 {
					t.Errorf("%s after %d × ArrowRight: slider %v, current %q, %v table rows; want the last of %d events and its tables", id, n-1, got[0], got[1], got[2], n)
				}
				// The tables say which moment they show.
				if !strings.Contains(got[3].(string), fmt.Sprintf(" #%d: ", n)) {
					t.Errorf("%s after %d × ArrowRight: the tables say %q, not that they show the tables after event %d", id, n-1, got[3], n)
				}
				if p.runs < 0 && len(runs) > 3 && id != runs[0] {
					break // the matrix: every cell's link and a few runs are enough
				}
			}
			if p.runs > 0 && p.shot != "" {
				// Back to the event the picture shows.
				i, _ := stepTo(t, page.String(), p.step)
				session.key(t, "Home")
				for range i {
					session.key(t, "ArrowRight")
				}
				screenshot(t, session, filepath.Join(dir, p.shot), shows(t, p.args, p.step))
			}
			// The print stylesheet lays the page out on paper.
			pdf := session.call(t, "Page.printToPDF", map[string]any{"printBackground": false})["data"].(string)
			if n := base64.StdEncoding.DecodedLen(len(pdf)); n < 10_000 {
				t.Errorf("printed, the page is a PDF of %d bytes", n)
			}
			for _, e := range session.errors() {
				t.Errorf("console: %s", e)
			}
		})
	}
	t.Run("100-orders", func(t *testing.T) {
		var page bytes.Buffer
		if err := report.WriteRun(&page, bigRun(t), report.Options{}); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "100-orders.html")
		if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		session := b.open(t)
		took := session.load(t, file)
		t.Logf("100 orders: %d bytes, loaded in %v", page.Len(), took.Round(time.Millisecond))
		if took > 3*time.Second {
			t.Errorf("the 100-order page took %v to load", took)
		}
		n := int(session.eval(t, `JSON.parse(document.getElementById("run-data").textContent).events.length`).(float64))
		session.eval(t, `document.getElementById("run-slider").focus(), true`)
		start := time.Now()
		session.key(t, "End")
		current := session.eval(t, `document.getElementById("run-current").textContent`).(string)
		t.Logf("100 orders: End drew the tables after event %d in %v", n, time.Since(start).Round(time.Millisecond))
		if !strings.HasPrefix(current, fmt.Sprintf("#%d/%d ", n, n)) {
			t.Errorf("after End: %q", current)
		}
		for _, e := range session.errors() {
			t.Errorf("console: %s", e)
		}
	})
}

// browserOrSkip starts headless Chromium, or skips the test without
// OUTBOXLAB_BROWSER=1.
func browserOrSkip(t *testing.T) *browser {
	t.Helper()
	if os.Getenv("OUTBOXLAB_BROWSER") != "1" {
		t.Skip("set OUTBOXLAB_BROWSER=1 to run the pages in headless Chromium")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("OUTBOXLAB_BROWSER=1 but no chromium on PATH: %v", err)
	}
	return startBrowser(t, chromium)
}

// pageFile writes the page labrun args prints into a file named after
// name, and returns the page and the file.
func pageFile(t *testing.T, name string, args []string) (*bytes.Buffer, string) {
	t.Helper()
	var page, stderr bytes.Buffer
	if code := (cli.Lab{Command: "labrun"}).Run(args, &page, &stderr); code > 1 {
		t.Fatalf("labrun %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	file := filepath.Join(t.TempDir(), name+".html")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return &page, file
}

// screenshot saves what the page shows, saying in a text chunk which page
// that is (see TestTheScreenshotsShowWhatLabrunPrints).
func screenshot(t *testing.T, s *session, file, shows string) {
	t.Helper()
	png := s.call(t, "Page.captureScreenshot", map[string]any{"format": "png"})["data"].(string)
	data, err := base64.StdEncoding.DecodeString(png)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, withText(data, shotKey, shows), 0o644); err != nil {
		t.Fatal(err)
	}
}

// browser is headless Chromium driven over its DevTools protocol on a pipe
// (--remote-debugging-pipe: JSON messages ending in NUL on fds 3 and 4).
type browser struct {
	cmd      *exec.Cmd
	in       io.Writer
	mu       sync.Mutex
	next     int
	replies  map[int]chan map[string]any // by message id
	sessions map[string]*session         // events go to their page
}

func startBrowser(t *testing.T, chromium string) *browser {
	toChrome, commands, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	results, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// Chromium's helpers may still write into its profile after it is
	// killed: the profile is removed at the end, best effort, not by
	// t.TempDir (whose removal would fail the test).
	profile, err := os.MkdirTemp("", "outboxlab-chromium")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--remote-debugging-pipe", "--user-data-dir="+profile, "--window-size=1400,1000", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome}     // fds 3 and 4
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers too, for the kill
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toChrome.Close()
	fromChrome.Close()
	b := &browser{cmd: cmd, in: commands, replies: map[int]chan map[string]any{}, sessions: map[string]*session{}}
	go b.read(results)
	t.Cleanup(func() {
		commands.Close()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		for range 20 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	return b
}

func (b *browser) read(r io.Reader) {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 1<<20), 64<<20)
	s.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, 0); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for s.Scan() {
		var m map[string]any
		if json.Unmarshal(s.Bytes(), &m) != nil {
			continue
		}
		if id, ok := m["id"].(float64); ok {
			b.mu.Lock()
			ch := b.replies[int(id)]
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		b.mu.Lock()
		s := b.sessions[fmt.Sprint(m["sessionId"])]
		b.mu.Unlock()
		if s != nil {
			s.handle(m)
		}
	}
}

// send sends a command (to a page's session if session is not "") and
// returns its result.
func (b *browser) send(t *testing.T, session, method string, params map[string]any) map[string]any {
	t.Helper()
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan map[string]any, 1)
	b.replies[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.in.Write(append(data, 0)); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	select {
	case m := <-ch:
		if e, ok := m["error"]; ok {
			t.Fatalf("%s: %v", method, e)
		}
		result, _ := m["result"].(map[string]any)
		return result
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: no answer in 30 s", method)
	}
	return nil
}

// session is one page.
type session struct {
	b    *browser
	id   string
	mu   sync.Mutex
	errs []string
}

func (b *browser) open(t *testing.T) *session {
	t.Helper()
	target := b.send(t, "", "Target.createTarget", map[string]any{"url": "about:blank"})["targetId"]
	id := b.send(t, "", "Target.attachToTarget", map[string]any{"targetId": target, "flatten": true})["sessionId"].(string)
	s := &session{b: b, id: id}
	b.mu.Lock()
	b.sessions[id] = s
	b.mu.Unlock()
	for _, domain := range []string{"Runtime.enable", "Log.enable"} {
		s.call(t, domain, nil)
	}
	return s
}

// handle keeps the page's errors and load events.
func (s *session) handle(m map[string]any) {
	{
		params, _ := m["params"].(map[string]any)
		s.mu.Lock()
		switch m["method"] {
		case "Runtime.exceptionThrown":
			details, _ := params["exceptionDetails"].(map[string]any)
			ex, _ := details["exception"].(map[string]any)
			s.errs = append(s.errs, fmt.Sprintf("%v %v", details["text"], ex["description"]))
		case "Runtime.consoleAPICalled":
			if params["type"] == "error" || params["type"] == "warning" {
				s.errs = append(s.errs, fmt.Sprint(params["args"]))
			}
		case "Log.entryAdded":
			if entry, _ := params["entry"].(map[string]any); entry["level"] == "error" {
				s.errs = append(s.errs, fmt.Sprint(entry["text"]))
			}
		}
		s.mu.Unlock()
	}
}

func (s *session) call(t *testing.T, method string, params map[string]any) map[string]any {
	t.Helper()
	return s.b.send(t, s.id, method, params)
}

// load opens file in the page and returns how long it took until the
// document and its script were done (readyState complete).
func (s *session) load(t *testing.T, file string) time.Duration {
	t.Helper()
	start := time.Now()
	s.call(t, "Page.navigate", map[string]any{"url": "file://" + file})
	for time.Since(start) < 30*time.Second {
		if s.eval(t, `document.readyState === "complete" && location.href`) == "file://"+file {
			return time.Since(start)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s: not loaded in 30 s", file)
	return 0
}

// eval evaluates a JavaScript expression in the page and returns its value.
func (s *session) eval(t *testing.T, expr string) any {
	t.Helper()
	r := s.call(t, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	if ex, ok := r["exceptionDetails"]; ok {
		t.Fatalf("%s: %v", expr, ex)
	}
	v, _ := r["result"].(map[string]any)
	return v["value"]
}

// key presses and releases a key as the keyboard does.
func (s *session) key(t *testing.T, key string) {
	t.Helper()
	codes := map[string]int{"ArrowRight": 39, "ArrowLeft": 37, "Home": 36, "End": 35}
	for _, typ := range []string{"keyDown", "keyUp"} {
		s.call(t, "Input.dispatchKeyEvent", map[string]any{"type": typ, "key": key, "code": key, "windowsVirtualKeyCode": codes[key]})
	}
}

func (s *session) errors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errs...)
}
