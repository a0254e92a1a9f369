package table

import (
	"fmt"
	"io"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/sql"
)

// Postpone bucket mode ('bucket' = -2 on a primary-key table, Paimon
// 1.2+, BucketMode.POSTPONE_MODE). A batch INSERT writes it as Paimon
// 1.4's FlinkSinkBuilder.buildPostponeBucketSink does with
// 'postpone.batch-write-fixed-bucket' = true (the default): straight into
// real buckets (PostponeFixedBucketSink, PostponeBatchWriteOperator), each
// partition with the bucket count its files already have
// (PostponeUtils.getKnownNumBuckets) or, for a partition without files,
// min(sink parallelism, 'postpone.batch-write-fixed-bucket.max-parallelism'),
// by a write-only writer (PostponeUtils.tableForFixBucketWrite: no
// compaction, no snapshot expiration). The manifest entries carry that
// count as _TOTAL_BUCKETS. Streaming writes, and batch writes with
// 'postpone.batch-write-fixed-bucket' = false, go to each partition's
// bucket-postpone directory (PostponeBucketSink, postponeFileWriter
// below) until a compaction (compactPostpone) moves them into buckets.

// PostponeBucket reports postpone bucket mode: a primary-key table with
// 'bucket' = -2.
func (t *Table) PostponeBucket() bool { return t.PrimaryKey() && t.NumBuckets == -2 }

// postponeFilesWrite reports a write of a postpone bucket table that goes
// into the bucket-postpone directories, as FlinkSinkBuilder.
// buildPostponeBucketSink sends it to PostponeBucketSink: a streaming
// one, or a batch one with 'postpone.batch-write-fixed-bucket' = false.
func (t *Table) postponeFilesWrite(streaming bool) bool {
	return t.PostponeBucket() && (streaming || !t.Options.PostponeBatchFixedBucket)
}

// knownNumBuckets is PostponeUtils.getKnownNumBuckets: the _TOTAL_BUCKETS
// of each partition's files in real buckets (bucket >= 0) in the latest
// snapshot, keyed by serialized partition.
func (t *Table) knownNumBuckets() (map[string]int, error) {
	known := map[string]int{}
	s, err := t.Snapshots.Latest()
	if err != nil {
		return nil, fmt.Errorf("paimon table %s: bucket numbers of partitions: %w", t.Root, err)
	}
	if s == nil {
		return known, nil
	}
	es, err := t.Manifests.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
	if err != nil {
		return nil, fmt.Errorf("paimon table %s: bucket numbers of partitions in snapshot %d: %w", t.Root, s.ID, err)
	}
	for i := range es {
		e := &es[i]
		if e.Bucket < 0 || e.TotalBuckets < 0 {
			continue
		}
		p := string(e.Partition)
		if old, ok := known[p]; ok && old != int(e.TotalBuckets) {
			name, _ := t.PartitionPath(e.Partition)
			return nil, sql.Errorf(sql.IllegalStateException, "Partition %s has different totalBuckets %d and %d", name, old, e.TotalBuckets)
		}
		known[p] = int(e.TotalBuckets)
	}
	return known, nil
}

// postponeBuckets is the bucket count of each partition a postpone bucket
// table's batch write writes (PostponeBatchWriteOperator's
// knownNumBuckets): the known count, or def for a new partition, which
// keeps it for the rest of the write. Not safe for concurrent use; each
// writer has its own.
type postponeBuckets struct {
	known map[string]int
	def   int
}

func (t *Table) newPostponeBuckets(known map[string]int, parallelism int) *postponeBuckets {
	return &postponeBuckets{known: maps.Clone(known), def: postponeDefaultBuckets(parallelism, t.Options)}
}

// postponeDefaultBuckets is the bucket count of a new partition:
// min(sink parallelism, postpone.batch-write-fixed-bucket.max-parallelism)
// (PostponeBatchWriteOperator.open; parallelism <= 0 counts as 1).
func postponeDefaultBuckets(parallelism int, o *coreoptions.Options) int {
	return min(max(parallelism, 1), o.PostponeBatchMaxPar)
}

func (p *postponeBuckets) numBuckets(part []byte) int {
	if n, ok := p.known[string(part)]; ok {
		return n
	}
	p.known[string(part)] = p.def
	return p.def
}

