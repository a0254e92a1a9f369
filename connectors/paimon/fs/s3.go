package fs

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/sqlrun/sqlrun/connectors"
)

// S3Config is how to reach an S3-compatible object store, from the `s3.`
// options Paimon's S3 file system reads (paimon-s3 hands them to Hadoop's
// S3A as `fs.s3a.*`): a catalog's WITH options carry them.
type S3Config struct {
	// Endpoint is host[:port] or a URL (http://127.0.0.1:9000); empty
	// means AWS (s3.amazonaws.com).
	Endpoint string
	// Secure is https (s3.connection.ssl.enabled, true by default; an
	// endpoint URL's scheme decides instead when it has one).
	Secure bool
	// Region is s3.region (optional for most S3-compatible servers).
	Region string
	// AccessKey and SecretKey are the static credentials (s3.access-key,
	// s3.secret-key). Both empty: anonymous requests.
	AccessKey, SecretKey string
	// PathStyle is s3.path.style.access: bucket in the path, not the host
	// name, as MinIO and most self-hosted servers need.
	PathStyle bool
	// Transport, when set, sends the client's HTTP requests (tests and
	// benchmarks count them); nil is minio-go's default transport.
	Transport http.RoundTripper
}

// S3ConfigFromOptions reads Paimon's `s3.` options. Unknown `s3.` keys are
// left alone (Paimon passes them to S3A, which ignores most of them here).
func S3ConfigFromOptions(opts map[string]string) (S3Config, error) {
	c := S3Config{Secure: true}
	get := func(k string) string { return strings.TrimSpace(opts[k]) }
	c.Endpoint = get("s3.endpoint")
	if v := get("s3.connection.ssl.enabled"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("option 's3.connection.ssl.enabled': %q is not a boolean", v)
		}
		c.Secure = b
	}
	if v := get("s3.path.style.access"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("option 's3.path.style.access': %q is not a boolean", v)
		}
		c.PathStyle = b
	}
	c.Region = get("s3.region")
	c.AccessKey, c.SecretKey = opts["s3.access-key"], opts["s3.secret-key"]
	if (c.AccessKey == "") != (c.SecretKey == "") {
		return c, errors.New("options 's3.access-key' and 's3.secret-key' must be set together")
	}
	if strings.Contains(c.Endpoint, "://") {
		u, err := url.Parse(c.Endpoint)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return c, fmt.Errorf("option 's3.endpoint': %q is not host[:port] or an http(s) URL", c.Endpoint)
		}
		c.Endpoint, c.Secure = u.Host, u.Scheme == "https"
	}
	return c, nil
}

// S3 is a FileIO over an S3-compatible object store. Paths are
// s3://bucket/key (s3a:// and s3n:// too, as Hadoop names them).
//
// Directories do not exist in S3: MkdirAll writes an empty "dir/" marker
// object, as Hadoop's S3A does, so that an empty database still lists; List
// shows common prefixes as directories.
//
// WriteFileAtomic is a conditional put (If-None-Match: *), which AWS S3 and
// current S3-compatible servers honour: two committers racing for
// snapshot-N, in one process or in several, get one winner. Within one
// process a lock per path decides the race too, so a server that ignores the
// condition still gives one winner here.
type S3 struct {
	client   *minio.Client
	endpoint string
	mu       sync.Mutex
	locks    map[string]*sync.Mutex
	// probed holds, per bucket, whether the server refuses a second
	// conditional put of one key (nil: it does).
	probed map[string]error
}

// NewS3 connects to the store cfg names (no request is sent yet).
func NewS3(cfg S3Config) (*S3, error) {
	endpoint := cfg.Endpoint
	if endpoint == "" {
		endpoint = "s3.amazonaws.com"
	}
	var creds *credentials.Credentials
	if cfg.AccessKey != "" {
		creds = credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, "")
	} else {
		// The standard AWS places, as the AWS SDK and Hadoop's default
		// provider chain read them: AWS_ACCESS_KEY_ID /
		// AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, then the shared
		// credentials and config files (AWS_PROFILE); anonymous when none
		// has a key. No instance-metadata lookup.
		creds = credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{}, &credentials.FileAWSCredentials{}})
	}
	lookup := minio.BucketLookupAuto
	if cfg.PathStyle {
		lookup = minio.BucketLookupPath
	}
	client, err := minio.New(endpoint, &minio.Options{
		Creds: creds, Secure: cfg.Secure, Region: cfg.Region, BucketLookup: lookup, Transport: cfg.Transport,
	})
	if err != nil {
		return nil, fmt.Errorf("s3 endpoint %s: %w", endpoint, err)
	}
	return &S3{client: client, endpoint: endpoint, locks: map[string]*sync.Mutex{}, probed: map[string]error{}}, nil
}

