package paimon

import (
	"errors"
	"strconv"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

var _ connectors.FullStartPinner = (*Source)(nil)

// PinFullStart fixes the snapshot a read starting with a full read will
// read (the latest, for latest-full and the default scan mode), so the keys
// a job produces from it can be read in batch mode first: the job's scan
// becomes from-snapshot-full at that snapshot (streaming: the snapshot,
// then every later one, as latest-full reads them) and the batch read
// reads that snapshot (from-snapshot). A streaming read that resumes a
// consumer's progress does not start with a full read (Resumes says so);
// other scan modes (latest, from-timestamp, compacted-full, from-snapshot,
// a tag) fail, naming the mode.
func (s *Source) PinFullStart() (connectors.PinnedStart, error) {
	mode := coreoptions.ResolveMode(s.cfg.raw)
	if s.cfg.opts.Has(coreoptions.OptScanTagName) {
		mode = "tag " + s.cfg.opts.Get(coreoptions.OptScanTagName)
	}
	switch mode {
	case coreoptions.ScanLatestFull, coreoptions.ScanFromSnapshotFull:
	default:
		if !s.bounded || mode != coreoptions.ScanLatest {
			return connectors.PinnedStart{}, sql.Errorf(sql.ValidationException,
				"Paimon table %s is read with scan mode '%s', which does not start with a full read of the table's latest state "+
					"(latest-full, the default, or from-snapshot-full does).", s.cfg.id, mode)
		}
	}
	path, err := s.cfg.path()
	if err != nil {
		return connectors.PinnedStart{}, err
	}
	t, err := s.cfg.openForRead(path)
	if err != nil {
		return connectors.PinnedStart{}, err
	}
	if !s.bounded && s.cfg.opts.Has(coreoptions.OptConsumerID) && !s.cfg.opts.Bool(coreoptions.OptConsumerIgnoreProgress) {
		id := s.cfg.opts.Get(coreoptions.OptConsumerID)
		c, err := t.Snapshots.ReadConsumer(id)
		switch {
		case err == nil:
			return connectors.PinnedStart{Resumes: "consumer '" + id + "' at snapshot " + strconv.FormatInt(c.NextSnapshot, 10)}, nil
		case !errors.Is(err, snapshot.ErrNotFound):
			return connectors.PinnedStart{}, err
		}
	}
	var at int64
	if mode == coreoptions.ScanFromSnapshotFull {
		at = s.cfg.opts.Int64(coreoptions.OptScanSnapshotID)
	} else {
		latest, ok, err := t.Snapshots.LatestID()
		if err != nil {
			return connectors.PinnedStart{}, err
		}
		if !ok {
			return connectors.PinnedStart{Empty: true, At: "no snapshot yet"}, nil
		}
		at = latest
	}
	id := strconv.FormatInt(at, 10)
	batch := map[string]string{coreoptions.OptScanMode: coreoptions.ScanFromSnapshot, coreoptions.OptScanSnapshotID: id}
	stream := map[string]string{coreoptions.OptScanMode: coreoptions.ScanFromSnapshotFull, coreoptions.OptScanSnapshotID: id}
	if s.bounded {
		stream = batch
	}
	return connectors.PinnedStart{Stream: stream, Batch: batch, At: "snapshot " + id}, nil
}
