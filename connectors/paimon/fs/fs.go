// Package fs is the file I/O layer of the Paimon store: one small interface
// (FileIO) that every other leaf reads and writes through, a local
// implementation, and an error-injecting wrapper for crash tests.
//
// The interface is shaped by what a Paimon table needs and nothing more, so
// that an object store (S3, OSS, GCS) can implement it later:
//
//   - whole-file reads (metadata is small) and random-access reads (Parquet
//     footers are read from the end);
//   - streaming creation of new files whose names are unique (data files,
//     manifests: a UUID is part of every name, so no create ever races);
//   - WriteFileAtomic, the one operation correctness hangs on: it creates a
//     file only if it does not exist yet and makes its whole content visible
//     at once. Snapshot commits and schema creation are decided by it: two
//     committers race for snapshot-N and exactly one wins. Locally it is
//     link(2) of a fully written temp file (EEXIST means lost); an object
//     store would use a conditional put (If-None-Match: *).
//   - Overwrite for hint files (LATEST, EARLIEST, consumers): last writer
//     wins and readers never see a torn file (temp file + rename).
//
// Paths are strings, either plain OS paths or file:///... URIs; Join builds
// child paths with '/'.
package fs

import (
	"errors"
	"io"
	"strings"
	"time"
)

// ErrExist is returned (wrapped) by WriteFileAtomic when the target exists.
// Callers branch on it with errors.Is: for a snapshot commit it means another
// committer won the race for this id.
var ErrExist = errors.New("file already exists")

// ErrNotExist is returned (wrapped) when a file to read does not exist.
var ErrNotExist = errors.New("file does not exist")

// File is an open file for reading. Size is known up front because the
// Parquet reader needs it and Paimon records exact sizes in manifests.
type File interface {
	io.Reader
	io.ReaderAt
	io.Closer
	Size() int64
}

// FileStatus describes one entry of a directory listing.
type FileStatus struct {
	// Path is the full path (dir joined with Name).
	Path string
	// Name is the last path element.
	Name    string
	Size    int64
	IsDir   bool
	ModTime time.Time
}

// FileIO is the file system a Paimon table lives on. Implementations must be
// safe for concurrent use by several goroutines.
type FileIO interface {
	// Open opens a file for reading; a missing file gives an error wrapping
	// ErrNotExist.
	Open(path string) (File, error)
	// ReadFile returns the whole content of a file (ErrNotExist if missing).
	ReadFile(path string) ([]byte, error)
	// Create creates (or truncates) a file for streaming writes, creating
	// parent directories. The content is complete only after Close returns
	// nil; a failed Close leaves garbage that the caller deletes. Use it only
	// for uniquely named files.
	Create(path string) (io.WriteCloser, error)
	// WriteFileAtomic creates path with data if and only if path does not
	// exist, and never exposes partial content. If it exists the error wraps
	// ErrExist and the existing file is untouched.
	WriteFileAtomic(path string, data []byte) error
	// Overwrite replaces path's content atomically (readers see the old or
	// the new content); for hint and consumer files.
	Overwrite(path string, data []byte) error
	// Exists reports whether path exists.
	Exists(path string) (bool, error)
	// List returns the entries of dir sorted by name; a missing dir is an
	// empty listing, not an error (a fresh table has no snapshot/ yet).
	List(dir string) ([]FileStatus, error)
	// Delete removes a file or an empty directory; a missing path is not an
	// error (deletes are retried by expiration and cleanup).
	Delete(path string) error
	// DeleteAll removes a directory tree (DROP TABLE).
	DeleteAll(path string) error
	// MkdirAll creates a directory and its parents.
	MkdirAll(dir string) error
	// Rename moves src to dst, replacing dst if it exists.
	Rename(src, dst string) error
}

// Join joins path elements with '/', keeping a URI scheme intact.
func Join(elem ...string) string {
	var b strings.Builder
	for i, e := range elem {
		if e == "" {
			continue
		}
		if i > 0 && b.Len() > 0 && !strings.HasSuffix(b.String(), "/") {
			b.WriteByte('/')
		}
		if b.Len() > 0 {
			e = strings.TrimLeft(e, "/")
		}
		b.WriteString(e)
	}
	return b.String()
}

// Base returns the last element of a path.
func Base(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// Dir returns all but the last element of a path.
func Dir(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		if i == 0 {
			return "/"
		}
		return p[:i]
	}
	return "."
}
