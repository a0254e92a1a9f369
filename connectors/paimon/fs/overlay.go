package fs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Overlay is a copy-on-write FileIO (the dry run of `sqlrun explain`
// opens a Paimon catalog over one): reads see the base file system as
// changed by this overlay's own writes and deletes; nothing reaches the
// base. Deleted paths are remembered (whiteouts) so a dropped table stays
// gone for the statements after the DROP.
type Overlay struct {
	base  FileIO
	upper *Mem

	mu      sync.Mutex
	deleted map[string]bool
}

func NewOverlay(base FileIO) *Overlay {
	return &Overlay{base: base, upper: NewMem(), deleted: map[string]bool{}}
}

var _ FileIO = (*Overlay)(nil)

// clean turns a path or file: URI into the overlay's key: a cleaned
// slash path (an s3:// path is its own key). Other schemes fail as the
// local file system fails them.
func (o *Overlay) clean(p string) (string, error) {
	if IsObjectStorePath(p) {
		return strings.TrimRight(p, "/"), nil
	}
	lp, err := LocalPath(p)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(filepath.Clean(lp)), nil
}

// hidden reports whether p or one of its parents was deleted here: the
// base's copy is gone for this overlay.
func (o *Overlay) hidden(p string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for q := p; ; {
		if o.deleted[q] {
			return true
		}
		i := strings.LastIndexByte(q, '/')
		if i <= 0 {
			return false
		}
		q = q[:i]
	}
}

func (o *Overlay) inUpper(p string) bool {
	ok, _ := o.upper.Exists(p)
	return ok
}

func (o *Overlay) Open(p string) (File, error) {
	c, err := o.clean(p)
	if err != nil {
		return nil, err
	}
	if o.inUpper(c) {
		return o.upper.Open(c)
	}
	if o.hidden(c) {
		return nil, fmt.Errorf("open %s: %w", p, ErrNotExist)
	}
	return o.base.Open(p)
}

func (o *Overlay) ReadFile(p string) ([]byte, error) {
	c, err := o.clean(p)
	if err != nil {
		return nil, err
	}
	if o.inUpper(c) {
		return o.upper.ReadFile(c)
	}
	if o.hidden(c) {
		return nil, fmt.Errorf("read %s: %w", p, ErrNotExist)
	}
	return o.base.ReadFile(p)
}

func (o *Overlay) Create(p string) (io.WriteCloser, error) {
	c, err := o.clean(p)
	if err != nil {
		return nil, err
	}
	return o.upper.Create(c)
}

func (o *Overlay) WriteFileAtomic(p string, data []byte) error {
	ok, err := o.Exists(p)
	if err != nil {
		return err
	}
	if ok {
		return fmt.Errorf("write %s: %w", p, ErrExist)
	}
	c, err := o.clean(p)
	if err != nil {
		return err
	}
	return o.upper.WriteFileAtomic(c, data)
}

func (o *Overlay) Overwrite(p string, data []byte) error {
	c, err := o.clean(p)
	if err != nil {
		return err
	}
	return o.upper.Overwrite(c, data)
}

func (o *Overlay) Exists(p string) (bool, error) {
	c, err := o.clean(p)
	if err != nil {
		return false, err
	}
	if o.inUpper(c) {
		return true, nil
	}
	if o.hidden(c) {
		return false, nil
	}
	return o.base.Exists(p)
}

func (o *Overlay) List(dir string) ([]FileStatus, error) {
	c, err := o.clean(dir)
	if err != nil {
		return nil, err
	}
	byName := map[string]FileStatus{}
	if !o.hidden(c) {
		base, err := o.base.List(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range base {
			if !o.hidden(c + "/" + e.Name) {
				byName[e.Name] = e
			}
		}
	}
	upper, err := o.upper.List(c)
	if err != nil {
		return nil, err
	}
	for _, e := range upper {
		byName[e.Name] = e
	}
	out := make([]FileStatus, 0, len(byName))
	for _, e := range byName {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (o *Overlay) Delete(p string) error {
	c, err := o.clean(p)
	if err != nil {
		return err
	}
	if err := o.upper.Delete(c); err != nil {
		return err
	}
	o.mu.Lock()
	o.deleted[c] = true
	o.mu.Unlock()
	return nil
}

func (o *Overlay) DeleteAll(p string) error {
	c, err := o.clean(p)
	if err != nil {
		return err
	}
	if err := o.upper.DeleteAll(c); err != nil {
		return err
	}
	o.mu.Lock()
	o.deleted[c] = true
	o.mu.Unlock()
	return nil
}

// MkdirAll fails, as the disk would, when a file the overlay still shows
// stands where a directory must be (a warehouse path that is a file).
func (o *Overlay) MkdirAll(dir string) error {
	c, err := o.clean(dir)
	if err != nil {
		return err
	}
	for q := c; q != "" && q != "/" && q != "."; q = filepath.ToSlash(filepath.Dir(q)) {
		if o.inUpper(q) || o.hidden(q) {
			continue
		}
		if st, err := os.Stat(filepath.FromSlash(q)); err == nil && !st.IsDir() {
			return fmt.Errorf("mkdir %s: %s is not a directory", dir, q)
		}
	}
	return o.upper.MkdirAll(c)
}

// Rename copies a file into the overlay under its new name and hides the
// old one. Directories are not renamed by the catalog; they are refused.
func (o *Overlay) Rename(src, dst string) error {
	data, err := o.ReadFile(src)
	if err != nil {
		if errors.Is(err, ErrNotExist) {
			return err
		}
		return fmt.Errorf("rename %s in a dry run: %w", src, err)
	}
	if err := o.Overwrite(dst, data); err != nil {
		return err
	}
	return o.Delete(src)
}
