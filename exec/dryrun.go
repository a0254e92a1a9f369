package exec

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/warehouse"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// NewDryRunSession returns a session that changes nothing outside itself:
// `sqlrun explain -f` plans a whole script with it. DDL runs against a
// scratch copy of the catalog state — a Paimon catalog is opened over a
// copy-on-write overlay of its warehouse (reads fall through to the disk,
// writes and deletes stay in memory), so a table the script creates or
// alters plans as it would after the real statement, and a DROP hides the
// table from later statements without touching a file. Statements that
// only act (INSERT, queries, CALL, DELETE, UPDATE, STOP JOB) are not run:
// see Session.DryRun.
func NewDryRunSession() *Session {
	s := NewSession()
	s.DryRun = true
	s.Catalogs.Open = openDryRunCatalog
	return s
}

// openDryRunCatalog builds a CREATE CATALOG's catalog for a dry run. Only
// catalog types whose writes can be kept in memory are opened; any other
// type is refused rather than risk a change.
func openDryRunCatalog(name string, options map[string]string) (catalog.Catalog, error) {
	switch options["type"] {
	case "paimon":
		if err := checkPathScheme(options["warehouse"], "option 'warehouse' of catalog "+name); err != nil {
			return nil, err
		}
		return warehouse.New(newOverlayFS(fs.NewLocal()), options)
	case "generic_in_memory", "":
		return catalog.NewCatalog(name, options)
	}
	return nil, sql.Errorf(sql.ValidationException,
		"EXPLAIN of a script cannot open catalog type '%s' without changing it; only 'paimon' and 'generic_in_memory' catalogs are opened (over a scratch copy)", options["type"])
}

// checkPathScheme fails for a path the local file system cannot reach
// (hdfs://, s3://, oss://): sqlrun reads and writes local paths and file:
// URIs only, and says so when the table or catalog is created rather than
// at the first INSERT. what names the option ("option 'path' of table
// ...").
func checkPathScheme(p, what string) error {
	p = strings.TrimSpace(p)
	if p == "" {
		return nil
	}
	if _, err := fs.LocalPath(p); err != nil {
		scheme := p
		if i := strings.Index(p, ":"); i > 0 {
			scheme = p[:i]
		}
		return sql.Errorf(sql.ValidationException,
			"Unsupported file system scheme '%s' in %s ('%s'): sqlrun reads and writes local paths and file: URIs (file:///path) only.",
			scheme, what, p)
	}
	return nil
}

// dryRunSkips reports whether a statement only acts (runs a job, calls a
// procedure, stops a job, serves metrics): a dry run prints nothing for it
// and does nothing.
func dryRunSkips(stmt ast.Statement) bool {
	switch st := stmt.(type) {
	case *ast.Insert, *ast.StatementSet, *ast.Query, *ast.Delete, *ast.Update, *ast.Call, *ast.StopJob:
		return true
	case *ast.Set:
		return st.Key == KeyPromPort
	}
	return false
}

// overlayFS is a copy-on-write FileIO: reads see the base file system as
// changed by this overlay's own writes and deletes; nothing reaches the
// base. Deleted paths are remembered (whiteouts) so a dropped table stays
// gone for the statements after the DROP.
type overlayFS struct {
	base  fs.FileIO
	upper *fs.Mem

	mu      sync.Mutex
	deleted map[string]bool
}

func newOverlayFS(base fs.FileIO) *overlayFS {
	return &overlayFS{base: base, upper: fs.NewMem(), deleted: map[string]bool{}}
}

var _ fs.FileIO = (*overlayFS)(nil)

// clean turns a path or file: URI into the overlay's key: a cleaned
// slash path. Other schemes fail as the local file system fails them.
func (o *overlayFS) clean(p string) (string, error) {
	lp, err := fs.LocalPath(p)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(filepath.Clean(lp)), nil
}

// hidden reports whether p or one of its parents was deleted here: the
// base's copy is gone for this overlay.
func (o *overlayFS) hidden(p string) bool {
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

func (o *overlayFS) inUpper(p string) bool {
	ok, _ := o.upper.Exists(p)
	return ok
}

func (o *overlayFS) Open(p string) (fs.File, error) {
	c, err := o.clean(p)
	if err != nil {
		return nil, err
	}
	if o.inUpper(c) {
		return o.upper.Open(c)
	}
	if o.hidden(c) {
		return nil, fmt.Errorf("open %s: %w", p, fs.ErrNotExist)
	}
	return o.base.Open(p)
}

func (o *overlayFS) ReadFile(p string) ([]byte, error) {
	c, err := o.clean(p)
	if err != nil {
		return nil, err
	}
	if o.inUpper(c) {
		return o.upper.ReadFile(c)
	}
	if o.hidden(c) {
		return nil, fmt.Errorf("read %s: %w", p, fs.ErrNotExist)
	}
	return o.base.ReadFile(p)
}

func (o *overlayFS) Create(p string) (io.WriteCloser, error) {
	c, err := o.clean(p)
	if err != nil {
		return nil, err
	}
	return o.upper.Create(c)
}

func (o *overlayFS) WriteFileAtomic(p string, data []byte) error {
	ok, err := o.Exists(p)
	if err != nil {
		return err
	}
	if ok {
		return fmt.Errorf("write %s: %w", p, fs.ErrExist)
	}
	c, err := o.clean(p)
	if err != nil {
		return err
	}
	return o.upper.WriteFileAtomic(c, data)
}

func (o *overlayFS) Overwrite(p string, data []byte) error {
	c, err := o.clean(p)
	if err != nil {
		return err
	}
	return o.upper.Overwrite(c, data)
}

func (o *overlayFS) Exists(p string) (bool, error) {
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

func (o *overlayFS) List(dir string) ([]fs.FileStatus, error) {
	c, err := o.clean(dir)
	if err != nil {
		return nil, err
	}
	byName := map[string]fs.FileStatus{}
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
	out := make([]fs.FileStatus, 0, len(byName))
	for _, e := range byName {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (o *overlayFS) Delete(p string) error {
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

func (o *overlayFS) DeleteAll(p string) error {
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
func (o *overlayFS) MkdirAll(dir string) error {
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
func (o *overlayFS) Rename(src, dst string) error {
	data, err := o.ReadFile(src)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return fmt.Errorf("rename %s in a dry run: %w", src, err)
	}
	if err := o.Overwrite(dst, data); err != nil {
		return err
	}
	return o.Delete(src)
}

// dryRunSystemSchema is the schema of the data system table sys ($audit_log,
// $ro) of a table declared with schema base, as the Paimon source gives it:
// $audit_log is a rowkind column then the table's columns, without a
// primary key; $ro is the table itself.
func dryRunSystemSchema(sys string, base sql.Schema) (sql.Schema, bool) {
	switch strings.ToLower(sys) {
	case "audit_log":
		out := sql.Schema{Columns: []sql.Column{{Name: "rowkind", Type: sql.String().NotNull()}}}
		out.Columns = append(out.Columns, base.Columns...)
		return out, true
	case "ro":
		out := sql.Schema{Columns: append([]sql.Column(nil), base.Columns...), PrimaryKey: append([]string(nil), base.PrimaryKey...)}
		return out, true
	}
	return sql.Schema{}, false
}
