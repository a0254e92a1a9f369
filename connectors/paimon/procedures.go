package paimon

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// This file holds the table maintenance that Paimon exposes as Flink
// procedures (CALL sys.compact, sys.expire_snapshots,
// sys.expire_partitions, sys.create_tag, sys.delete_tag) and that `sqlrun compact` runs: each works on a table
// directory, so catalog tables and 'path' tables share them.

// CompactRequest is what CALL sys.compact and `sqlrun compact` ask for.
type CompactRequest struct {
	// Full is compact_strategy => 'full' (every bucket rewritten into the
	// top level); false is 'minor' (the normal universal-compaction pick).
	Full bool
	// Partitions are the 'partitions' argument, "k1=v1,k2=v2;k1=v3": any
	// of these specs (all of a spec's keys equal) is compacted; nil
	// compacts every partition.
	Partitions []map[string]string
	// Options are dynamic table options ('options' argument, "k=v,k=v").
	Options map[string]string
	// TempDir holds lookup indexes ("" = the system temp directory).
	TempDir string
	// Streaming is a compaction in streaming mode (sqlrun compacts once);
	// Paimon refuses it for postpone bucket tables.
	Streaming bool
}

// ParsePartitions parses Paimon's partitions argument: specs separated
// by ';', each "k=v" pairs separated by ','.
func ParsePartitions(s string) ([]map[string]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []map[string]string
	for _, spec := range strings.Split(s, ";") {
		if strings.TrimSpace(spec) == "" {
			continue
		}
		m, err := ParseKV(spec)
		if err != nil {
			return nil, fmt.Errorf("partitions %q: %w", s, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// ParseKV parses "k1=v1,k2=v2" (Paimon's ParameterUtils.parseCommaSeparatedKeyValues).
func ParseKV(s string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, sql.Errorf(sql.IllegalArgumentException, "Invalid key-value pair '%s': expected key=value.", kv)
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return m, nil
}

func openTable(path string, dyn map[string]string) (*table.Table, error) {
	// table.Open's errors name the path already.
	return table.Open(tableFS(path), trimFileScheme(path), dynamicOf(dyn))
}

// Compact runs one compaction of the Paimon table at path and commits it
// as a COMPACT snapshot (with the changelog of lookup and full-compaction
// producers). It works on write-only tables. It returns the snapshots
// created, none when there was nothing to compact; append tables have
// nothing to compact.
func Compact(path string, req CompactRequest) ([]int64, error) {
	t, err := openTable(path, req.Options)
	if err != nil {
		return nil, err
	}
	o := table.CompactOptions{Full: req.Full, TempDir: req.TempDir, Streaming: req.Streaming}
	if len(req.Partitions) > 0 {
		names := t.PartNames
		for _, spec := range req.Partitions {
			for k := range spec {
				if !contains(names, k) {
					return nil, sql.Errorf(sql.IllegalArgumentException, "Partition key '%s' is not a partition key of table %s (partition keys: %v).", k, path, names)
				}
			}
		}
		o.Partition = func(values []any) bool {
			for _, spec := range req.Partitions {
				match := true
				for i, n := range names {
					if want, ok := spec[n]; ok && i < len(values) && partValue(values[i]) != want {
						match = false
						break
					}
				}
				if match {
					return true
				}
			}
			return false
		}
	}
	ids, err := table.Compact(t, o)
	if err != nil {
		return nil, fmt.Errorf("compact paimon table %s: %w", path, err)
	}
	return ids, nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// partValue renders a partition value as a partition spec writes it.
func partValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case decimal.Decimal:
		return x.String()
	}
	return fmt.Sprint(v)
}

// ExpireRequest is CALL sys.expire_snapshots' arguments; zero values keep
// the table's own settings.
type ExpireRequest struct {
	RetainMax, RetainMin int
	// OlderThan expires snapshots committed before it (zero: the table's
	// snapshot.time-retained).
	OlderThan time.Time
}

// ExpireSnapshots expires snapshots of the table at path as the procedure
// asks, never deleting a file that a retained snapshot, a tag or a live
// consumer still needs; it returns how many snapshots were expired.
func ExpireSnapshots(path string, req ExpireRequest, now time.Time) (int, error) {
	dyn := map[string]string{}
	if req.RetainMax > 0 {
		dyn["snapshot.num-retained.max"] = fmt.Sprint(req.RetainMax)
	}
	if req.RetainMin > 0 {
		dyn["snapshot.num-retained.min"] = fmt.Sprint(req.RetainMin)
	}
	if !req.OlderThan.IsZero() {
		d := now.Sub(req.OlderThan)
		if d < 0 {
			d = 0
		}
		dyn["snapshot.time-retained"] = fmt.Sprintf("%d ms", d.Milliseconds())
	}
	t, err := openTable(path, dyn)
	if err != nil {
		return 0, err
	}
	// A decoupled changelog lifecycle ('changelog.num-retained.*') would
	// keep changelog files Paimon keeps and sqlrun deletes: refused as on
	// write.
	if err := coreoptions.CheckWrite(path, t.Options.Raw()); err != nil {
		return 0, fmt.Errorf("expire snapshots of paimon table %s: %w", path, err)
	}
	n, err := t.ExpireSnapshots(now)
	if err != nil {
		return 0, fmt.Errorf("expire snapshots of paimon table %s: %w", path, err)
	}
	return n, nil
}

// ExpirePartitionsRequest is CALL sys.expire_partitions' arguments; empty
// ones keep the table's options.
type ExpirePartitionsRequest struct {
	ExpirationTime, TimestampFormatter, TimestampPattern, ExpireStrategy string
	// MaxExpires is max_expires (nil: the table's
	// 'partition.expiration-max-num').
	MaxExpires *int
	// Options are dynamic table options ('options' argument, "k=v,k=v").
	Options map[string]string
}

// ExpirePartitions drops the expired partitions of the table at path now,
// as Paimon's ExpirePartitionsProcedure does: the arguments become the
// dynamic options 'partition.expiration-*' and 'partition.timestamp-*'
// (ProcedureUtils.fillInPartitionOptions, with a check interval of 0),
// and the table's PartitionExpire runs once with commit user "" and
// identifier Long.MAX_VALUE. It returns the partitions dropped as Paimon
// prints them ("k1=v1, k2=v2").
func ExpirePartitions(path string, req ExpirePartitionsRequest, now time.Time) ([]string, error) {
	dyn := map[string]string{}
	for k, v := range req.Options {
		dyn[k] = v
	}
	for k, v := range map[string]string{
		"partition.expiration-strategy":       req.ExpireStrategy,
		"partition.timestamp-formatter":       req.TimestampFormatter,
		"partition.timestamp-pattern":         req.TimestampPattern,
		"partition.expiration-time":           req.ExpirationTime,
		"partition.expiration-check-interval": "0",
	} {
		if strings.TrimSpace(v) != "" {
			dyn[k] = v
		}
	}
	if req.MaxExpires != nil {
		dyn["partition.expiration-max-num"] = fmt.Sprint(*req.MaxExpires)
	}
	t, err := openTable(path, dyn)
	if err != nil {
		return nil, err
	}
	// Options that change what Paimon's commit does ('commit.callbacks')
	// are refused as on write.
	if err := coreoptions.CheckWrite(path, t.Options.Raw()); err != nil {
		return nil, fmt.Errorf("expire partitions of paimon table %s: %w", path, err)
	}
	pe, err := t.NewPartitionExpire(now, nil)
	if err != nil {
		return nil, fmt.Errorf("expire partitions of paimon table %s: %w", path, err)
	}
	if pe == nil {
		return nil, sql.Errorf(sql.NullPointerException, "Both the partition expiration time and partition field can not be null.")
	}
	expired, _, err := pe.Expire(now, snapshot.BatchCommitIdentifier, "")
	return expired, err
}

// CreateTag tags a snapshot (0: the latest) of the table at path, as
// CALL sys.create_tag does.
func CreateTag(path, name string, snapshotID int64) error {
	if err := fs.CheckName(fs.KindTag, name); err != nil {
		return err // Paimon's "Tag name '...' is blank." among them
	}
	t, err := openTable(path, nil)
	if err != nil {
		return err
	}
	// 'tag.default-time-retained', 'tag.create-success-file' and
	// 'tag.callbacks' change what Paimon's createTag does: refused as on
	// write.
	if err := coreoptions.CheckWrite(path, t.Options.Raw()); err != nil {
		return fmt.Errorf("create tag of paimon table %s: %w", path, err)
	}
	if _, err := t.Snapshots.ReadTag(name); err == nil {
		return sql.Errorf(sql.IllegalArgumentException, "Tag name '%s' already exists.", name)
	} else if !errors.Is(err, snapshot.ErrNotFound) {
		return err
	}
	var s *snapshot.Snapshot
	if snapshotID <= 0 {
		s, err = t.Snapshots.Latest()
		if err != nil {
			return sql.Errorf(sql.IllegalStateException, "Cannot create tag because latest snapshot doesn't exist.")
		}
	} else if s, err = t.Snapshots.Read(snapshotID); err != nil {
		return sql.Errorf(sql.IllegalArgumentException, "Cannot create tag because given snapshot #%d doesn't exist.", snapshotID)
	}
	// Without a retention time the tag file is the snapshot's JSON
	// (TagManager.createOrReplaceTag writes no tagCreateTime then).
	return t.CreateTag(s, name)
}

// DeleteTag removes a tag of the table at path (CALL sys.delete_tag) and,
// when its snapshot has expired, the files only the tag kept
// (TagManager.deleteTag).
func DeleteTag(path, name string) error {
	if err := fs.CheckName(fs.KindTag, name); err != nil {
		return err
	}
	t, err := openTable(path, nil)
	if err != nil {
		return err
	}
	if _, err := t.Snapshots.ReadTag(name); err != nil {
		if errors.Is(err, snapshot.ErrNotFound) {
			return sql.Errorf(sql.IllegalArgumentException, "Tag '%s' doesn't exist.", name)
		}
		return err
	}
	if err := t.DeleteTag(name); err != nil {
		return fmt.Errorf("paimon table %s: %w", path, err)
	}
	return nil
}
