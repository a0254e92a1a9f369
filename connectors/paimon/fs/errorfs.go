package fs

import (
	"errors"
	"fmt"
	"io"
	"path"
	"sync"
)

// ErrInjected is the error an Injector returns; tests branch on it with
// errors.Is to tell injected failures from real ones.
var ErrInjected = errors.New("injected error")

// Op names a kind of FileIO operation for fault injection.
type Op uint8

// The operation kinds. OpWrite is a Write on a file returned by Create and
// OpClose its Close, so a test can fail a data file half-way.
const (
	OpOpen Op = iota
	OpRead
	OpCreate
	OpWrite
	OpClose
	OpWriteAtomic
	OpOverwrite
	OpExists
	OpList
	OpDelete
	OpMkdir
	OpRename
	numOps
)

var opNames = [...]string{"open", "read", "create", "write", "close", "write-atomic", "overwrite",
	"exists", "list", "delete", "mkdir", "rename"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", o)
}

// Injector decides whether an operation on a path fails. It is called with
// the Injecting FS's lock held, so implementations need no locking.
type Injector interface {
	MaybeError(op Op, path string) error
}

// InjectorFunc adapts a function to Injector.
type InjectorFunc func(op Op, path string) error

// MaybeError implements Injector.
func (f InjectorFunc) MaybeError(op Op, p string) error { return f(op, p) }

// FailNth fails the n-th (1-based) operation of kind op, and only that one.
// Counting every step of a commit and failing each in turn is how crash
// tests enumerate the points where a process can die.
func FailNth(op Op, n int) Injector {
	count := 0
	return InjectorFunc(func(o Op, p string) error {
		if o != op {
			return nil
		}
		count++
		if count == n {
			return fmt.Errorf("%s %s (#%d): %w", op, p, n, ErrInjected)
		}
		return nil
	})
}

// FailMatching fails every operation of kind op (any kind when op is
// numOps, see AnyOp) whose base name matches the glob pattern (path.Match
// syntax, e.g. "snapshot-*" or "manifest-list-*").
func FailMatching(op Op, pattern string) Injector {
	return InjectorFunc(func(o Op, p string) error {
		if op != AnyOp && o != op {
			return nil
		}
		if ok, _ := path.Match(pattern, Base(p)); ok {
			return fmt.Errorf("%s %s: %w", o, p, ErrInjected)
		}
		return nil
	})
}

// AnyOp makes FailMatching match every operation kind.
const AnyOp = numOps

// Injecting wraps a FileIO and consults an Injector before each operation.
// It also counts operations per kind, so a test can first run a commit
// cleanly, read Count, then re-run it failing each step 1..Count in turn.
type Injecting struct {
	inner FileIO
	mu    sync.Mutex
	inj   Injector
	count [numOps]int
}

// NewInjecting wraps inner; inj may be nil (count only) and can be replaced
// with SetInjector.
func NewInjecting(inner FileIO, inj Injector) *Injecting {
	return &Injecting{inner: inner, inj: inj}
}

var _ FileIO = (*Injecting)(nil)

// SetInjector replaces the injector (nil disables injection).
func (e *Injecting) SetInjector(inj Injector) {
	e.mu.Lock()
	e.inj = inj
	e.mu.Unlock()
}

// Count returns how many operations of kind op were attempted.
func (e *Injecting) Count(op Op) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.count[op]
}

// ResetCounts zeroes the per-kind counters.
func (e *Injecting) ResetCounts() {
	e.mu.Lock()
	e.count = [numOps]int{}
	e.mu.Unlock()
}

func (e *Injecting) check(op Op, p string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.count[op]++
	if e.inj == nil {
		return nil
	}
	return e.inj.MaybeError(op, p)
}

// Open implements FileIO.
func (e *Injecting) Open(p string) (File, error) {
	if err := e.check(OpOpen, p); err != nil {
		return nil, err
	}
	return e.inner.Open(p)
}

// ReadFile implements FileIO.
func (e *Injecting) ReadFile(p string) ([]byte, error) {
	if err := e.check(OpRead, p); err != nil {
		return nil, err
	}
	return e.inner.ReadFile(p)
}

// Create implements FileIO.
func (e *Injecting) Create(p string) (io.WriteCloser, error) {
	if err := e.check(OpCreate, p); err != nil {
		return nil, err
	}
	w, err := e.inner.Create(p)
	if err != nil {
		return nil, err
	}
	return &injectingWriter{e: e, w: w, p: p}, nil
}

type injectingWriter struct {
	e *Injecting
	w io.WriteCloser
	p string
}

// Write fails before writing anything, leaving a truncated file behind as a
// crashed process would.
func (w *injectingWriter) Write(b []byte) (int, error) {
	if err := w.e.check(OpWrite, w.p); err != nil {
		return 0, err
	}
	return w.w.Write(b)
}

func (w *injectingWriter) Close() error {
	if err := w.e.check(OpClose, w.p); err != nil {
		w.w.Close()
		return err
	}
	return w.w.Close()
}

// WriteFileAtomic implements FileIO.
func (e *Injecting) WriteFileAtomic(p string, data []byte) error {
	if err := e.check(OpWriteAtomic, p); err != nil {
		return err
	}
	return e.inner.WriteFileAtomic(p, data)
}

// Overwrite implements FileIO.
func (e *Injecting) Overwrite(p string, data []byte) error {
	if err := e.check(OpOverwrite, p); err != nil {
		return err
	}
	return e.inner.Overwrite(p, data)
}

// Exists implements FileIO.
func (e *Injecting) Exists(p string) (bool, error) {
	if err := e.check(OpExists, p); err != nil {
		return false, err
	}
	return e.inner.Exists(p)
}

// List implements FileIO.
func (e *Injecting) List(dir string) ([]FileStatus, error) {
	if err := e.check(OpList, dir); err != nil {
		return nil, err
	}
	return e.inner.List(dir)
}

// Delete implements FileIO.
func (e *Injecting) Delete(p string) error {
	if err := e.check(OpDelete, p); err != nil {
		return err
	}
	return e.inner.Delete(p)
}

// DeleteAll implements FileIO.
func (e *Injecting) DeleteAll(p string) error {
	if err := e.check(OpDelete, p); err != nil {
		return err
	}
	return e.inner.DeleteAll(p)
}

// MkdirAll implements FileIO.
func (e *Injecting) MkdirAll(dir string) error {
	if err := e.check(OpMkdir, dir); err != nil {
		return err
	}
	return e.inner.MkdirAll(dir)
}

// Rename implements FileIO.
func (e *Injecting) Rename(src, dst string) error {
	if err := e.check(OpRename, src); err != nil {
		return err
	}
	return e.inner.Rename(src, dst)
}
