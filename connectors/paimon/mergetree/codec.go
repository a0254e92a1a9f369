package mergetree

import (
	"fmt"

	"github.com/sqlrun/sqlrun/sql"
)

// The record codec serializes a KV for local files the merge tree owns (the
// disk lookup index): the key's values, the sequence number, the row kind
// and the value's values, each value in sql's tagged value codec (the one
// checkpoints use, sql.Encoder), so one codec serves every schema. The
// files are private to the process that builds them (DiskLookup builds
// each on first use and never reopens one), so the format carries no
// version.

func appendRecord(b []byte, r *KV) ([]byte, error) {
	e := sql.Encoder{Buf: b}
	if err := e.Values(r.Key); err != nil {
		return nil, fmt.Errorf("mergetree: lookup record key: %w", err)
	}
	e.Varint(r.Seq)
	e.Buf = append(e.Buf, byte(r.Kind))
	if err := e.Values(r.Value); err != nil {
		return nil, fmt.Errorf("mergetree: lookup record value: %w", err)
	}
	return e.Buf, nil
}

// corruptRecord wraps a decoding failure (it matches sql.ErrCorrupt).
func corruptRecord(err error) error {
	return fmt.Errorf("mergetree: corrupt lookup record: %w", err)
}

// decodeRecord reads the record at d's position.
func decodeRecord(d *sql.Decoder) (*KV, error) {
	key, err := d.Values()
	if err != nil {
		return nil, corruptRecord(err)
	}
	r := &KV{Key: key}
	if r.Seq, err = d.Varint(); err != nil {
		return nil, corruptRecord(err)
	}
	k, err := d.Byte()
	if err != nil {
		return nil, corruptRecord(err)
	}
	if r.Kind = sql.RowKind(k); !r.Kind.Valid() {
		return nil, corruptRecord(fmt.Errorf("%w: row kind %d", sql.ErrCorruptEncoding, k))
	}
	if r.Value, err = d.Values(); err != nil {
		return nil, corruptRecord(err)
	}
	return r, nil
}

// decodeKey reads only the key of the record at d's position, moves past
// the rest of the record without building it, and returns the key's
// encoded length.
func decodeKey(d *sql.Decoder) ([]any, int, error) {
	start := d.Off
	key, err := d.Values()
	n := d.Off - start
	if err == nil {
		_, err = d.Varint()
	}
	if err == nil {
		_, err = d.Byte()
	}
	if err == nil {
		err = d.SkipValues()
	}
	if err != nil {
		return nil, 0, corruptRecord(err)
	}
	return key, n, nil
}