var _ FileIO = (*S3)(nil)

// IsObjectStorePath reports whether p names an S3 object (s3://, s3a://,
// s3n://).
func IsObjectStorePath(p string) bool { return connectors.IsObjectStorePath(p) }

// splitS3 splits s3://bucket/key into bucket and key (no leading or
// trailing slash).
func splitS3(p string) (bucket, key string, err error) {
	bucket, key, ok := connectors.ObjectStoreKey(p)
	if !ok {
		return "", "", fmt.Errorf("%q is not an s3:// path", p)
	}
	if bucket == "" {
		return "", "", fmt.Errorf("%q names no bucket", p)
	}
	return bucket, key, nil
}

// s3Err maps the store's "no such key" to ErrNotExist and names the path.
func s3Err(op, p string, err error) error {
	if err == nil {
		return nil
	}
	if r := minio.ToErrorResponse(err); r.Code == "NoSuchKey" || r.StatusCode == http.StatusNotFound {
		return fmt.Errorf("%s %s: %w", op, p, ErrNotExist)
	}
	return fmt.Errorf("%s %s: %w", op, p, err)
}

// Open stats the object (its size is needed up front) and reads it with
// ranged GETs.
func (s *S3) Open(p string) (File, error) {
	bucket, key, err := splitS3(p)
	if err != nil {
		return nil, err
	}
	info, err := s.client.StatObject(context.Background(), bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return nil, s3Err("open", p, err)
	}
	return &s3File{s: s, path: p, bucket: bucket, key: key, size: info.Size, etag: info.ETag}, nil
}

// ReadFile reads a whole object.
func (s *S3) ReadFile(p string) ([]byte, error) {
	bucket, key, err := splitS3(p)
	if err != nil {
		return nil, err
	}
	obj, err := s.client.GetObject(context.Background(), bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, s3Err("read", p, err)
	}
	defer obj.Close()
	b, err := io.ReadAll(obj)
	if err != nil {
		return nil, s3Err("read", p, err)
	}
	return b, nil
}

// s3PartSize is the multipart upload's part size; an object smaller than
// one part is sent with one PUT when its writer closes.
const s3PartSize = 16 << 20

// Create writes an object: one PUT when it stays under one part (Paimon's
// manifests, snapshots and most data files of a streaming job), otherwise
// a multipart upload streamed as it is written. The object appears only
// when Close returns nil (an upload that fails is aborted and leaves
// nothing).
func (s *S3) Create(p string) (io.WriteCloser, error) {
	bucket, key, err := splitS3(p)
	if err != nil {
		return nil, err
	}
	return &s3Writer{s: s, path: p, bucket: bucket, key: key}, nil
}

// s3Writer buffers up to one part; past that it streams the rest into a
// multipart upload through a pipe.
type s3Writer struct {
	s                 *S3
	path, bucket, key string
	buf               []byte
	pw                *io.PipeWriter // set once streaming
	done              chan error
	closed            bool
	err               error
}

func (w *s3Writer) Write(b []byte) (int, error) {
	if w.closed {
		return 0, fmt.Errorf("create %s: write after close", w.path)
	}
	if w.pw != nil {
		return w.pw.Write(b)
	}
	if len(w.buf)+len(b) < s3PartSize {
		w.buf = append(w.buf, b...)
		return len(b), nil
	}
	pr, pw := io.Pipe()
	w.pw, w.done = pw, make(chan error, 1)
	head := w.buf
	w.buf = nil
	go func() {
		_, err := w.s.client.PutObject(context.Background(), w.bucket, w.key, io.MultiReader(bytes.NewReader(head), pr), -1,
			minio.PutObjectOptions{PartSize: s3PartSize, ContentType: "application/octet-stream"})
		pr.CloseWithError(err) // unblocks a writer when the upload fails early
		w.done <- s3Err("create", w.path, err)
	}()
	return w.pw.Write(b)
}

