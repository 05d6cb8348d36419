package mistakes

import (
	"errors"
	"fmt"

	"outboxlab/alternatives/listen"
	"outboxlab/broker"
	"outboxlab/domain"
	"outboxlab/effect"
	"outboxlab/lang"
	"outboxlab/orders"
	"outboxlab/variant"
)

// DualWriteRetry is dual-write with a retry: when the publish after the
// commit fails, the service tries it again, up to three times.
//
// WRONG, and only less often: a retry outlasts a single lost request, not
// an outage of minutes, and not a crash of the process, whose retries die
// with it. The order is committed and the event is gone as before; the
// retry only moved the window.
//
// Chapter 003 ("Man kann Retry-Logik ergänzen, aber das verschiebt das
// Problem nur").
func DualWriteRetry() variant.Variant {
	v := DualWrite()
	v.Name = "dual-write-retry"
	v.Summary = lang.Text{EN: "dual-write that retries a failed publish three times: a lost request is covered, a crash or an outage is not", DE: "Dual Write, das ein gescheitertes Senden dreimal wiederholt: eine verlorene Anfrage ist abgedeckt, ein Absturz oder ein Ausfall nicht"}
	v.Chapter = "003 \"Man kann Retry-Logik ergänzen, aber das verschiebt das Problem nur\""
	v.Expect = map[string]variant.Outcome{
		"service.after-commit": variant.Lost,
		"broker-outage":        variant.Lost,
		"outage-backlog":       variant.Lost,
		"rejected":             variant.Lost,
	}
	v.NewService = func(env variant.Env) (variant.Service, error) {
		return &dualWriteRetryService{newService(env)}, nil
	}
	return v
}

type dualWriteRetryService struct{ *service }

// Handle is dual-write's Handle with the publish retried. DO NOT COPY.
func (s *dualWriteRetryService) Handle(c orders.Command) error {
	now := s.Clock.Now()
	tx := s.DB.Begin(s.Owner)
	defer tx.Rollback()
	event, err := orders.Decide(tx, c, now)
	if err != nil {
		return err
	}
	if err := s.Gate.Cross(orders.BoundaryCommit, tx.Commit); err != nil {
		return fmt.Errorf("orders: %s: %w", c, err)
	}
	// MISTAKE: still a publish after the commit; retried under the same
	// id (the envelope is made once), but the retries live in this
	// process and this request.
	rec, err := domain.Encode(event)
	if err != nil {
		return err
	}
	msg := broker.Envelope{ID: s.IDs.NewID(), Event: rec}
	for attempt := 1; ; attempt++ {
		err := s.Gate.Cross(listen.BoundaryPublish, func() error { return s.Broker.Publish(msg) })
		if err == nil || errors.Is(err, effect.ErrCrashed) || attempt == 3 {
			return err
		}
	}
}
