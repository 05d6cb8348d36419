package broker

import (
	"time"

	"outboxlab/domain"
)

// ActionKind says what the broker did.
type ActionKind string

// The things a broker does.
const (
	Published     ActionKind = "published"
	PublishFailed ActionKind = "publish-failed"
	TimedOut      ActionKind = "timed-out"
	Delivered     ActionKind = "delivered"
	Acked         ActionKind = "acked"
	Nacked        ActionKind = "nacked"
	Redelivered   ActionKind = "redelivered"
	Requeued      ActionKind = "requeued"
	Duplicated    ActionKind = "duplicated"
	Held          ActionKind = "held"
	Reordered     ActionKind = "reordered"
)

// Action is one entry of the broker's history.
type Action struct {
	At         time.Time
	Kind       ActionKind
	MessageID  string
	Event      domain.Record
	Subscriber string
	Tag        uint64
	// Detail says more of what happened, DetailDE the same in German
	// (labrun --lang de); DetailDE is empty where Detail is an error's
	// text, which is the same in both.
	Detail, DetailDE string
}
