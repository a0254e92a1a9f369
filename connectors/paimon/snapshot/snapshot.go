// Package snapshot reads and writes Paimon snapshot files
// (snapshot/snapshot-<id>, paimon-format.md §3), the LATEST/EARLIEST hints,
// consumer files and tags.
//
// A snapshot is the unit of atomicity of a Paimon table: committing is
// creating snapshot-N (N = latest+1) if and only if it does not exist
// (fs.FileIO.WriteFileAtomic). Everything else a commit writes (data files,
// manifests, manifest lists) is invisible until that file exists, and hints
// are only hints: readers verify them.
package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/sqlrun/sqlrun/connectors/paimon/internal/jackson"
)

// Version is the snapshot file version written.
const Version = 3

// BatchCommitIdentifier is the commitIdentifier of batch (non-checkpointed)
// commits: Long.MAX_VALUE.
const BatchCommitIdentifier int64 = math.MaxInt64

// CommitKind is the kind of change a snapshot makes.
type CommitKind string

// The commit kinds.
const (
	Append    CommitKind = "APPEND"
	Compact   CommitKind = "COMPACT"
	Overwrite CommitKind = "OVERWRITE"
	Analyze   CommitKind = "ANALYZE"
)

// Snapshot is one snapshot file. Pointer fields are nullable and omitted
// from the JSON when nil, as Java's @JsonInclude(NON_NULL) does. Field
// order is the order Java 1.4 writes.
type Snapshot struct {
	Version                   int               `json:"version"`
	ID                        int64             `json:"id"`
	SchemaID                  int64             `json:"schemaId"`
	BaseManifestList          string            `json:"baseManifestList"`
	BaseManifestListSize      *int64            `json:"baseManifestListSize,omitempty"`
	DeltaManifestList         string            `json:"deltaManifestList"`
	DeltaManifestListSize     *int64            `json:"deltaManifestListSize,omitempty"`
	ChangelogManifestList     *string           `json:"changelogManifestList,omitempty"`
	ChangelogManifestListSize *int64            `json:"changelogManifestListSize,omitempty"`
	IndexManifest             *string           `json:"indexManifest,omitempty"`
	CommitUser                string            `json:"commitUser"`
	CommitIdentifier          int64             `json:"commitIdentifier"`
	CommitKind                CommitKind        `json:"commitKind"`
	TimeMillis                int64             `json:"timeMillis"`
	TotalRecordCount          *int64            `json:"totalRecordCount,omitempty"`
	DeltaRecordCount          *int64            `json:"deltaRecordCount,omitempty"`
	ChangelogRecordCount      *int64            `json:"changelogRecordCount,omitempty"`
	Watermark                 *int64            `json:"watermark,omitempty"`
	Statistics                *string           `json:"statistics,omitempty"`
	Properties                map[string]string `json:"properties,omitempty"`
	NextRowID                 *int64            `json:"nextRowId,omitempty"`
}

// Int64 returns a pointer to v, for the nullable fields.
func Int64(v int64) *int64 { return &v }

// Get returns *p or 0 when p is nil.
func Get(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// Parse decodes a snapshot file. Unknown keys (logOffsets of ≤1.3, uuid and
// operation of 2.x) are ignored, as Java does; integers are parsed as int64
// so commitIdentifier Long.MAX_VALUE survives.
func Parse(data []byte) (*Snapshot, error) {
	var s Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("parse snapshot: %w", err)
	}
	if s.ID <= 0 {
		return nil, fmt.Errorf("parse snapshot: invalid id %d", s.ID)
	}
	return &s, nil
}

// Marshal encodes s in the 1.4 shape (Jackson pretty print, nulls omitted,
// no logOffsets), readable by Paimon 1.2 through 2.x. The record counts and
// nextRowId, which 1.4 always writes, default to 0.
func (s *Snapshot) Marshal() ([]byte, error) {
	c := *s
	c.normalize()
	return jackson.Marshal(&c)
}

func (s *Snapshot) normalize() {
	s.Version = Version
	if len(s.Properties) == 0 {
		s.Properties = nil
	}
	if s.TotalRecordCount == nil {
		s.TotalRecordCount = Int64(0)
	}
	if s.DeltaRecordCount == nil {
		s.DeltaRecordCount = Int64(0)
	}
	if s.NextRowID == nil {
		s.NextRowID = Int64(0)
	}
}

// Tag is a tag file: a snapshot plus when it was tagged and how long it is
// retained.
type Tag struct {
	Snapshot
	// TagCreateTime is Java's LocalDateTime as an array
	// [year, month, day, hour, minute, second, nano]; nil when absent.
	TagCreateTime []int `json:"tagCreateTime,omitempty"`
	// TagTimeRetained is a Duration in seconds (Jackson writes 3.000000000).
	TagTimeRetained *json.Number `json:"tagTimeRetained,omitempty"`
}

// ParseTag decodes a tag file.
func ParseTag(data []byte) (*Tag, error) {
	var t Tag
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("parse tag: %w", err)
	}
	if t.ID <= 0 {
		return nil, fmt.Errorf("parse tag: invalid snapshot id %d", t.ID)
	}
	return &t, nil
}

// Marshal encodes a tag (the snapshot's fields, then the tag's).
func (t *Tag) Marshal() ([]byte, error) {
	c := *t
	c.Snapshot.normalize()
	return jackson.Marshal(&c)
}

// Consumer is a consumer file: the next snapshot a streaming reader with
// this consumer-id will read. Expiration keeps snapshots ≥ NextSnapshot.
type Consumer struct {
	NextSnapshot int64 `json:"nextSnapshot"`
}

// ParseConsumer decodes a consumer file.
func ParseConsumer(data []byte) (Consumer, error) {
	var c Consumer
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("parse consumer: %w", err)
	}
	return c, nil
}

// Marshal encodes a consumer file ({\n  "nextSnapshot" : N\n}).
func (c Consumer) Marshal() ([]byte, error) { return jackson.Marshal(c) }
