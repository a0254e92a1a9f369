package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/sql"
)

// MetadataFile is the file that makes a checkpoint directory complete. It
// is written last, through a temporary file and a rename, so a directory
// without it is an interrupted checkpoint and is never restored.
const MetadataFile = "_metadata"

// FormatVersion is the checkpoint format this runtime writes and reads.
const FormatVersion = 1

// Checkpoint is a completed checkpoint or savepoint: the state of every
// subtask and every sink's committables, by vertex UID.
type Checkpoint struct {
	Version   int       `json:"version"`
	JobID     string    `json:"jobId"`
	JobName   string    `json:"jobName"`
	ID        int64     `json:"checkpointId"`
	Savepoint bool      `json:"savepoint"`
	Timestamp time.Time `json:"timestamp"`
	// Vertices lists each vertex's state; the blobs live in StateFile.
	Vertices []VertexState `json:"vertices"`

	// Dir is where the checkpoint was read from or written to.
	Dir string `json:"-"`
	// Size is the bytes of state written.
	Size int64 `json:"-"`
}

// VertexState is one vertex's share of a checkpoint.
type VertexState struct {
	UID         string `json:"uid"`
	Name        string `json:"name"`
	Parallelism int    `json:"parallelism"`
	// StateFile holds the subtask states (codec: count, then byte strings).
	StateFile string `json:"stateFile,omitempty"`
	// Committables are the sink writers' committables, by subtask.
	Committables [][]byte `json:"committables,omitempty"`

	subtasks [][]byte
}

// Subtask returns subtask i's restored state (nil when it had none).
func (v *VertexState) Subtask(i int) []byte {
	if i < len(v.subtasks) {
		return v.subtasks[i]
	}
	return nil
}

// SanitizeJobName makes a job name usable as a directory name.
func SanitizeJobName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || s == "." || s == ".." {
		s = "job"
	}
	return s
}

// DefaultCheckpointDir is state.checkpoints.dir when it is not set:
// $XDG_DATA_HOME/sqlrun/checkpoints, else ~/.local/share/sqlrun/checkpoints.
func DefaultCheckpointDir() string {
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "sqlrun", "checkpoints")
}