func (w *s3Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.pw == nil {
		err := w.s.putObject(w.bucket, w.key, w.buf, minio.PutObjectOptions{ContentType: "application/octet-stream"})
		w.buf = nil
		w.err = s3Err("create", w.path, err)
		return w.err
	}
	w.pw.Close()
	w.err = <-w.done
	return w.err
}

// putAttempts bounds putObject's repeats of a PUT refused by a POSIX
// gateway's directory race.
const putAttempts = 4

// putObject puts a whole object. versitygw's POSIX backend (the S3 tests'
// server, and a common self-hosted store) keeps a key as a file: a PUT
// makes the parent directories and then links the file in, and a
// concurrent DELETE of the last object in that directory removes the
// directory in between, so the PUT fails as ExistingObjectIsDirectory
// though nothing is there (two committers probing or committing in a new
// table's snapshot/ directory did). S3 has no directories: when nothing
// lists under key/, the refusal was that race and the PUT is made again;
// when something does, the key really is a directory and the error stands.
func (s *S3) putObject(bucket, key string, data []byte, opts minio.PutObjectOptions) error {
	ctx := context.Background()
	for attempt := 1; ; attempt++ {
		_, err := s.client.PutObject(ctx, bucket, key, bytes.NewReader(data), int64(len(data)), opts)
		if err == nil || attempt == putAttempts || minio.ToErrorResponse(err).Code != "ExistingObjectIsDirectory" {
			return err
		}
		lctx, cancel := context.WithCancel(ctx)
		obj, ok := <-s.client.ListObjects(lctx, bucket, minio.ListObjectsOptions{Prefix: key + "/", MaxKeys: 1})
		cancel()
		if ok {
			if obj.Err != nil {
				return errors.Join(err, obj.Err)
			}
			return err
		}
	}
}

// lock is the in-process lock for one path's conditional put.
func (s *S3) lock(p string) *sync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.locks[p]
	if !ok {
		m = &sync.Mutex{}
		s.locks[p] = m
	}
	return m
}

// ErrNoConditionalWrites is returned (wrapped) by WriteFileAtomic when the
// store accepts a conditional put of an object that exists: a snapshot
// commit there could overwrite another writer's snapshot, so none is made.
var ErrNoConditionalWrites = errors.New("the S3 server does not honour conditional writes (If-None-Match: *)")

// conditionalWrites checks once per bucket, next to the first object
// written atomically, that the server refuses to put an object twice
// under If-None-Match: * (AWS S3 since 2024, MinIO, versitygw do; an
// older server ignores the header and would let two committers both
// "win" snapshot-N).
func (s *S3) conditionalWrites(bucket, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err, ok := s.probed[bucket]; ok {
		return err
	}
	dir := key
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		dir = dir[:i+1]
	} else {
		dir = ""
	}
	var b [8]byte
	rand.Read(b[:])
	probe := dir + ".sqlrun-conditional-write-probe-" + hex.EncodeToString(b[:])
	ctx := context.Background()
	put := func() error {
		opts := minio.PutObjectOptions{}
		opts.SetMatchETagExcept("*")
		return s.putObject(bucket, probe, []byte("probe"), opts)
	}
	if err := put(); err != nil {
		return s3Err("probe conditional writes", "s3://"+bucket+"/"+probe, err)
	}
	err := put()
	s.client.RemoveObject(ctx, bucket, probe, minio.RemoveObjectOptions{})
	var verdict error
	switch r := minio.ToErrorResponse(err); {
	case err == nil:
		verdict = fmt.Errorf("%w: %s accepted a second conditional put of s3://%s/%s, so two writers could both commit one snapshot; sqlrun commits to S3 only where the server refuses it (AWS S3, MinIO, versitygw)",
			ErrNoConditionalWrites, s.endpoint, bucket, probe)
	case r.StatusCode == http.StatusPreconditionFailed || r.Code == "PreconditionFailed":
	default:
		return s3Err("probe conditional writes", "s3://"+bucket+"/"+probe, err)
	}
	s.probed[bucket] = verdict
	return verdict
}

