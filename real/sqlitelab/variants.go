package sqlitelab

import (
	"fmt"
	"strings"

	"outboxlab/orders"
)

// Variant is one of the lab's variants as the real parts run it: the
// reference, or the reference with the one change of a mistake, under the
// simulator's name.
type Variant struct {
	Name string
	// handle is the service's use case.
	handle func(*service, orders.Command) error
	// markBeforeSend records SENT before the publish.
	markBeforeSend bool
	// consumerMistake is "" for the reference consumer.
	consumerMistake string
}

// variants are the variants the real parts express, in the matrix's order.
var variants = []Variant{
	{Name: "outbox", handle: (*service).handle},
	{Name: "dual-write", handle: (*service).handleDualWrite},
	{Name: "publish-first", handle: (*service).handlePublishFirst},
	{Name: "separate-tx", handle: (*service).handleSeparateTx},
	{Name: "mark-before-send", handle: (*service).handle, markBeforeSend: true},
	{Name: "non-idempotent-consumer", handle: (*service).handle, consumerMistake: "non-idempotent-consumer"},
	{Name: "dedup-outside-tx", handle: (*service).handle, consumerMistake: "dedup-outside-tx"},
}

// VariantNames lists the variants the real parts express.
func VariantNames() []string {
	var names []string
	for _, v := range variants {
		names = append(names, v.Name)
	}
	return names
}

// FindVariant returns the variant with that name.
func FindVariant(name string) (Variant, error) {
	for _, v := range variants {
		if v.Name == name {
			return v, nil
		}
	}
	return Variant{}, fmt.Errorf("unknown variant %q (the real parts run: %s)", name, strings.Join(VariantNames(), ", "))
}