// writeCheckpoint stores cp under dir (which must not exist yet): the state
// files first, each synced, then the metadata through tmp + rename, then
// the directory is synced.
func writeCheckpoint(dir string, cp *Checkpoint) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create checkpoint directory: %w", err)
	}
	var size int64
	for i := range cp.Vertices {
		v := &cp.Vertices[i]
		var e state.Encoder
		e.Uvarint(uint64(len(v.subtasks)))
		for _, s := range v.subtasks {
			e.Bytes(s)
		}
		v.StateFile = fmt.Sprintf("op-%d.state", i)
		if err := writeFileSync(filepath.Join(dir, v.StateFile), e.Buf); err != nil {
			return fmt.Errorf("write state of %s: %w", v.Name, err)
		}
		size += int64(len(e.Buf))
		for _, c := range v.Committables {
			size += int64(len(c))
		}
	}
	meta, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		return fmt.Errorf("encode checkpoint metadata: %w", err)
	}
	tmp := filepath.Join(dir, MetadataFile+".inprogress")
	if err := writeFileSync(tmp, meta); err != nil {
		return fmt.Errorf("write checkpoint metadata: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, MetadataFile)); err != nil {
		return fmt.Errorf("publish checkpoint metadata: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	cp.Dir = dir
	cp.Size = size + int64(len(meta))
	return nil
}

func writeFileSync(path string, b []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadCheckpoint loads a completed checkpoint or savepoint directory (the
// value of execution.savepoint.path). A path to the _metadata file itself
// is accepted too, as Flink does.
func ReadCheckpoint(path string) (*Checkpoint, error) {
	dir := path
	if filepath.Base(path) == MetadataFile {
		dir = filepath.Dir(path)
	}
	meta, err := os.ReadFile(filepath.Join(dir, MetadataFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, sql.Errorf(sql.IOException, "Cannot find meta data file '%s' in directory '%s'. Please try to load the checkpoint/savepoint directly from the metadata file instead of the directory.", MetadataFile, dir)
		}
		return nil, fmt.Errorf("read checkpoint metadata: %w", err)
	}
	var cp Checkpoint
	if err := json.Unmarshal(meta, &cp); err != nil {
		return nil, fmt.Errorf("decode checkpoint metadata %s: %w", dir, err)
	}
	if cp.Version != FormatVersion {
		return nil, fmt.Errorf("checkpoint %s has format version %d, this build reads %d", dir, cp.Version, FormatVersion)
	}
	for i := range cp.Vertices {
		v := &cp.Vertices[i]
		if v.StateFile == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.Base(v.StateFile)))
		if err != nil {
			return nil, fmt.Errorf("read state of %s: %w", v.Name, err)
		}
		d := state.Decoder{Buf: b}
		n, err := d.Uvarint()
		if err != nil || n > uint64(len(b)) {
			return nil, fmt.Errorf("state of %s in %s: %w", v.Name, dir, state.ErrCorrupt)
		}
		v.subtasks = make([][]byte, n)
		for j := range v.subtasks {
			if v.subtasks[j], err = d.Bytes(); err != nil {
				return nil, fmt.Errorf("state of %s in %s: %w", v.Name, dir, err)
			}
			if len(v.subtasks[j]) == 0 {
				v.subtasks[j] = nil
			}
		}
		cp.Size += int64(len(b))
	}
	cp.Dir = dir
	return &cp, nil
}

// LatestCheckpoint finds the newest completed checkpoint or savepoint of a
// job under checkpointsDir (what `sqlrun --resume` restores). It returns
// "" and no error when the job has none.
func LatestCheckpoint(checkpointsDir, jobName string) (string, error) {
	jobDir := filepath.Join(checkpointsDir, SanitizeJobName(jobName))
	entries, err := os.ReadDir(jobDir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", nil
		}
		return "", fmt.Errorf("list checkpoints of %s: %w", jobName, err)
	}
	best, bestID := "", int64(-1)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(jobDir, e.Name())
		var id int64
		switch {
		case strings.HasPrefix(e.Name(), "chk-"):
			n, err := strconv.ParseInt(strings.TrimPrefix(e.Name(), "chk-"), 10, 64)
			if err != nil {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, MetadataFile)); err != nil {
				continue
			}
			id = n
		case strings.HasPrefix(e.Name(), "savepoint-"):
			cp, err := ReadCheckpoint(dir)
			if err != nil {
				continue
			}
			id = cp.ID
		default:
			continue
		}
		if id > bestID {
			best, bestID = dir, id
		}
	}
	return best, nil
}

// highestCheckpointID is the largest N of the chk-N directories under
// jobDir (complete or not), 0 when there are none.
func highestCheckpointID(jobDir string) int64 {
	entries, err := os.ReadDir(jobDir)
	if err != nil {
		return 0
	}
	var best int64
	for _, e := range entries {
		if n, err := strconv.ParseInt(strings.TrimPrefix(e.Name(), "chk-"), 10, 64); err == nil &&
			strings.HasPrefix(e.Name(), "chk-") && n > best {
			best = n
		}
	}
	return best
}

// retainCheckpoints deletes completed chk-N directories beyond the newest
// keep (execution.checkpointing.num-retained) and incomplete ones older
// than the newest complete one. Savepoints are never deleted.
func retainCheckpoints(jobDir string, keep int) error {
	entries, err := os.ReadDir(jobDir)
	if err != nil {
		return err
	}
	type chk struct {
		id       int64
		dir      string
		complete bool
	}
	var all []chk
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "chk-") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimPrefix(e.Name(), "chk-"), 10, 64)
		if err != nil {
			continue
		}
		dir := filepath.Join(jobDir, e.Name())
		_, statErr := os.Stat(filepath.Join(dir, MetadataFile))
		all = append(all, chk{n, dir, statErr == nil})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].id > all[j].id })
	kept := 0
	var firstErr error
	for _, c := range all {
		if c.complete && kept < keep {
			kept++
			continue
		}
		if !c.complete && kept == 0 {
			continue // may be in progress
		}
		if err := os.RemoveAll(c.dir); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// savepointDirName is Flink's savepoint-<first 6 hex of job id>-<12 hex>.
func savepointDirName(jobID string) string {
	r := strings.ReplaceAll(uuid.NewString(), "-", "")
	if len(jobID) > 6 {
		jobID = jobID[:6]
	}
	return "savepoint-" + jobID + "-" + r[:12]
}