// WriteFileAtomic puts the object only if it does not exist.
func (s *S3) WriteFileAtomic(p string, data []byte) error {
	bucket, key, err := splitS3(p)
	if err != nil {
		return err
	}
	if err := s.conditionalWrites(bucket, key); err != nil {
		return fmt.Errorf("create %s: %w", p, err)
	}
	m := s.lock(p)
	m.Lock()
	defer m.Unlock()
	if ok, err := s.Exists(p); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("create %s: %w", p, ErrExist)
	}
	opts := minio.PutObjectOptions{ContentType: "application/octet-stream"}
	opts.SetMatchETagExcept("*")
	if err := s.putObject(bucket, key, data, opts); err != nil {
		if r := minio.ToErrorResponse(err); r.StatusCode == http.StatusPreconditionFailed || r.Code == "PreconditionFailed" {
			return fmt.Errorf("create %s: %w", p, ErrExist)
		}
		return s3Err("create", p, err)
	}
	return nil
}

// Overwrite puts the object; a PUT replaces an object at once.
func (s *S3) Overwrite(p string, data []byte) error {
	bucket, key, err := splitS3(p)
	if err != nil {
		return err
	}
	err = s.putObject(bucket, key, data, minio.PutObjectOptions{ContentType: "application/octet-stream"})
	return s3Err("overwrite", p, err)
}

// Exists reports whether the object, or a directory of that name (a marker
// or any object under it), exists.
func (s *S3) Exists(p string) (bool, error) {
	bucket, key, err := splitS3(p)
	if err != nil {
		return false, err
	}
	if key != "" {
		_, err = s.client.StatObject(context.Background(), bucket, key, minio.StatObjectOptions{})
		if err == nil {
			return true, nil
		}
		if e := s3Err("stat", p, err); !errors.Is(e, ErrNotExist) {
			return false, e
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	obj, ok := <-s.client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: dirPrefix(key), MaxKeys: 1})
	if ok && obj.Err != nil {
		return false, s3Err("list", p, obj.Err)
	}
	return ok, nil
}

func dirPrefix(key string) string {
	if key == "" {
		return ""
	}
	return key + "/"
}

// List lists one level under dir: objects as files, common prefixes as
// directories; the directory's own marker is not an entry.
func (s *S3) List(dir string) ([]FileStatus, error) {
	bucket, key, err := splitS3(dir)
	if err != nil {
		return nil, err
	}
	prefix := dirPrefix(key)
	var out []FileStatus
	for obj := range s.client.ListObjects(context.Background(), bucket, minio.ListObjectsOptions{Prefix: prefix}) {
		if obj.Err != nil {
			if e := s3Err("list", dir, obj.Err); errors.Is(e, ErrNotExist) {
				return nil, nil
			} else {
				return nil, e
			}
		}
		name := strings.TrimPrefix(obj.Key, prefix)
		if name == "" {
			continue // the marker of dir itself
		}
		st := FileStatus{Name: strings.TrimSuffix(name, "/"), Size: obj.Size, ModTime: obj.LastModified}
		st.IsDir = strings.HasSuffix(name, "/")
		if st.IsDir {
			st.Size = 0
		}
		st.Path = Join(dir, st.Name)
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Delete removes an object, or the marker of an empty directory.
func (s *S3) Delete(p string) error {
	bucket, key, err := splitS3(p)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if err := s.client.RemoveObject(ctx, bucket, key, minio.RemoveObjectOptions{}); err != nil {
		if e := s3Err("delete", p, err); !errors.Is(e, ErrNotExist) {
			return e
		}
	}
	if err := s.client.RemoveObject(ctx, bucket, key+"/", minio.RemoveObjectOptions{}); err != nil {
		if e := s3Err("delete", p, err); !errors.Is(e, ErrNotExist) {
			return e
		}
	}
	return nil
}

// DeleteAll removes every object under p and p's marker.
func (s *S3) DeleteAll(p string) error {
	bucket, key, err := splitS3(p)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	objs := make(chan minio.ObjectInfo)
	var listErr error
	go func() {
		defer close(objs)
		for obj := range s.client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: dirPrefix(key), Recursive: true}) {
			if obj.Err != nil {
				listErr = obj.Err
				return
			}
			objs <- obj
		}
	}()
	for r := range s.client.RemoveObjects(ctx, bucket, objs, minio.RemoveObjectsOptions{}) {
		if r.Err != nil {
			return s3Err("delete", Join(p, strings.TrimPrefix(r.ObjectName, dirPrefix(key))), r.Err)
		}
	}
	if listErr != nil {
		return s3Err("list", p, listErr)
	}
	return s.Delete(p)
}

