package fs

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqlrun/sqlrun/internal/testutil/s3server"
)

// Two FileIOs on one bucket stand for two processes committing to one
// table: the conditional put gives snapshot-N to exactly one of them (the
// in-process lock of each cannot see the other).
func TestS3WriteFileAtomicAcrossClients(t *testing.T) {
	srv := s3server.Start(t)
	srv.Bucket(t, "race")
	var fios []FileIO
	for i := 0; i < 4; i++ {
		fio, err := ForPath("s3://race/t", srv.Options())
		if err != nil {
			t.Fatal(err)
		}
		fios = append(fios, fio)
	}
	for round := 0; round < 5; round++ {
		p := Join("s3://race/t/snapshot", "snapshot-"+string(rune('1'+round)))
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins, lost := 0, 0
		for i, fio := range fios {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := fio.WriteFileAtomic(p, []byte{byte('a' + i)})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					wins++
				case errors.Is(err, ErrExist):
					lost++
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if wins != 1 || lost != len(fios)-1 {
			t.Fatalf("round %d: %d winners, %d lost", round, wins, lost)
		}
	}
}

// An empty directory (a database without tables) lists, as S3A's markers
// make it do; a file read through Open is the bytes written.
func TestS3DirectoriesAndRanges(t *testing.T) {
	srv := s3server.Start(t)
	srv.Bucket(t, "whs")
	fio, err := ForPath("s3a://whs/root", srv.Options())
	if err != nil {
		t.Fatal(err)
	}
	if err := fio.MkdirAll("s3a://whs/root/default.db"); err != nil {
		t.Fatal(err)
	}
	ls, err := fio.List("s3a://whs/root")
	if err != nil || len(ls) != 1 || ls[0].Name != "default.db" || !ls[0].IsDir {
		t.Fatalf("list: %+v %v", ls, err)
	}
	if ls, err := fio.List("s3a://whs/root/default.db"); err != nil || len(ls) != 0 {
		t.Fatalf("empty dir lists its own marker: %+v %v", ls, err)
	}
	w, _ := fio.Create("s3a://whs/root/default.db/f")
	big := strings.Repeat("0123456789", 100_000)
	w.Write([]byte(big))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := fio.Open("s3a://whs/root/default.db/f")
	if err != nil || f.Size() != int64(len(big)) {
		t.Fatalf("open: %v", err)
	}
	buf := make([]byte, 10)
	if n, err := f.ReadAt(buf, int64(len(big))-5); n != 5 || string(buf[:5]) != "56789" || err == nil {
		t.Fatalf("ReadAt at the end: %d %q %v", n, buf[:n], err)
	}
}

// A refused request names the path and never the secret key.
func TestS3ErrorsKeepTheSecret(t *testing.T) {
	srv := s3server.Start(t)
	srv.Bucket(t, "sec")
	opts := srv.Options()
	opts["s3.secret-key"] = "wrong-" + srv.SecretKey
	fio, err := ForPath("s3://sec/t", opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fio.ReadFile("s3://sec/t/x")
	if err == nil || errors.Is(err, ErrNotExist) {
		t.Fatalf("a wrong secret read: %v", err)
	}
	if strings.Contains(err.Error(), srv.SecretKey) || !strings.Contains(err.Error(), "s3://sec/t/x") {
		t.Fatalf("error: %v", err)
	}
}

func TestS3Options(t *testing.T) {
	for _, tc := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"s3.endpoint": "http://127.0.0.1:9000"}, ""},
		{map[string]string{"s3.endpoint": "ftp://x"}, "option 's3.endpoint'"},
		{map[string]string{"s3.access-key": "a"}, "must be set together"},
		{map[string]string{"s3.path.style.access": "yes"}, "option 's3.path.style.access'"},
	} {
		_, err := S3ConfigFromOptions(tc.opts)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%v: %v, want %q", tc.opts, err, tc.want)
		}
	}
	if _, err := ForPath("hdfs://nn/w", nil); err == nil || !strings.Contains(err.Error(), `"hdfs"`) {
		t.Errorf("hdfs: %v", err)
	}
}