// writeOnlyCopy is the table a postpone bucket table's batch write writes
// with: the same table with 'write-only' = true
// (PostponeUtils.tableForFixBucketWrite).
func (t *Table) writeOnlyCopy() (*Table, error) {
	opts := maps.Clone(t.Options.Raw())
	opts[coreoptions.OptWriteOnly] = "true"
	c, err := newTable(t.FIO, t.Root, t.Schema, opts)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// postponeChannel is PostponeFixedBucketChannelComputer.channel: every row
// of a partition goes to the subtask ChannelComputer.select(partition,
// numBuckets, parallelism) picks, with numBuckets the partition's known
// bucket count or, for a new partition, the parallelism.
func postponeChannel(part []byte, known map[string]int, parallelism int) int {
	n, ok := known[string(part)]
	if !ok {
		n = parallelism
	}
	return (startChannel(part, parallelism) + n) % parallelism
}

// startChannel is ChannelComputer.startChannel: |partition.hashCode()|
// modulo the channel count, Integer.MIN_VALUE counting as MAX_VALUE.
func startChannel(part []byte, parallelism int) int {
	h := binrow.Hash(part)
	if h == -1<<31 {
		h = 1<<31 - 1
	}
	if h < 0 {
		h = -h
	}
	return int(h) % parallelism
}

// compactPostpone is the compaction of a postpone bucket table
// (CompactAction.buildForPostponeBucketCompaction, batch only): the files
// of each partition's bucket-postpone directory are read one by one in
// creation order without merging (PostponeBucketCompactSplitSource,
// MergeFileSplitRead's no-merge reader for bucket -2) and their records
// written, with their row kinds, into the partition's real buckets by a
// normal fixed-bucket writer (FixedBucketSink): as many buckets as the
// partition has already, else 'postpone.default-bucket-num'. One COMPACT
// snapshot then deletes the postpone files
// (RemovePostponeBucketFilesOperator) and adds what the writers wrote as
// compaction results (PostponeBucketCommittableRewriter, BucketFiles).
// The real buckets are not compacted otherwise. A table without postpone
// files has nothing to compact.
func compactPostpone(t *Table, o CompactOptions) ([]int64, error) {
	if o.Streaming {
		return nil, sql.Errorf(sql.IllegalArgumentException, "Postpone bucket compaction currently only supports batch mode")
	}
	if o.Partition != nil {
		return nil, sql.Errorf(sql.IllegalArgumentException, "Postpone bucket compaction currently does not support specifying partitions")
	}
	s, err := t.Snapshots.Latest()
	if err != nil || s == nil {
		return nil, err
	}
	live, err := t.Manifests.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
	if err != nil {
		return nil, fmt.Errorf("paimon table %s: snapshot %d: %w", t.Root, s.ID, err)
	}
	var parts []string
	postponed := map[string][]manifest.DataFileMeta{}
	for i := range live {
		e := &live[i]
		if e.Bucket != -2 {
			continue
		}
		p := string(e.Partition)
		if _, ok := postponed[p]; !ok {
			parts = append(parts, p)
		}
		postponed[p] = append(postponed[p], e.File)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	// The commit's table is the bucket -2 table with 'bucket' set to a
	// real number and 'write-only' false (CompactAction), so it expires
	// partitions (lastCheck set when it starts) and snapshots after the
	// commit, as a fixed-bucket table's dedicated compaction does.
	pe, err := t.NewPartitionExpire(time.Now(), nil)
	if err != nil {
		return nil, fmt.Errorf("paimon table %s: %w", t.Root, err)
	}
	known, err := t.knownNumBuckets()
	if err != nil {
		return nil, err
	}
	nums := map[string]int{}
	for _, p := range parts {
		n, ok := known[p]
		if !ok {
			n = t.Options.PostponeDefaultBuckets
		}
		nums[p] = n
	}
	w, err := t.newWrite(WriteOptions{TempDir: o.TempDir, postponeKnown: nums, postponeCompact: true}, false)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	var removed []CommitMessage
	for _, p := range parts {
		files := postponed[p]
		// "we must replay the written records in exact order"
		sort.SliceStable(files, func(i, j int) bool { return creationTime(files[i]) < creationTime(files[j]) })
		for _, f := range files {
			if err := w.replay(Split{SnapshotID: s.ID, Kind: SplitChangelog, Partition: []byte(p), Bucket: -2, TotalBuckets: -2, Files: []manifest.DataFileMeta{f}}); err != nil {
				return nil, err
			}
		}
		removed = append(removed, CommitMessage{Partition: []byte(p), Bucket: -2, TotalBuckets: -2, CompactBefore: files})
	}
	msgs, err := w.PrepareCommit(true)
	if err != nil {
		return nil, err
	}
	for i := range msgs {
		w.t.asCompaction(&msgs[i])
	}
	return t.commitDedicatedCompaction(append(msgs, removed...), pe)
}

func creationTime(f manifest.DataFileMeta) int64 {
	if f.CreationTime == nil {
		return 0
	}
	return *f.CreationTime
}

// replay writes the records of one postpone file into the real buckets.
func (w *TableWrite) replay(s Split) error {
	it, err := w.t.readKV(s, false)
	if err != nil {
		return err
	}
	rows := &kvRows{it: it}
	for {
		r, ok := rows.Next()
		if !ok {
			break
		}
		if err := w.Write(r); err != nil {
			rows.Close()
			return err
		}
	}
	if err := rows.Error(); err != nil {
		rows.Close()
		return fmt.Errorf("paimon table %s: read postpone file %s: %w", w.t.Root, s.Files[0].FileName, err)
	}
	return rows.Close()
}

// asCompaction turns a writer's commit message into the compaction result
// Paimon's postpone compaction commits (BucketFiles.update/makeMessage):
// new files become compaction outputs, a new file the same write compacted
// away is deleted and left out, the changelog moves to the compaction's.
func (t *Table) asCompaction(m *CommitMessage) {
	fresh := map[string]bool{}
	for _, f := range m.NewFiles {
		fresh[f.FileName] = true
	}
	var before []manifest.DataFileMeta
	gone := map[string]bool{}
	for _, f := range m.CompactBefore {
		if fresh[f.FileName] {
			delete(fresh, f.FileName)
			gone[f.FileName] = true
			continue
		}
		before = append(before, f)
	}
	for _, f := range m.CompactAfter {
		delete(gone, f.FileName)
	}
	var after []manifest.DataFileMeta
	for _, f := range m.NewFiles {
		if fresh[f.FileName] {
			after = append(after, f)
		}
	}
	after = append(after, m.CompactAfter...)
	if len(gone) > 0 {
		if dir, err := t.bucketDir(m.Partition, m.Bucket); err == nil {
			for name := range gone {
				_ = t.FIO.Delete(fs.Join(dir, name))
			}
		}
	}
	m.CompactChangelog = append(m.NewChangelog, m.CompactChangelog...)
	m.NewFiles, m.NewChangelog, m.NewIndexFiles = nil, nil, nil
	m.CompactBefore, m.CompactAfter = before, after
}

// postponeFileWriter is PostponeBucketWriter: the writer of one
// partition's bucket-postpone directory in a streaming write (and a batch
// write with 'postpone.batch-write-fixed-bucket' = false). Records are
// appended in arrival order, neither sorted nor merged, with sequence
// number -1 (KeyValue.UNKNOWN_SEQUENCE: PostponeBucketFileStoreWrite
// ignores previous files and numbers nothing), into Avro files of about
// 'target-file-size' with 'metadata.stats-mode' = 'none', named
// <data-file.prefix>-u-<commit user>-s-<write id>-w-<uuid>-<n>.avro
// (PostponeBucketFileStoreWrite's DATA_FILE_PREFIX override; the write id
// is the writer subtask, which the compaction's SplitChannelComputer
// reads back). Each PrepareCommit closes the open file (DirectSinkWriter
// flush) and hands over the files written since, as new files of level 0
// with FileSource APPEND.
type postponeFileWriter struct {
	t      *Table
	part   []byte
	dir    string
	names  *format.FileNames
	codec  string
	target int64
	// checked: a retraction has gone through the merge engine once
	// (PostponeBucketWriter.validateRetract).
	checked bool

	name    string
	out     io.WriteCloser
	w       *format.AvroKVWriter
	done    []manifest.DataFileMeta
	created []string // files created since the last PrepareCommit
	// buf: the writer buffers its records (see postponebuf.go).
	buf *postponeBuffer
}

// postponeFilePrefix is the data file prefix of a postpone writer.
func postponeFilePrefix(dataPrefix, commitUser string, writeID int) string {
	return fmt.Sprintf("%s-u-%s-s-%d-w-", dataPrefix, commitUser, writeID)
}

// checkPostponeFiles refuses the postpone file writes sqlrun cannot make
// as Paimon makes them: a row type AvroSchemaConverter rejects (Paimon
// then writes the table's own format), a codec sqlrun does not write,
// and options that would give the files statistics or names other than
// the ones written here.
func (t *Table) checkPostponeFiles() error {
	if _, err := format.AvroSchemaOf(nil, t.Schema.Fields); err != nil {
		return fmt.Errorf("paimon table %s: %w: Paimon writes the bucket-postpone files of this table in its 'file.format' (AvroSchemaConverter rejects %v), which sqlrun does not: write it in batch mode with 'postpone.batch-write-fixed-bucket' = true", t.Root, ErrPostponeBucket, err)
	}
	raw := t.Options.Raw()
	if _, err := format.AvroCodec(raw["avro.codec"], t.Options.FileCompression); err != nil {
		return fmt.Errorf("paimon table %s: %w: bucket-postpone files: %v", t.Root, ErrPostponeBucket, err)
	}
	for k := range raw {
		if strings.HasPrefix(k, "fields.") && strings.HasSuffix(k, ".stats-mode") ||
			k == "file.compression.per.level" || k == "data-file.thin-mode" && raw[k] == "true" {
			return fmt.Errorf("paimon table %s: %w: option '%s' changes the bucket-postpone files Paimon writes, and sqlrun writes them without it; write the table in batch mode with 'postpone.batch-write-fixed-bucket' = true", t.Root, ErrPostponeBucket, k)
		}
	}
	return nil
}

func (t *Table) newPostponeFileWriter(part []byte, commitUser string, writeID int) (*postponeFileWriter, error) {
	pp, err := t.PartitionPath(part)
	if err != nil {
		return nil, err
	}
	codec, err := format.AvroCodec(t.Options.Raw()["avro.codec"], t.Options.FileCompression)
	if err != nil {
		return nil, err
	}
	names := format.NewFileNames("avro")
	names.DataPrefix = postponeFilePrefix(t.Options.DataFilePrefix, commitUser, writeID)
	return &postponeFileWriter{t: t, part: part, dir: format.BucketDir(t.Root, pp, -2), names: names, codec: codec,
		target: t.Options.TargetFileSize(true)}, nil
}

func (p *postponeFileWriter) write(kind sql.RowKind, vals []any) error {
	r := &kv.KeyValue{Key: p.t.Spec.KeyOf(vals), Seq: -1, Kind: kind, Value: vals}
	if kind.IsRetract() && !p.checked {
		// PostponeBucketWriter.validateRetract: the first retraction goes
		// through the merge engine, which refuses it if it cannot take
		// retractions.
		mf := p.t.Spec.NewMergeFunction()
		mf.Reset()
		if err := mf.Add(r); err != nil {
			return err
		}
		if _, err := mf.Result(); err != nil {
			return err
		}
		p.checked = true
	}
	if p.buf != nil {
		return p.buffer(r)
	}
	if p.w == nil {
		if err := p.openFile(); err != nil {
			return err
		}
	}
	if err := p.w.Write(r); err != nil {
		return fmt.Errorf("write %s: %w", p.name, err)
	}
	if p.w.BytesWritten() >= p.target {
		return p.closeFile()
	}
	return nil
}

// openFile starts the next file.
func (p *postponeFileWriter) openFile() error {
	p.name = p.names.Data()
	out, err := p.t.FIO.Create(fs.Join(p.dir, p.name))
	if err != nil {
		return fmt.Errorf("create %s: %w", p.name, err)
	}
	p.created = append(p.created, p.name)
	w, err := format.NewAvroKVWriter(out, p.t.KeyFields, p.t.Schema.Fields, p.codec, p.t.Options.ZstdLevel)
	if err != nil {
		out.Close()
		return err
	}
	p.out, p.w = out, w
	return nil
}

func (p *postponeFileWriter) closeFile() error {
	w, out := p.w, p.out
	p.w, p.out = nil, nil
	res, err := w.Close()
	if cerr := out.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("finish %s: %w", p.name, err)
	}
	p.done = append(p.done, res.DataFileMeta(p.name, p.t.Schema.ID, 0, manifest.SourceAppend, localMillis()))
	return nil
}

// prepareCommit closes the open file and returns the files written since
// the last call (PostponeBucketWriter.prepareCommit).
func (p *postponeFileWriter) prepareCommit() ([]manifest.DataFileMeta, error) {
	if p.buf != nil {
		if err := p.writeBuffered(); err != nil {
			return nil, err
		}
	}
	if p.w != nil {
		if err := p.closeFile(); err != nil {
			return nil, err
		}
	}
	done := p.done
	p.done, p.created = nil, nil
	return done, nil
}

// abort deletes the files not yet handed over.
func (p *postponeFileWriter) abort() {
	if p.buf != nil {
		p.buf.drop()
	}
	if p.w != nil {
		p.w.Close()
		p.out.Close()
		p.w, p.out = nil, nil
	}
	for _, n := range p.created {
		_ = p.t.FIO.Delete(fs.Join(p.dir, n))
	}
	p.done, p.created = nil, nil
}

// postponeStreamChannel is PostponeBucketChannelComputer.channel:
// |(partition.hashCode() + trimmedPrimaryKey.hashCode()) % channels| in
// Java int arithmetic.
func (t *Table) postponeStreamChannel(vals []any, part []byte, parallelism int) (int, error) {
	h, _, err := t.keyHash(vals, nil)
	if err != nil {
		return 0, err
	}
	c := (binrow.Hash(part) + h) % int32(parallelism)
	if c < 0 {
		c = -c
	}
	return int(c), nil
}