// MkdirAll writes the directory's marker object (parents are implied by
// the key).
func (s *S3) MkdirAll(dir string) error {
	bucket, key, err := splitS3(dir)
	if err != nil {
		return err
	}
	if key == "" {
		return nil
	}
	_, err = s.client.PutObject(context.Background(), bucket, key+"/", strings.NewReader(""), 0, minio.PutObjectOptions{})
	return s3Err("mkdir", dir, err)
}

// Rename copies src to dst and deletes src: not atomic (S3 has no rename);
// the table store renames nothing a reader depends on.
func (s *S3) Rename(src, dst string) error {
	sb, sk, err := splitS3(src)
	if err != nil {
		return err
	}
	db, dk, err := splitS3(dst)
	if err != nil {
		return err
	}
	_, err = s.client.CopyObject(context.Background(),
		minio.CopyDestOptions{Bucket: db, Object: dk}, minio.CopySrcOptions{Bucket: sb, Object: sk})
	if err != nil {
		return s3Err("rename", src, err)
	}
	return s.Delete(src)
}

// s3ReadAhead is how much of an object one ranged GET fetches: a
// Parquet file's column chunks are read one after another, so a window
// answers a row group's chunks with one request, and an object this small
// is fetched whole by its first read.
const s3ReadAhead = 4 << 20

// s3File reads an object with ranged GETs of at least s3ReadAhead bytes,
// keeping the last window; the ETag pins the version the size was taken
// from (a replaced object fails the read instead of mixing two versions).
type s3File struct {
	s           *S3
	path        string
	bucket, key string
	size        int64
	etag        string
	off         int64

	mu     sync.Mutex
	window []byte
	winOff int64
}

func (f *s3File) Size() int64 { return f.size }

func (f *s3File) ReadAt(b []byte, off int64) (int, error) {
	if off >= f.size {
		return 0, io.EOF
	}
	want := len(b)
	if rem := f.size - off; int64(want) > rem {
		want = int(rem)
	}
	if want == 0 {
		return 0, nil
	}
	var n int
	var err error
	if want > s3ReadAhead {
		n, err = f.get(b[:want], off) // past a window: straight into b
	} else {
		f.mu.Lock()
		if off < f.winOff || off+int64(want) > f.winOff+int64(len(f.window)) {
			start := off
			if f.size <= s3ReadAhead {
				start = 0 // the whole object in one GET
			}
			size := min(int64(s3ReadAhead), f.size-start)
			if cap(f.window) < int(size) {
				f.window = make([]byte, size)
			}
			f.window = f.window[:size]
			if _, err = f.get(f.window, start); err != nil {
				f.window = f.window[:0]
			}
			f.winOff = start
		}
		if err == nil {
			n = copy(b[:want], f.window[off-f.winOff:])
		}
		f.mu.Unlock()
	}
	if err != nil {
		return n, err
	}
	if want < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// get reads len(b) bytes at off with one ranged GET.
func (f *s3File) get(b []byte, off int64) (int, error) {
	opts := minio.GetObjectOptions{}
	if err := opts.SetRange(off, off+int64(len(b))-1); err != nil {
		return 0, err
	}
	if f.etag != "" {
		_ = opts.SetMatchETag(f.etag)
	}
	obj, err := f.s.client.GetObject(context.Background(), f.bucket, f.key, opts)
	if err != nil {
		return 0, s3Err("read", f.path, err)
	}
	defer obj.Close()
	n, err := io.ReadFull(obj, b)
	if err != nil {
		return n, s3Err("read", f.path, err)
	}
	// A server that ignores If-Match still names the version it sent.
	if info, err := obj.Stat(); err == nil && f.etag != "" && info.ETag != "" && info.ETag != f.etag {
		return 0, fmt.Errorf("read %s: the object was replaced while it was read (ETag %s, opened as %s)", f.path, info.ETag, f.etag)
	}
	return n, nil
}

func (f *s3File) Read(b []byte) (int, error) {
	n, err := f.ReadAt(b, f.off)
	f.off += int64(n)
	return n, err
}

func (f *s3File) Close() error {
	f.mu.Lock()
	f.window = nil
	f.mu.Unlock()
	return nil
}
