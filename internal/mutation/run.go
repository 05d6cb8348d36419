package mutation

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// WriteOverlay writes s's files into dir and returns the overlay file that
// go build -overlay reads.
func WriteOverlay(dir, root string, s Schema) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("mutation: %w", err)
	}
	replace := map[string]string{}
	files := make([]string, 0, len(s.Files))
	for f := range s.Files {
		files = append(files, f)
	}
	sort.Strings(files)
	for i, f := range files {
		copyPath := filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(f)))
		if err := os.WriteFile(copyPath, s.Files[f], 0o644); err != nil {
			return "", fmt.Errorf("mutation: %w", err)
		}
		replace[filepath.Join(abs, f)] = copyPath
	}
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", fmt.Errorf("mutation: %w", err)
	}
	overlay := filepath.Join(dir, "overlay.json")
	return overlay, os.WriteFile(overlay, data, 0o644)
}

// Build compiles the grader (the package at pkg, a main that calls
// ServeGrades) with schema s into dir, and returns the binary's path.
func Build(dir, root, pkg string, s Schema) (string, error) {
	overlay, err := WriteOverlay(dir, root, s)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "grader")
	cmd := exec.Command("go", "build", "-overlay", overlay, "-o", bin, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("mutation: building the mutants: %v\n%s", err, out)
	}
	return bin, nil
}

// Result is what the lab said about one mutant.
type Result struct {
	ID int `json:"id"`
	// Key is the mutant's Key, and Hash its file's (see Hash) when it
	// was graded; both set when results are saved.
	Key  string `json:"key,omitempty"`
	Hash string `json:"hash,omitempty"`
	// Failed lists the rows that went red ("relay.after-send DUPLICATE",
	// "sweep relay.after-claim@1+relay.after-send@2 STUCK",
	// "explore LOST"); none means the mutant survived.
	Failed []string `json:"failed"`
	// Crashed says the mutant panicked or ran past the time limit: killed,
	// by the program itself rather than by a row.
	Crashed string `json:"crashed,omitempty"`
	// Point is the matrix row (a point id) of the reference's first red
	// matrix cell, as the grader typed it (verdict.Finding.Point); "" when
	// no matrix cell of the reference caught the mutant. History.Order
	// counts it; nothing reads it back from Failed's words.
	Point string `json:"point,omitempty"`
}

// Killed reports whether the lab caught the mutant.
func (r Result) Killed() bool { return len(r.Failed) > 0 || r.Crashed != "" }

// Timeout is how long one mutant may take before it counts as hanging.
const Timeout = 90 * time.Second

// Grade runs the grader binary over ids with workers processes at once and
// returns a result per id, in id order. A grader that dies or hangs on a
// mutant marks that mutant crashed and goes on with the next in a new
// process. progress, if not nil, is called after each result.
func Grade(bin string, args []string, ids []int, workers int, progress func(done int)) ([]Result, error) {
	jobs := make([]Job, len(ids))
	for i, id := range ids {
		jobs[i] = Job{Bin: bin, ID: id}
	}
	return GradeJobs(jobs, args, workers, progress)
}

// Job is one mutant to grade and the grader built with it (Build).
type Job struct {
	Bin string
	ID  int
}

// GradeJobs grades jobs as Grade does, the mutants of several builds in
// one queue: no worker waits for the slowest mutant of a build before
// the next build's start. Results are in the order of jobs.
func GradeJobs(jobs []Job, args []string, workers int, progress func(done int)) ([]Result, error) {
	queue := make(chan []Job, len(jobs))
	for lo := 0; lo < len(jobs); {
		hi := lo + 1
		for hi < len(jobs) && hi-lo < 8 && jobs[hi].Bin == jobs[lo].Bin {
			hi++
		}
		queue <- jobs[lo:hi]
		lo = hi
	}
	close(queue)
	var (
		mu      sync.Mutex
		results = map[int]Result{}
		errs    []error
		wg      sync.WaitGroup
	)
	record := func(r Result) {
		mu.Lock()
		results[r.ID] = r
		n := len(results)
		mu.Unlock()
		if progress != nil {
			progress(n)
		}
	}
	for range max(1, workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for batch := range queue {
				ids := make([]int, len(batch))
				for i, j := range batch {
					ids[i] = j.ID
				}
				if err := gradeBatch(batch[0].Bin, args, ids, record); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	out := make([]Result, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, results[j.ID])
	}
	return out, nil
}

// gradeBatch grades ids in one grader process, and restarts it after a
// mutant that crashed it or hung.
func gradeBatch(bin string, args []string, ids []int, record func(Result)) error {
	for len(ids) > 0 {
		done, err := gradeProcess(bin, args, ids, record)
		if err != nil {
			return err
		}
		ids = ids[done:]
	}
	return nil
}

// gradeProcess starts one grader on ids and records what it reports. It
// returns how many ids it finished (a crashed or hanging one included).
func gradeProcess(bin string, args []string, ids []int, record func(Result)) (int, error) {
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = strconv.Itoa(id)
	}
	cmd := exec.Command(bin, append(append([]string(nil), args...), "-mutants", strings.Join(list, ","))...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1") // one core per grader; Grade runs several
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("mutation: %w", err)
	}
	lines := make(chan string)
	go func() {
		s := bufio.NewScanner(stdout)
		s.Buffer(make([]byte, 1<<20), 1<<24)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	done := 0
	timer := time.NewTimer(Timeout)
	defer timer.Stop()
	for done < len(ids) {
		select {
		case line, ok := <-lines:
			if !ok {
				_ = cmd.Wait()
				cause := lastLine(stderr.String())
				if cause == "" {
					cause = "the grader stopped"
				}
				record(Result{ID: ids[done], Crashed: cause})
				return done + 1, nil
			}
			var r Result
			if err := json.Unmarshal([]byte(line), &r); err != nil || r.ID != ids[done] {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				return 0, fmt.Errorf("mutation: the grader said %q for mutant %d", line, ids[done])
			}
			record(r)
			done++
			timer.Reset(Timeout)
		case <-timer.C:
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			record(Result{ID: ids[done], Crashed: fmt.Sprintf("ran past %v", Timeout)})
			return done + 1, nil
		}
	}
	go func() {
		for range lines { // let the reader finish
		}
	}()
	_ = cmd.Wait()
	return done, nil
}

// lastLine returns the first line of a panic, or the last line of s.
func lastLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") {
			return strings.TrimSpace(l)
		}
	}
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// ReadResults reads results written one JSON object per line.
func ReadResults(r io.Reader) ([]Result, error) {
	var out []Result
	d := json.NewDecoder(r)
	for {
		var res Result
		err := d.Decode(&res)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("mutation: %w", err)
		}
		out = append(out, res)
	}
}
