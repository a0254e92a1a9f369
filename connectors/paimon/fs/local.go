package fs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/sqlrun/sqlrun/connectors"
)

// Local is the FileIO of the local file system. It accepts plain paths and
// file:// URIs (file:///tmp/w and file:/tmp/w, as Hadoop writes them).
type Local struct{}

// NewLocal returns the local FileIO.
func NewLocal() *Local { return &Local{} }

var _ FileIO = (*Local)(nil)

// LocalPath converts a plain path or file: URI to an OS path
// (connectors.LocalPath: every connector that reads local files takes the
// same paths).
func LocalPath(p string) (string, error) { return connectors.LocalPath(p) }

func mapErr(op, p string, err error) error {
	if errors.Is(err, iofs.ErrNotExist) {
		return fmt.Errorf("%s %s: %w: %w", op, p, ErrNotExist, err)
	}
	if errors.Is(err, iofs.ErrExist) {
		return fmt.Errorf("%s %s: %w: %w", op, p, ErrExist, err)
	}
	return fmt.Errorf("%s %s: %w", op, p, err)
}

type localFile struct {
	*os.File
	size int64
}

func (f *localFile) Size() int64 { return f.size }

// Open implements FileIO.
func (l *Local) Open(p string) (File, error) {
	lp, err := LocalPath(p)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(lp)
	if err != nil {
		return nil, mapErr("open", p, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, mapErr("stat", p, err)
	}
	return &localFile{File: f, size: st.Size()}, nil
}

// ReadFile implements FileIO.
func (l *Local) ReadFile(p string) ([]byte, error) {
	lp, err := LocalPath(p)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(lp)
	if err != nil {
		return nil, mapErr("read", p, err)
	}
	return b, nil
}

// Create implements FileIO.
func (l *Local) Create(p string) (io.WriteCloser, error) {
	lp, err := LocalPath(p)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(lp), 0o755); err != nil {
		return nil, mapErr("mkdir", p, err)
	}
	f, err := os.Create(lp)
	if err != nil {
		return nil, mapErr("create", p, err)
	}
	return &syncCloser{f: f, p: p}, nil
}

// syncCloser fsyncs on Close, so a file a manifest points to is durable
// before the snapshot that references it is committed.
type syncCloser struct {
	f *os.File
	p string
}

func (s *syncCloser) Write(b []byte) (int, error) { return s.f.Write(b) }
func (s *syncCloser) Close() error {
	serr := s.f.Sync()
	cerr := s.f.Close()
	if serr != nil {
		return mapErr("sync", s.p, serr)
	}
	if cerr != nil {
		return mapErr("close", s.p, cerr)
	}
	return nil
}

func tempName(lp string) string {
	var r [8]byte
	_, _ = rand.Read(r[:])
	return filepath.Join(filepath.Dir(lp), "."+filepath.Base(lp)+"."+hex.EncodeToString(r[:])+".tmp")
}

func writeTemp(lp string, data []byte) (string, error) {
	if err := os.MkdirAll(filepath.Dir(lp), 0o755); err != nil {
		return "", err
	}
	tmp := tempName(lp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// WriteFileAtomic implements FileIO with link(2): the temp file is complete
// and synced before it gets the target name, and link fails with EEXIST when
// the target exists, so exactly one of several racing writers wins.
func (l *Local) WriteFileAtomic(p string, data []byte) error {
	lp, err := LocalPath(p)
	if err != nil {
		return err
	}
	tmp, err := writeTemp(lp, data)
	if err != nil {
		return mapErr("write", p, err)
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, lp); err != nil {
		return mapErr("create", p, err)
	}
	syncDir(filepath.Dir(lp))
	return nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Overwrite implements FileIO with temp file + rename.
func (l *Local) Overwrite(p string, data []byte) error {
	lp, err := LocalPath(p)
	if err != nil {
		return err
	}
	tmp, err := writeTemp(lp, data)
	if err != nil {
		return mapErr("write", p, err)
	}
	if err := os.Rename(tmp, lp); err != nil {
		os.Remove(tmp)
		return mapErr("rename", p, err)
	}
	return nil
}

// Exists implements FileIO.
func (l *Local) Exists(p string) (bool, error) {
	lp, err := LocalPath(p)
	if err != nil {
		return false, err
	}
	_, err = os.Stat(lp)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, iofs.ErrNotExist) {
		return false, nil
	}
	return false, mapErr("stat", p, err)
}

// List implements FileIO.
func (l *Local) List(dir string) ([]FileStatus, error) {
	lp, err := LocalPath(dir)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(lp)
	if err != nil {
		if errors.Is(err, iofs.ErrNotExist) {
			return nil, nil
		}
		return nil, mapErr("list", dir, err)
	}
	out := make([]FileStatus, 0, len(ents))
	for _, e := range ents {
		st := FileStatus{Path: Join(dir, e.Name()), Name: e.Name(), IsDir: e.IsDir()}
		if info, err := e.Info(); err == nil {
			st.Size, st.ModTime = info.Size(), info.ModTime()
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Delete implements FileIO.
func (l *Local) Delete(p string) error {
	lp, err := LocalPath(p)
	if err != nil {
		return err
	}
	if err := os.Remove(lp); err != nil && !errors.Is(err, iofs.ErrNotExist) {
		return mapErr("delete", p, err)
	}
	return nil
}

// DeleteAll implements FileIO.
func (l *Local) DeleteAll(p string) error {
	lp, err := LocalPath(p)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(lp); err != nil {
		return mapErr("delete", p, err)
	}
	return nil
}

// MkdirAll implements FileIO.
func (l *Local) MkdirAll(dir string) error {
	lp, err := LocalPath(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(lp, 0o755); err != nil {
		return mapErr("mkdir", dir, err)
	}
	return nil
}

// Rename implements FileIO.
func (l *Local) Rename(src, dst string) error {
	ls, err := LocalPath(src)
	if err != nil {
		return err
	}
	ld, err := LocalPath(dst)
	if err != nil {
		return err
	}
	if err := os.Rename(ls, ld); err != nil {
		return mapErr("rename "+src+" to", dst, err)
	}
	return nil
}
