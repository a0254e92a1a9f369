package fs

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// Mem is an in-memory FileIO with the same semantics as Local (atomic
// exclusive create, atomic overwrite, sorted listings, missing-is-empty
// lists and missing-is-fine deletes). It makes metamorphic and crash tests
// fast and lets them snapshot the whole "disk" (Clone) to simulate a
// restart at any point. Paths are cleaned of a file:// prefix and trailing
// slashes; directories exist implicitly when a file is below them.
type Mem struct {
	mu    sync.Mutex
	files map[string]memFile
	dirs  map[string]bool
}

type memFile struct {
	data []byte
	mod  time.Time
}

// NewMem returns an empty in-memory FileIO.
func NewMem() *Mem { return &Mem{files: map[string]memFile{}, dirs: map[string]bool{}} }

var _ FileIO = (*Mem)(nil)

func memPath(p string) string {
	p = strings.TrimPrefix(p, "file://")
	p = strings.TrimPrefix(p, "file:")
	for len(p) > 1 && strings.HasSuffix(p, "/") {
		p = p[:len(p)-1]
	}
	return p
}

// Clone returns an independent copy of the current state: what a process
// restarted now would find.
func (m *Mem) Clone() *Mem {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := NewMem()
	for k, v := range m.files {
		c.files[k] = memFile{data: append([]byte(nil), v.data...), mod: v.mod}
	}
	for k := range m.dirs {
		c.dirs[k] = true
	}
	return c
}

type memReader struct {
	*bytes.Reader
}

func (memReader) Close() error  { return nil }
func (r memReader) Size() int64 { return r.Reader.Size() }

// Open implements FileIO.
func (m *Mem) Open(p string) (File, error) {
	b, err := m.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return memReader{bytes.NewReader(b)}, nil
}

// ReadFile implements FileIO.
func (m *Mem) ReadFile(p string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.files[memPath(p)]
	if !ok {
		return nil, fmt.Errorf("read %s: %w", p, ErrNotExist)
	}
	return f.data, nil // never mutated in place: writers replace the slice
}

type memWriter struct {
	m   *Mem
	p   string
	buf bytes.Buffer
}

func (w *memWriter) Write(b []byte) (int, error) { return w.buf.Write(b) }

// Close publishes the content (a crash before Close leaves an empty file,
// as a crashed local writer leaves a truncated one).
func (w *memWriter) Close() error {
	w.m.put(w.p, append([]byte(nil), w.buf.Bytes()...))
	return nil
}

func (m *Mem) put(p string, data []byte) {
	m.mu.Lock()
	m.files[p] = memFile{data: data, mod: time.Now()}
	m.mu.Unlock()
}

// Create implements FileIO.
func (m *Mem) Create(p string) (io.WriteCloser, error) {
	mp := memPath(p)
	m.put(mp, nil)
	return &memWriter{m: m, p: mp}, nil
}

// WriteFileAtomic implements FileIO.
func (m *Mem) WriteFileAtomic(p string, data []byte) error {
	mp := memPath(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[mp]; ok {
		return fmt.Errorf("create %s: %w", p, ErrExist)
	}
	m.files[mp] = memFile{data: append([]byte(nil), data...), mod: time.Now()}
	return nil
}

// Overwrite implements FileIO.
func (m *Mem) Overwrite(p string, data []byte) error {
	m.put(memPath(p), append([]byte(nil), data...))
	return nil
}

// Exists implements FileIO.
func (m *Mem) Exists(p string) (bool, error) {
	mp := memPath(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[mp]; ok || m.dirs[mp] {
		return true, nil
	}
	prefix := mp + "/"
	for k := range m.files {
		if strings.HasPrefix(k, prefix) {
			return true, nil
		}
	}
	return false, nil
}

// List implements FileIO.
func (m *Mem) List(dir string) ([]FileStatus, error) {
	d := memPath(dir)
	prefix := d + "/"
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := map[string]FileStatus{}
	for k, f := range m.files {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		rest := k[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			name := rest[:i]
			seen[name] = FileStatus{Path: Join(dir, name), Name: name, IsDir: true}
			continue
		}
		seen[rest] = FileStatus{Path: Join(dir, rest), Name: rest, Size: int64(len(f.data)), ModTime: f.mod}
	}
	for k := range m.dirs {
		if strings.HasPrefix(k, prefix) {
			name := strings.SplitN(k[len(prefix):], "/", 2)[0]
			if _, ok := seen[name]; !ok {
				seen[name] = FileStatus{Path: Join(dir, name), Name: name, IsDir: true}
			}
		}
	}
	out := make([]FileStatus, 0, len(seen))
	for _, s := range seen {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Delete implements FileIO.
func (m *Mem) Delete(p string) error {
	mp := memPath(p)
	m.mu.Lock()
	delete(m.files, mp)
	delete(m.dirs, mp)
	m.mu.Unlock()
	return nil
}

// DeleteAll implements FileIO.
func (m *Mem) DeleteAll(p string) error {
	mp := memPath(p)
	prefix := mp + "/"
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.files {
		if k == mp || strings.HasPrefix(k, prefix) {
			delete(m.files, k)
		}
	}
	for k := range m.dirs {
		if k == mp || strings.HasPrefix(k, prefix) {
			delete(m.dirs, k)
		}
	}
	return nil
}

// MkdirAll implements FileIO.
func (m *Mem) MkdirAll(dir string) error {
	m.mu.Lock()
	m.dirs[memPath(dir)] = true
	m.mu.Unlock()
	return nil
}

// Rename implements FileIO.
func (m *Mem) Rename(src, dst string) error {
	s, d := memPath(src), memPath(dst)
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.files[s]
	if !ok {
		return fmt.Errorf("rename %s: %w", src, ErrNotExist)
	}
	delete(m.files, s)
	m.files[d] = f
	return nil
}
