package table

import (
	"encoding/json"
	"fmt"

	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
)

// CommitMessage is what one (partition, bucket) writer hands to the commit
// (Paimon's CommitMessageImpl): the APPEND part (new data files, input
// changelog) and the COMPACT part (compaction inputs and outputs, upgrades
// as the same file at two levels, compaction changelog).
type CommitMessage struct {
	Partition        []byte                  `json:"partition"`
	Bucket           int                     `json:"bucket"`
	TotalBuckets     int32                   `json:"totalBuckets"`
	NewFiles         []manifest.DataFileMeta `json:"newFiles,omitempty"`
	NewChangelog     []manifest.DataFileMeta `json:"newChangelog,omitempty"`
	CompactBefore    []manifest.DataFileMeta `json:"compactBefore,omitempty"`
	CompactAfter     []manifest.DataFileMeta `json:"compactAfter,omitempty"`
	CompactChangelog []manifest.DataFileMeta `json:"compactChangelog,omitempty"`
	// NewIndexFiles are the index files of the APPEND part (the bucket's
	// new HASH index file in dynamic bucket mode), ADD entries.
	NewIndexFiles []manifest.IndexManifestEntry `json:"newIndexFiles,omitempty"`
	// CompactIndexFiles are the index files of the COMPACT part (the
	// bucket's new DELETION_VECTORS index file), ADD entries.
	CompactIndexFiles []manifest.IndexManifestEntry `json:"compactIndexFiles,omitempty"`
}

// Empty reports a message with nothing to commit.
func (m *CommitMessage) Empty() bool {
	return len(m.NewFiles)+len(m.NewChangelog)+len(m.CompactBefore)+len(m.CompactAfter)+len(m.CompactChangelog)+len(m.NewIndexFiles)+len(m.CompactIndexFiles) == 0
}

// messagesVersion guards the committable encoding: a checkpoint written by
// another encoding is refused rather than misread.
const messagesVersion = 1

type messagesJSON struct {
	Version  int             `json:"version"`
	Messages []CommitMessage `json:"messages"`
}

// EncodeMessages serializes commit messages as a committable (JSON with a
// version; file records keep every DataFileMeta field).
func EncodeMessages(msgs []CommitMessage) ([]byte, error) {
	b, err := json.Marshal(messagesJSON{Version: messagesVersion, Messages: msgs})
	if err != nil {
		return nil, fmt.Errorf("encode paimon commit messages: %w", err)
	}
	return b, nil
}

// DecodeMessages reverses EncodeMessages.
func DecodeMessages(b []byte) ([]CommitMessage, error) {
	var m messagesJSON
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("decode paimon commit messages: %w", err)
	}
	if m.Version != messagesVersion {
		return nil, fmt.Errorf("decode paimon commit messages: unsupported version %d", m.Version)
	}
	return m.Messages, nil
}
