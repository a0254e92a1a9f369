package table

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

// PartitionExpire is Paimon 1.4's PartitionExpire: after a commit it
// drops the partitions older than 'partition.expiration-time', at most
// every 'partition.expiration-check-interval'. A partition's age is, with
// 'partition.expiration-strategy' = 'values-time' (the default,
// PartitionValuesTimeExpireStrategy), the time its values say
// (PartitionTimeExtractor: 'partition.timestamp-pattern' and
// 'partition.timestamp-formatter'); with 'update-time'
// (PartitionUpdateTimeExpireStrategy), the creation time of its newest
// file. The oldest 'partition.expiration-max-num' expired partitions (in
// the order of their values joined by ',') are dropped, in batches of
// 'partition.expiration-batch-size', each batch by one OVERWRITE snapshot
// of the same commit user and identifier as the commit that triggered it
// (FileStoreCommitImpl.dropPartitions) deleting every file of the batch's
// partitions. Times are wall-clock times of the local zone, as Java's
// LocalDateTime.now().
type PartitionExpire struct {
	t         *Table
	o         coreoptions.PartitionExpiration
	extractor timeExtractor
	// lastCheck is the wall-clock time of the last check.
	lastCheck time.Time
}

// NewPartitionExpire is AbstractFileStore.newPartitionExpire: nil when
// 'partition.expiration-time' is unset or the table has no partition
// keys. The first check comes a random part of the check interval
// earlier than a full interval after now, as Paimon's constructor sets
// lastCheck (so short streaming jobs still expire); rnd(n) returns a
// number in [0, n) (nil: math/rand).
func (t *Table) NewPartitionExpire(now time.Time, rnd func(n int64) int64) (*PartitionExpire, error) {
	o := t.Options.PartitionExpiration
	if o.Time == 0 || len(t.PartNames) == 0 {
		return nil, nil
	}
	switch o.Strategy {
	case "values-time", "update-time":
	default:
		return nil, sql.Errorf(sql.IllegalArgumentException, "Unknown partitionExpireStrategy: %s", o.Strategy)
	}
	if rnd == nil {
		rnd = rand.Int64N
	}
	var offset int64
	if secs := o.CheckInterval.Milliseconds() / 1000; secs > 0 {
		offset = rnd(secs)
	}
	return &PartitionExpire{t: t, o: o,
		extractor: timeExtractor{pattern: o.Pattern, hasPattern: o.HasPattern, formatter: o.Formatter, hasFormatter: o.HasFormatter},
		lastCheck: wallClock(now).Add(-time.Duration(offset) * time.Second)}, nil
}

// wallClock is now's local wall-clock time as a UTC time.Time (Java's
// LocalDateTime.now()).
func wallClock(now time.Time) time.Time {
	l := now.Local()
	y, mo, d := l.Date()
	h, mi, s := l.Clock()
	return time.Date(y, mo, d, h, mi, s, l.Nanosecond(), time.UTC)
}

// Expire is PartitionExpire.expire(now, commitIdentifier): when the check
// interval is zero or has passed since the last check, or the commit is a
// batch commit (identifier Long.MAX_VALUE) and
// 'end-input.check-partition-expire' is set, it drops the expired
// partitions as user with identifier and returns them as Paimon prints
// them ("k1=v1, k2=v2"); checked is false when no check was due.
func (e *PartitionExpire) Expire(now time.Time, identifier int64, user string) (expired []string, checked bool, err error) {
	wall := wallClock(now)
	if e.o.CheckInterval != 0 && !wall.After(e.lastCheck.Add(e.o.CheckInterval)) &&
		!(e.o.EndInputCheck && identifier == math.MaxInt64) {
		return nil, false, nil
	}
	expired, err = e.doExpire(wall.Add(-e.o.Time), identifier, user, now)
	if err != nil {
		return nil, true, fmt.Errorf("partition expiration of paimon table %s: %w", e.t.Root, err)
	}
	e.lastCheck = wall
	return expired, true, nil
}

// partitionEntry is Paimon's PartitionEntry of one partition: its files
// counted over the snapshot's manifest entries (DELETE ones negative) and
// the newest creation time among them (epoch millis).
type partitionEntry struct {
	part         []byte
	fileCount    int64
	lastCreation int64
}