// A server that ignores If-None-Match (here: one that answers every PUT
// with 200) gets no snapshot: the first atomic write probes the bucket and
// refuses, naming the reason.
func TestS3RefusesServerWithoutConditionalWrites(t *testing.T) {
	var puts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPut:
			puts.Add(1)
			w.Header().Set("ETag", `"d41d8cd98f00b204e9800998ecf8427e"`)
		case http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	fio, err := ForPath("s3://bkt/t", map[string]string{"s3.endpoint": srv.URL, "s3.path.style.access": "true", "s3.region": "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		err = fio.WriteFileAtomic("s3://bkt/t/snapshot/snapshot-1", []byte("{}"))
		if !errors.Is(err, ErrNoConditionalWrites) {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	if puts.Load() != 2 {
		t.Fatalf("%d PUTs: the probe runs once per bucket and nothing else is written", puts.Load())
	}
}

// countingRT counts a client's HTTP requests by method.
type countingRT struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *countingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.n[r.Method]++
	c.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func (c *countingRT) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = map[string]int{}
	return n
}

// Objects under one part go up with one PUT and come back with one GET
// (the read window, s3ReadAhead); objects over a part stream as a
// multipart upload; every byte reads back at any offset, across windows
// and in reads larger than one; a replaced object fails a read of the
// open file (the ETag pin) instead of mixing versions.
func TestS3RequestsAndWindows(t *testing.T) {
	srv := s3server.Start(t)
	srv.Bucket(t, "win")
	cfg, err := S3ConfigFromOptions(srv.Options())
	if err != nil {
		t.Fatal(err)
	}
	rt := &countingRT{n: map[string]int{}}
	cfg.Transport = rt
	fio, err := NewS3(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data := func(n int, seed byte) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7) ^ seed ^ byte(i>>13)
		}
		return b
	}
	write := func(p string, b []byte) {
		t.Helper()
		w, err := fio.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		for len(b) > 0 { // in pieces, as the Parquet writer writes
			k := min(len(b), 100_000)
			if _, err := w.Write(b[:k]); err != nil {
				t.Fatal(err)
			}
			b = b[k:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	small := data(1<<20, 1)
	write("s3://win/small", small)
	if got := rt.take(); got["PUT"] != 1 || got["POST"] != 0 {
		t.Fatalf("a 1 MiB object: requests %v, want one PUT", got)
	}
	f, err := fio.Open("s3://win/small")
	if err != nil {
		t.Fatal(err)
	}
	rt.take()
	buf := make([]byte, 1000)
	for _, off := range []int64{int64(len(small)) - 1000, 0, 500_000, 123} {
		if _, err := f.ReadAt(buf, off); err != nil || !bytes.Equal(buf, small[off:off+1000]) {
			t.Fatalf("small ReadAt %d: %v", off, err)
		}
	}
	if got := rt.take(); got["GET"] != 1 {
		t.Fatalf("four reads of a 1 MiB object: requests %v, want one GET", got)
	}

	big := data(s3PartSize+3<<20, 2)
	write("s3://win/big", big)
	if got := rt.take(); got["POST"] < 2 {
		t.Fatalf("a %d-byte object: requests %v, want a multipart upload", len(big), got)
	}
	f, err = fio.Open("s3://win/big")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ off, n int64 }{
		{int64(len(big)) - 8, 8}, {0, 10}, {s3ReadAhead - 5, 10}, {1, s3ReadAhead + 100}, {s3PartSize - 3, 7},
		{int64(len(big)) - 100, 200},
	} {
		b := make([]byte, c.n)
		n, err := f.ReadAt(b, c.off)
		end := min(c.off+c.n, int64(len(big)))
		if int64(n) != end-c.off || !bytes.Equal(b[:n], big[c.off:end]) || (end < c.off+c.n) != (err == io.EOF) {
			t.Fatalf("big ReadAt(%d, %d) = %d, %v", c.off, c.n, n, err)
		}
	}
	write("s3://win/big", data(len(big), 3))                 // replaced under the open file
	if _, err := f.ReadAt(make([]byte, 10), 0); err == nil { // outside the window it holds
		t.Fatal("a read of a replaced object succeeded")
	}
}

// A POSIX gateway refuses a PUT as ExistingObjectIsDirectory when a
// concurrent DELETE removed the PUT's parent directory under it (versitygw
// did, to one of four committers racing for a new table's first snapshot):
// with nothing under key/ the PUT is made again; with objects under key/
// the key really is a directory and the refusal stands.
func TestS3PutRepeatsGatewayDirectoryRace(t *testing.T) {
	for _, tc := range []struct {
		name      string
		children  bool
		wantPuts  int32
		wantError bool
	}{
		{"race", false, 2, false},
		{"real directory", true, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var puts atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.Method == http.MethodPut:
					if puts.Add(1) == 1 {
						w.Header().Set("Content-Type", "application/xml")
						w.WriteHeader(http.StatusConflict)
						io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>ExistingObjectIsDirectory</Code><Message>Existing Object is a directory.</Message></Error>`)
						return
					}
					w.Header().Set("ETag", `"d41d8cd98f00b204e9800998ecf8427e"`)
				case r.Method == http.MethodGet && r.URL.Query().Has("list-type"):
					w.Header().Set("Content-Type", "application/xml")
					io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>bkt</Name><IsTruncated>false</IsTruncated>`)
					if tc.children {
						io.WriteString(w, `<Contents><Key>t/f/x</Key><Size>1</Size></Contents>`)
					}
					io.WriteString(w, `</ListBucketResult>`)
				default:
					w.WriteHeader(http.StatusNotFound)
				}
			}))
			defer srv.Close()
			fio, err := ForPath("s3://bkt/t", map[string]string{"s3.endpoint": srv.URL, "s3.path.style.access": "true", "s3.region": "us-east-1"})
			if err != nil {
				t.Fatal(err)
			}
			err = fio.Overwrite("s3://bkt/t/f", []byte("x"))
			if (err != nil) != tc.wantError || puts.Load() != tc.wantPuts {
				t.Fatalf("overwrite: %v after %d PUTs", err, puts.Load())
			}
		})
	}
}
