package table

import (
	"cmp"
	"errors"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

// Automatic tag creation ('tag.automatic-creation'), as Paimon 1.4's
// TagAutoManager, TagAutoCreation, TagTimeExtractor, TagPeriodHandler and
// TagBatchCreation do it. Times are Java LocalDateTimes: a time.Time in
// UTC whose wall clock is the local date and time.

// tagPeriod is TagPeriodHandler: the length of a tag's period and the
// layout of its name.
type tagPeriod struct {
	period time.Duration
	layout string // Go's spelling of the DateTimeFormatter
	daily  bool   // DailyTagPeriodHandler parses the part before a space
}

// newTagPeriod is TagPeriodHandler.create: 'tag.creation-period-duration'
// when set (names yyyyMMddHHmm), else 'tag.creation-period' with
// 'tag.period-formatter'.
func newTagPeriod(period string, duration time.Duration, formatter string) tagPeriod {
	if duration > 0 {
		return tagPeriod{period: duration, layout: "200601021504"}
	}
	switch period {
	case "hourly":
		switch formatter {
		case "without_dashes":
			return tagPeriod{period: time.Hour, layout: "20060102 15"}
		case "without_dashes_and_spaces":
			return tagPeriod{period: time.Hour, layout: "2006010215"}
		}
		return tagPeriod{period: time.Hour, layout: "2006-01-02 15"}
	case "two-hours":
		return tagPeriod{period: 2 * time.Hour, layout: "2006-01-02 15"}
	}
	if formatter == "with_dashes" {
		return tagPeriod{period: 24 * time.Hour, layout: "2006-01-02", daily: true}
	}
	return tagPeriod{period: 24 * time.Hour, layout: "20060102", daily: true}
}

// tagToTime parses a tag name as the handler's formatter does (STRICT,
// fixed-width fields); ok is false for a name that is not an auto tag.
func (h tagPeriod) tagToTime(tag string) (time.Time, bool) {
	if h.daily {
		tag = strings.Split(tag, " ")[0]
	}
	t, err := time.Parse(h.layout, tag)
	// Go accepts a one-digit hour where Java's fixed width does not: the
	// name must be what formatting its time gives back.
	if err != nil || t.Format(h.layout) != tag {
		return time.Time{}, false
	}
	return t, true
}

func (h tagPeriod) isAutoTag(tag string) bool { _, ok := h.tagToTime(tag); return ok }

func (h tagPeriod) timeToTag(t time.Time) string { return t.Format(h.layout) }

// normalizeToPreviousTag is BaseTagPeriodHandler's: the start of the
// period before the one time is in, periods counted from the epoch of the
// local time taken as UTC.
func (h tagPeriod) normalizeToPreviousTag(t time.Time) time.Time {
	p := h.period.Milliseconds()
	return time.UnixMilli(t.UnixMilli() / p * p).UTC().Add(-h.period)
}

// localTime is Instant.ofEpochMilli(ms).atZone(zone).toLocalDateTime().
func localTime(ms int64, zone *time.Location) time.Time {
	t := time.UnixMilli(ms).In(zone)
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

var zoneOffset = regexp.MustCompile(`^(?:UTC|GMT|UT)?([+-])(\d{1,2})(?::?(\d{2}))?$`)

// javaZone is ZoneId.of for 'sink.process-time-zone': "" is the process's
// zone (Paimon takes the JVM's), then region ids and offsets.
func javaZone(key, name string) (*time.Location, error) {
	switch name {
	case "":
		return time.Local, nil
	case "Z", "UTC", "GMT", "UT":
		return time.UTC, nil
	}
	if m := zoneOffset.FindStringSubmatch(name); m != nil {
		h, _ := strconv.Atoi(m[2])
		mins := 0
		if m[3] != "" {
			mins, _ = strconv.Atoi(m[3])
		}
		if h <= 18 && mins < 60 {
			off := h*3600 + mins*60
			if m[1] == "-" {
				off = -off
			}
			return time.FixedZone(name, off), nil
		}
	}
	if loc, err := time.LoadLocation(name); err == nil && name != "Local" {
		return loc, nil
	}
	return nil, sql.Errorf(sql.IllegalArgumentException, "Unknown time-zone ID: %s ('%s')", name, key)
}

// tagAutoCreation is TagAutoCreation in 'process-time' mode: after a
// commit it looks at the snapshots it has not seen yet and tags the first
// one whose commit time (less 'tag.creation-delay') is past the end of the
// next tag's period, with the period's name; the oldest auto tags beyond
// 'tag.num-retained-max' are deleted. A job keeps one (TableCommitImpl's
// TagAutoManager), so nextSnapshot and nextTag carry from commit to commit.
type tagAutoCreation struct {
	t      *Table
	period tagPeriod
	// zone is 'sink.process-time-zone'.
	zone *time.Location
	// watermarkZone, when set, is 'sink.watermark-time-zone' and the
	// tags follow the snapshots' watermarks (WatermarkExtractor), not
	// their commit times (ProcessTimeExtractor); idleTimeout is
	// 'snapshot.watermark-idle-timeout' (0: unset).
	watermarkZone *time.Location
	idleTimeout   time.Duration
	delay         time.Duration
	retainMax     *int
	completion    bool
	// nextTag is the time of the next tag; zero before the first.
	nextTag      time.Time
	nextSnapshot int64
}

// newTagAutoCreation is TagAutoManager.create's TagAutoCreation: nil
// unless the table creates tags at commits ('process-time' or
// 'watermark'; 'batch' tags at the end of a batch job).
func (t *Table) newTagAutoCreation() (*tagAutoCreation, error) {
	o := t.Options.TagAuto
	if o.Mode != "process-time" && o.Mode != "watermark" {
		return nil, nil
	}
	zone, err := javaZone("sink.process-time-zone", o.ProcessTimeZone)
	if err != nil {
		return nil, err
	}
	a := &tagAutoCreation{t: t, period: newTagPeriod(o.Period, o.PeriodDuration, o.Formatter), zone: zone,
		delay: o.Delay, retainMax: o.NumRetainedMax, completion: o.Completion}
	if o.Mode == "watermark" {
		// ZoneId.of, which has no default zone for an empty name.
		if o.WatermarkTimeZone == "" {
			return nil, sql.Errorf(sql.IllegalArgumentException, "Invalid ID for region-based ZoneId, invalid format:  (%s)", "'sink.watermark-time-zone'")
		}
		if a.watermarkZone, err = javaZone("sink.watermark-time-zone", o.WatermarkTimeZone); err != nil {
			return nil, err
		}
		a.idleTimeout = o.WatermarkIdleTimeout
	}
	// BaseTagPeriodHandler.validateDelay.
	if a.delay >= a.period.period {
		return nil, sql.Errorf(sql.IllegalArgumentException,
			"'tag.creation-delay' (%s) must be shorter than the tag period (%s) (TagPeriodHandler.validateDelay).", a.delay, a.period.period)
	}
	tags, err := t.tagsBySnapshot(a.period.isAutoTag)
	if err != nil {
		return nil, err
	}
	if len(tags) == 0 {
		earliest, ok, err := t.Snapshots.EarliestID()
		if err != nil {
			return nil, err
		}
		a.nextSnapshot = 1
		if ok {
			a.nextSnapshot = earliest
		}
		return a, nil
	}
	last := tags[len(tags)-1]
	name, err := oneAutoTag(last.names)
	if err != nil {
		return nil, err
	}
	tt, _ := a.period.tagToTime(name)
	a.nextSnapshot, a.nextTag = last.id+1, tt.Add(a.period.period)
	return a, nil
}

// forceCreatingSnapshot is TagAutoCreation.forceCreatingSnapshot: a
// checkpoint without rows still commits a snapshot when a tag is due, so
// the tag holds what was committed in its period. By process time
// (forceCreatingSnapshotProcessTime) that is when the next tag's period
// has ended; by watermark only with 'snapshot.watermark-idle-timeout',
// once the latest snapshot's watermark is that long past.
func (a *tagAutoCreation) forceCreatingSnapshot(now time.Time) (bool, error) {
	if a.watermarkZone != nil {
		if a.idleTimeout == 0 {
			return false, nil
		}
		s, err := a.t.Snapshots.Latest()
		if err != nil || s == nil || s.Watermark == nil {
			return false, err
		}
		// Both sides in the system zone: an instant comparison.
		return *s.Watermark == math.MinInt64 || !now.Add(-a.idleTimeout).Before(time.UnixMilli(*s.Watermark)), nil
	}
	return a.nextTag.IsZero() || !localTime(now.UnixMilli(), a.zone).Add(-a.delay).Before(a.nextTag.Add(a.period.period)), nil
}

// extract is TagTimeExtractor.extract: the snapshot's commit time, or its
// watermark (none before the first, Long.MIN_VALUE), as a local time.
func (a *tagAutoCreation) extract(s *snapshot.Snapshot) (time.Time, bool) {
	if a.watermarkZone == nil {
		return localTime(s.TimeMillis, a.zone), true
	}
	if s.Watermark == nil || *s.Watermark == math.MinInt64 {
		return time.Time{}, false
	}
	return localTime(*s.Watermark, a.watermarkZone), true
}

// run is TagAutoCreation.run.
func (a *tagAutoCreation) run() error {
	for {
		s, err := a.t.Snapshots.Read(a.nextSnapshot)
		if err == nil {
			if err := a.tryToCreateTags(s); err != nil {
				return err
			}
			a.nextSnapshot++
			continue
		}
		if !errors.Is(err, snapshot.ErrNotFound) {
			return err
		}
		// The snapshot expired meanwhile: go on from the earliest.
		earliest, ok, err := a.t.Snapshots.EarliestID()
		if err != nil {
			return err
		}
		if !ok || earliest <= a.nextSnapshot {
			return nil
		}
		a.nextSnapshot = earliest
	}
}

func (a *tagAutoCreation) tryToCreateTags(s *snapshot.Snapshot) error {
	t, ok := a.extract(s)
	if !ok {
		return nil
	}
	if !a.nextTag.IsZero() && t.Add(-a.delay).Before(a.nextTag.Add(a.period.period)) {
		return nil
	}
	this := a.period.normalizeToPreviousTag(t)
	if a.completion && !a.nextTag.IsZero() {
		this = a.nextTag
	}
	name := a.period.timeToTag(this)
	// TagManager.createTag with ignoreIfExists.
	if _, err := a.t.Snapshots.ReadTag(name); err != nil {
		if !errors.Is(err, snapshot.ErrNotFound) {
			return err
		}
		if err := a.t.createTag(s, name, a.period.isAutoTag); err != nil {
			return err
		}
	}
	a.nextTag = this.Add(a.period.period)
	if a.retainMax == nil {
		return nil
	}
	tags, err := a.t.tagsBySnapshot(a.period.isAutoTag)
	if err != nil {
		return err
	}
	for i := 0; i < len(tags)-*a.retainMax; i++ {
		name, err := oneAutoTag(tags[i].names)
		if err != nil {
			return err
		}
		if err := a.t.DeleteTag(name); err != nil {
			return err
		}
	}
	return nil
}

// oneAutoTag is TagAutoCreation.checkAndGetOneAutoTag.
func oneAutoTag(names []string) (string, error) {
	if len(names) != 1 {
		return "", sql.Errorf(sql.IllegalStateException, "There are more than 1 auto-created tags of the same snapshot: %s. This is unexpected.", strings.Join(names, ","))
	}
	return names[0], nil
}

// snapshotTags are the tags of one snapshot.
type snapshotTags struct {
	id    int64
	names []string
}

// tagsBySnapshot is TagManager.tags(filter): the tags whose names pass,
// grouped by snapshot, in snapshot order (names sorted).
func (t *Table) tagsBySnapshot(filter func(string) bool) ([]snapshotTags, error) {
	names, err := t.Snapshots.TagNames()
	if err != nil {
		return nil, err
	}
	by := map[int64][]string{}
	for _, n := range names {
		if !filter(n) {
			continue
		}
		tag, err := t.Snapshots.ReadTag(n)
		if err != nil {
			if errors.Is(err, snapshot.ErrNotFound) {
				continue // deleted meanwhile
			}
			return nil, err
		}
		by[tag.ID] = append(by[tag.ID], n)
	}
	out := make([]snapshotTags, 0, len(by))
	for id, ns := range by {
		slices.Sort(ns)
		out = append(out, snapshotTags{id: id, names: ns})
	}
	slices.SortFunc(out, func(x, y snapshotTags) int { return cmp.Compare(x.id, y.id) })
	return out, nil
}

// createTag is TagManager.createOrReplaceTag without a retention time
// ('tag.default-time-retained' is refused on write): the tag file is the
// snapshot's JSON. autoTag, when set, is the table's period handler:
// validateNoAutoTag refuses a second auto tag on one snapshot.
func (t *Table) createTag(s *snapshot.Snapshot, name string, autoTag func(string) bool) error {
	if autoTag != nil && autoTag(name) {
		tags, err := t.tagsBySnapshot(autoTag)
		if err != nil {
			return err
		}
		for _, g := range tags {
			if g.id == s.ID {
				return sql.Errorf(sql.RuntimeException, "Snapshot %d is already auto-tagged with [%s].", s.ID, strings.Join(g.names, ", "))
			}
		}
	}
	return t.Snapshots.CreateTag(name, &snapshot.Tag{Snapshot: *s})
}

// TagPeriodCheck is TagManager's validateNoAutoTag for CALL
// sys.create_tag: on a table that creates tags at commits, a name that is
// an auto tag's may not go on a snapshot that has one. It returns nil when
// the table creates no such tags.
func (t *Table) TagPeriodCheck() func(string) bool {
	o := t.Options.TagAuto
	if o.Mode != "process-time" && o.Mode != "watermark" {
		return nil
	}
	return newTagPeriod(o.Period, o.PeriodDuration, o.Formatter).isAutoTag
}

// CreateTag tags s as CALL sys.create_tag does (TagManager.createTag
// without a retention time).
func (t *Table) CreateTag(s *snapshot.Snapshot, name string) error {
	return t.createTag(s, name, t.TagPeriodCheck())
}

// createBatchTag is TagBatchCreation.createTag, which Paimon's Flink sink
// runs when a batch job ends ('tag.automatic-creation' = 'batch'): the
// latest snapshot is tagged 'tag.batch.customized-name' or
// batch-write-<yyyy-MM-dd of its commit time>, replacing a tag of that
// name, and then the oldest tags (all tags, by snapshot, then by file
// time) beyond 'tag.num-retained-max' are deleted.
func (t *Table) createBatchTag() error {
	o := t.Options.TagAuto
	zone, err := javaZone("sink.process-time-zone", o.ProcessTimeZone)
	if err != nil {
		return err
	}
	s, err := t.Snapshots.Latest()
	if err != nil || s == nil {
		return err
	}
	name := o.BatchName
	if name == "" {
		name = "batch-write-" + localTime(s.TimeMillis, zone).Format("2006-01-02")
	}
	if err := t.DeleteTag(name); err != nil {
		return err
	}
	if err := t.createTag(s, name, nil); err != nil {
		return err
	}
	if o.NumRetainedMax == nil {
		return nil
	}
	max := *o.NumRetainedMax
	tags, err := t.tagsBySnapshot(func(string) bool { return true })
	if err != nil {
		return err
	}
	count := 0
	for _, g := range tags {
		count += len(g.names)
	}
	for _, g := range tags {
		if count <= max {
			break
		}
		if count-len(g.names) > max {
			tag, err := t.Snapshots.ReadTag(g.names[0])
			if err != nil {
				return err
			}
			if err := t.deleteTags(&tag.Snapshot, g.names); err != nil {
				return err
			}
			count -= len(g.names)
			continue
		}
		// TagManager.sortTagsOfOneSnapshot: oldest tag file first.
		mod, err := t.Snapshots.TagModTimes()
		if err != nil {
			return err
		}
		names := slices.Clone(g.names)
		slices.SortStableFunc(names, func(x, y string) int { return mod[x].Compare(mod[y]) })
		for _, n := range names {
			if count <= max {
				break
			}
			if err := t.DeleteTag(n); err != nil {
				return err
			}
			count--
		}
		break
	}
	return nil
}
