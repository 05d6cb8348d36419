package varianttest

import (
	"errors"

	"outboxlab/effect"
	"outboxlab/orders"
	"outboxlab/variant"
)

// serviceSlip names what the service frame does wrong; "" is nothing.
type serviceSlip struct{ name string }

// serviceSlips are the service frame's slips.
func serviceSlips() []Slip {
	return slipsOf("service", [][2]string{
		{"says-ok-on-failed-commits", "tells its client a command succeeded whose commit failed"},
		{"swallows-its-crash", "answers its client although its process crashed under the command"},
		{"panics-on-an-amendment", "panics on an amendment it was never taught"},
	}, func(name string, from int) variant.Variant {
		v := variant.Outbox()
		v.NewService = newService(serviceSlip{name}, from)
		return v
	})
}

// newService builds the service frame, the reference order service
// behind the learner's handler, with slip acting from its from-th
// occasion on.
func newService(slip serviceSlip, from int) func(variant.Env) (variant.Service, error) {
	return func(env variant.Env) (variant.Service, error) {
		ref, err := variant.NewOutboxService(env)
		return &service{Service: ref, slip: slip, occasions: occasions{from: from}}, err
	}
}

// service is the learner's handler around the reference service.
type service struct {
	variant.Service
	slip      serviceSlip
	occasions occasions
}

func (s *service) slipped(name string) bool { return s.slip.name == name && s.occasions.now() }

func (s *service) Handle(c orders.Command) error {
	if c.Kind == orders.Amend && s.slipped("panics-on-an-amendment") {
		panic("TODO: amendments")
	}
	err := s.Service.Handle(c)
	switch {
	case err == nil:
	case errors.Is(err, effect.ErrCrashed) && s.slipped("swallows-its-crash"):
		return nil
	case !errors.Is(err, effect.ErrCrashed) && s.slipped("says-ok-on-failed-commits"):
		return nil
	}
	return err
}