func (e *PartitionExpire) doExpire(expireWall time.Time, identifier int64, user string, now time.Time) ([]string, error) {
	t := e.t
	latest, err := t.Snapshots.Latest()
	if err != nil || latest == nil {
		return nil, err
	}
	// FileStoreScan.readPartitionEntries: every entry of the snapshot's
	// base and delta manifests, merged by partition; partitions with
	// files left.
	entries, err := t.Manifests.ReadEntries(latest.BaseManifestList, latest.DeltaManifestList)
	if err != nil {
		return nil, err
	}
	byPart := map[string]*partitionEntry{}
	var order []*partitionEntry
	for _, me := range entries {
		pe := byPart[string(me.Partition)]
		if pe == nil {
			pe = &partitionEntry{part: me.Partition, lastCreation: math.MinInt64}
			byPart[string(me.Partition)] = pe
			order = append(order, pe)
		}
		if me.Kind == manifest.Delete {
			pe.fileCount--
		} else {
			pe.fileCount++
		}
		if me.File.CreationTime != nil {
			pe.lastCreation = max(pe.lastCreation, creationEpochMillis(*me.File.CreationTime))
		}
	}
	defaultName := t.Options.PartitionDefaultName
	if defaultName == "" {
		defaultName = binrow.DefaultPartitionName
	}
	// update-time: expirationTime.atZone(systemDefault()) in epoch millis.
	y, mo, d := expireWall.Date()
	h, mi, s := expireWall.Clock()
	expirationMilli := time.Date(y, mo, d, h, mi, s, expireWall.Nanosecond(), time.Local).UnixMilli()
	var joined []string
	for _, pe := range order {
		if pe.fileCount <= 0 {
			continue
		}
		strs, err := e.valueStrings(pe.part)
		if err != nil {
			return nil, err
		}
		if e.o.Strategy == "update-time" {
			if !(expirationMilli > pe.lastCreation) {
				continue
			}
		} else {
			pt, err := e.extractor.extract(t.PartNames, strs)
			if errors.Is(err, errTimeParse) {
				// Paimon logs "Can't extract datetime from partition ..."
				// and keeps the partition.
				continue
			}
			if err != nil {
				return nil, err
			}
			if !expireWall.After(pt) {
				continue
			}
		}
		// PartitionExpireStrategy.toPartitionValue: null is the default
		// partition name.
		vs := make([]string, len(strs))
		for i, s := range strs {
			if s == nil {
				vs[i] = defaultName
			} else {
				vs[i] = *s
			}
		}
		joined = append(joined, strings.Join(vs, ","))
	}
	if len(joined) == 0 {
		return nil, nil
	}
	// convertToPartitionString: sorted by the joined values, limited to
	// partition.expiration-max-num.
	slices.Sort(joined)
	joined = joined[:min(len(joined), max(e.o.MaxNum, 0))]
	out := make([]string, len(joined))
	for i, j := range joined {
		vs := strings.Split(j, ",")
		kv := make([]string, len(t.PartNames))
		for k, n := range t.PartNames {
			v := ""
			if k < len(vs) {
				v = vs[k]
			}
			kv[k] = n + "=" + v
		}
		out[i] = strings.Join(kv, ", ")
	}
	batch := len(joined)
	if e.o.BatchSize > 0 && e.o.BatchSize < len(joined) {
		batch = e.o.BatchSize
	}
	for lo := 0; lo < len(joined); lo += batch {
		if err := e.drop(joined[lo:min(lo+batch, len(joined))], identifier, user, now, defaultName); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// valueStrings are the Java toString() of a partition's internal values
// (RowDataToObjectArrayConverter then toString: a DATE is its day number),
// nil for null.
func (e *PartitionExpire) valueStrings(part []byte) ([]*string, error) {
	vals, err := binrow.Deserialize(e.t.PartTypes, part)
	if err != nil {
		return nil, err
	}
	out := make([]*string, len(vals))
	for i, v := range vals {
		if v == nil {
			continue
		}
		s, err := binrow.PartitionValueString(e.t.PartTypes[i], v, true)
		if err != nil {
			return nil, err
		}
		out[i] = &s
	}
	return out, nil
}

// drop is FileStoreCommitImpl.dropPartitions: one OVERWRITE snapshot
// deleting every file (bucket ≥ 0) and index file of the partitions.
func (e *PartitionExpire) drop(joined []string, identifier int64, user string, now time.Time, defaultName string) error {
	set := map[string]bool{}
	for _, j := range joined {
		set[j] = true
	}
	c := e.t.NewCommit(user)
	c.Now = func() time.Time { return now }
	p := pendingCommit{kind: snapshot.Overwrite, overwrite: func(part []byte) (bool, error) {
		strs, err := e.valueStrings(part)
		if err != nil {
			return false, err
		}
		vs := make([]string, len(strs))
		for i, s := range strs {
			if s == nil {
				vs[i] = defaultName
			} else {
				vs[i] = *s
			}
		}
		return set[strings.Join(vs, ",")], nil
	}}
	return c.tryCommit(identifier, &p)
}

// checkPartitionTimestamp is AbstractFileStoreWrite's
// PartitionTimestampValidator, run when a writer of a partition is
// created: with 'partition.timestamp-format.strict' and a formatter or
// pattern, a partition whose time does not parse fails the write.
func (t *Table) checkPartitionTimestamp(part []byte) error {
	o := t.Options.PartitionExpiration
	if !o.FormatStrict || !(o.HasFormatter || o.HasPattern) || len(t.PartNames) == 0 {
		return nil
	}
	e := &PartitionExpire{t: t}
	strs, err := e.valueStrings(part)
	if err != nil {
		return err
	}
	x := timeExtractor{pattern: o.Pattern, hasPattern: o.HasPattern, formatter: o.Formatter, hasFormatter: o.HasFormatter}
	_, err = x.extract(t.PartNames, strs)
	if errors.Is(err, errTimeParse) {
		kv := make([]string, len(strs))
		for i, s := range strs {
			v := "null"
			if s != nil {
				v = *s
			}
			kv[i] = t.PartNames[i] + "=" + v
		}
		return sql.Errorf(sql.IllegalArgumentException, "Partition %s does not match the 'partition.timestamp-formatter' or "+
			"'partition.timestamp-pattern' configuration. This might be caused by an incorrectly specified partition field. "+
			"Please check your partition configuration.", strings.Join(kv, ", "))
	}
	return err
}

// expiredConflict is ConflictDetection.checkConflictForPartitionExpire:
// when the files a commit deletes but no longer finds all belong to
// partitions that the values-time strategy says are expired at now, the
// conflict is Paimon's "You are writing data to expired partitions"
// error (still an ErrCommitConflict); otherwise nil.
func (e *PartitionExpire) expiredConflict(live, entries []manifest.ManifestEntry, now time.Time) error {
	if e == nil || e.o.Strategy != "values-time" {
		return nil
	}
	ids := make(map[string]bool, len(live))
	for i := range live {
		ids[live[i].Identifier()] = true
	}
	seen := map[string]bool{}
	var parts [][]byte
	for i := range entries {
		if entries[i].Kind == manifest.Delete && !ids[entries[i].Identifier()] && !seen[string(entries[i].Partition)] {
			seen[string(entries[i].Partition)] = true
			parts = append(parts, entries[i].Partition)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	// PartitionExpire.isValueAllExpired.
	expireWall := wallClock(now).Add(-e.o.Time)
	names := make([]string, len(parts))
	for i, part := range parts {
		strs, err := e.valueStrings(part)
		if err != nil {
			return nil
		}
		pt, err := e.extractor.extract(e.t.PartNames, strs)
		if err != nil || !expireWall.After(pt) {
			return nil
		}
		// partToSimpleString(partitionType, partition, "-", 200).
		vs := make([]string, len(strs))
		for j, s := range strs {
			vs[j] = "null"
			if s != nil {
				vs[j] = *s
			}
		}
		n := strings.Join(vs, "-")
		if len(n) > 200 {
			n = n[:200]
		}
		names[i] = n
	}
	return &sql.Error{Class: sql.RuntimeException, Err: ErrCommitConflict,
		Msg: "You are writing data to expired partitions, and you can filter this data to avoid job failover." +
			" Otherwise, continuous expired records will cause the job to failover restart continuously." +
			" Expired partitions are: [" + strings.Join(names, ", ") + "]"}
}
