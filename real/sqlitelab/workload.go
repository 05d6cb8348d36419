package sqlitelab

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"outboxlab/orders"
)

// serviceProc is an instance of the order service as the parent drives it:
// one command at a time, answered on its stdout.
type serviceProc struct {
	name string
	c    *child
	// answers carries its answers, and is closed when its stdout ends (it
	// died).
	answers chan string
	// busy is the command it has not answered yet, nil when it is idle.
	busy *orders.Command
	// stalled tells that the process froze at its stall.
	stalled chan struct{}
}

// serviceNames are the instances' names.
func (r *run) serviceNames() []string {
	if r.cfg.Services == 1 {
		return []string{"service"}
	}
	return []string{"service-1", "service-2"}
}

// route names the instance that takes command i.
func (r *run) route(i int) string {
	if r.cfg.Route != nil {
		return r.cfg.Route[i]
	}
	names := r.serviceNames()
	return names[i%len(names)]
}

// startService starts (or restarts) an instance.
func (r *run) startService(s *serviceProc) error {
	c, err := r.spawn("service", s.name)
	if err != nil {
		return err
	}
	s.c, s.busy, s.answers = c, nil, make(chan string)
	go func(out chan<- string) {
		defer close(out)
		for {
			line, err := c.stdout.ReadString('\n')
			if err != nil {
				return
			}
			out <- line
		}
	}(s.answers)
	return nil
}

// workload hands the commands to the service instances, one at a time, as
// their clients would. A command an instance died on is not sent again
// (its client got no answer); the instance is restarted for the next one.
// A command that reaches an instance that froze (a slow commit) is left
// with it, and the next goes on to the other instance.
func (r *run) workload() error {
	services := map[string]*serviceProc{}
	for _, name := range r.serviceNames() {
		s := &serviceProc{name: name, stalled: make(chan struct{}, 1)}
		r.mu.Lock()
		r.stalled[name] = s.stalled
		r.mu.Unlock()
		if err := r.startService(s); err != nil {
			return err
		}
		services[name] = s
	}
	w, err := r.watch()
	if err != nil {
		return err
	}
	defer w.close()
	if !waitUntil(func() bool { return r.allReady() || r.failure() != nil }, 20*time.Second) {
		return fmt.Errorf("sqlitelab: the relays and billing did not start within 20 s")
	}
	for i, c := range r.cfg.Workload {
		if i > 0 && !r.cfg.Burst {
			if err := r.waitUntilTaken(w); err != nil {
				return err
			}
		}
		s := services[r.route(i)]
		if s == nil {
			return fmt.Errorf("sqlitelab: command %d (%s) routed to %q (valid: %s)", i, c, r.route(i), strings.Join(r.serviceNames(), ", "))
		}
		if err := r.hand(s, c); err != nil {
			return err
		}
	}
	for _, name := range r.serviceNames() {
		s := services[name]
		if err := r.settle(s); err != nil {
			return err
		}
		s.c.stdin.Close()
		r.wait(s.c)
	}
	return r.failure()
}

// hand gives c to s once s is idle, and waits for its answer or its stall.
func (r *run) hand(s *serviceProc, c orders.Command) error {
	if err := r.settle(s); err != nil {
		return err
	}
	line, err := json.Marshal(toWire(c))
	if err != nil {
		return fmt.Errorf("sqlitelab: command %s: %w", c, err)
	}
	s.busy = &c
	if _, err := fmt.Fprintf(s.c.stdin, "%s\n", line); err != nil {
		return r.answered(s, "", false) // it died before it read the command
	}
	select {
	case answer, ok := <-s.answers:
		return r.answered(s, answer, ok)
	case <-s.stalled:
		return nil // it answers once it is resumed: settle waits for that
	}
}

// settle waits until s answered its command, if it has one outstanding.
func (r *run) settle(s *serviceProc) error {
	if s.busy == nil {
		return nil
	}
	answer, ok := <-s.answers
	return r.answered(s, answer, ok)
}

// answered takes an instance's answer to its command; without one (its
// stdout ended) the instance died, and is restarted if it was killed.
func (r *run) answered(s *serviceProc, answer string, ok bool) error {
	c := s.busy
	s.busy = nil
	if ok {
		if answer == "ok\n" {
			r.mu.Lock()
			r.acknowledged = append(r.acknowledged, c.OrderID)
			r.mu.Unlock()
		}
		return nil
	}
	if killed := r.wait(s.c); !killed {
		if err := r.failure(); err != nil {
			return err
		}
		return fmt.Errorf("sqlitelab: %s ended at %s", s.name, c)
	}
	if err := r.startService(s); err != nil {
		return err
	}
	r.restarted(s.c)
	return nil
}
