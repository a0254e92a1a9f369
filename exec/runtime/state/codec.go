// Package state is the runtime's operator state: keyed tables with an
// in-memory backend and an LSM backend, over the value codec of package
// sql (sql.Encoder, sql.Decoder).
package state

import (
	"errors"

	"github.com/sqlrun/sqlrun/sql"
)

// Encoder and Decoder are the checkpoint value codec (package sql), under
// the names operators use.
type (
	Encoder = sql.Encoder
	Decoder = sql.Decoder
)

// ErrCorrupt marks state bytes that do not decode; it matches sql.ErrCorrupt.
var ErrCorrupt = sql.ErrCorruptEncoding

// KeyOf encodes the values at idx of r as a key: equal key values give
// equal bytes. DECIMAL keys are normalized (80.0 and 80.00 are one key, as
// SQL equality says); the codec is otherwise the value codec.
func KeyOf(r sql.Row, idx []int) (string, error) {
	var e Encoder
	if err := AppendKey(&e, r, idx); err != nil {
		return "", err
	}
	return string(e.Buf), nil
}

// AppendKey is KeyOf into a caller's encoder (reuse its buffer on hot paths).
func AppendKey(e *Encoder, r sql.Row, idx []int) error {
	for _, i := range idx {
		if err := e.Key(r.Values[i]); err != nil {
			return err
		}
	}
	return nil
}

// ErrIncompatible marks a checkpoint whose state an operator of the
// current plan cannot take over (Flink's StateMigrationException: the new
// state serializer is incompatible with the old one).
var ErrIncompatible = errors.New("the new state must not be incompatible with the old state")
