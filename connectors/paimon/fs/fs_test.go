package fs

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestLocalPaths(t *testing.T) {
	for in, want := range map[string]string{"/tmp/w": "/tmp/w", "file:///tmp/w": "/tmp/w", "file:/tmp/w": "/tmp/w", "rel/x": "rel/x"} {
		got, err := LocalPath(in)
		if err != nil || got != want {
			t.Errorf("LocalPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := LocalPath("s3://bucket/x"); err == nil {
		t.Error("s3 path accepted by local FS")
	}
	if got := Join("file:///w", "db.db", "/t", "snapshot"); got != "file:///w/db.db/t/snapshot" {
		t.Errorf("Join = %q", got)
	}
	if Base("/a/b/c") != "c" || Dir("/a/b/c") != "/a/b" {
		t.Error("Base/Dir")
	}
}

func TestLocalOps(t *testing.T) {
	dir := "file://" + t.TempDir()
	l := NewLocal()
	p := Join(dir, "x", "f")
	w, err := l.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "hello")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := l.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if f.Size() != 5 {
		t.Fatalf("size %d", f.Size())
	}
	buf := make([]byte, 3)
	if _, err := f.ReadAt(buf, 2); err != nil || string(buf) != "llo" {
		t.Fatalf("ReadAt %q %v", buf, err)
	}
	f.Close()
	if _, err := l.ReadFile(Join(dir, "nope")); !errors.Is(err, ErrNotExist) {
		t.Fatalf("missing read: %v", err)
	}
	if ok, _ := l.Exists(p); !ok {
		t.Fatal("exists")
	}
	if err := l.Overwrite(Join(dir, "x", "LATEST"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := l.Overwrite(Join(dir, "x", "LATEST"), []byte("2")); err != nil {
		t.Fatal(err)
	}
	if b, _ := l.ReadFile(Join(dir, "x", "LATEST")); string(b) != "2" {
		t.Fatalf("overwrite: %q", b)
	}
	ls, err := l.List(Join(dir, "x"))
	if err != nil || len(ls) != 2 || ls[0].Name != "LATEST" || ls[1].Name != "f" {
		t.Fatalf("list %+v %v (temp files must not remain)", ls, err)
	}
	if ls, err := l.List(Join(dir, "missing")); err != nil || len(ls) != 0 {
		t.Fatalf("list missing: %v %v", ls, err)
	}
	if err := l.Rename(p, Join(dir, "x", "g")); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete(Join(dir, "x", "g")); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete(Join(dir, "x", "g")); err != nil {
		t.Fatal("deleting a missing file must succeed:", err)
	}
	if err := l.DeleteAll(Join(dir, "x")); err != nil {
		t.Fatal(err)
	}
}

// TestWriteFileAtomicRace has many goroutines race for the same name:
// exactly one wins, the others get ErrExist, and the content is the
// winner's, whole.
func TestWriteFileAtomicRace(t *testing.T) {
	dir := t.TempDir()
	l := NewLocal()
	target := filepath.Join(dir, "snapshot", "snapshot-1")
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins, losses := 0, 0
	winner := ""
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			data := []byte{byte('a' + i)}
			err := l.WriteFileAtomic(target, data)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
				winner = string(data)
			case errors.Is(err, ErrExist):
				losses++
			default:
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if wins != 1 || losses != 15 {
		t.Fatalf("wins=%d losses=%d", wins, losses)
	}
	b, _ := os.ReadFile(target)
	if string(b) != winner {
		t.Fatalf("content %q, winner %q", b, winner)
	}
	ents, _ := os.ReadDir(filepath.Dir(target))
	if len(ents) != 1 {
		t.Fatalf("temp files left: %v", ents)
	}
}

func TestInjecting(t *testing.T) {
	dir := t.TempDir()
	e := NewInjecting(NewLocal(), FailNth(OpWriteAtomic, 2))
	if err := e.WriteFileAtomic(Join(dir, "a"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := e.WriteFileAtomic(Join(dir, "b"), []byte("1")); !errors.Is(err, ErrInjected) {
		t.Fatalf("2nd write-atomic: %v", err)
	}
	if ok, _ := e.Exists(Join(dir, "b")); ok {
		t.Fatal("failed atomic write left a file")
	}
	if err := e.WriteFileAtomic(Join(dir, "c"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	if e.Count(OpWriteAtomic) != 3 || e.Count(OpExists) != 1 {
		t.Fatalf("counts %d %d", e.Count(OpWriteAtomic), e.Count(OpExists))
	}
	e.SetInjector(FailMatching(AnyOp, "manifest-*"))
	if _, err := e.Create(Join(dir, "manifest-1")); !errors.Is(err, ErrInjected) {
		t.Fatalf("matching create: %v", err)
	}
	if _, err := e.ReadFile(Join(dir, "a")); err != nil {
		t.Fatal(err)
	}
	e.SetInjector(FailNth(OpWrite, 1))
	w, err := e.Create(Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, ErrInjected) {
		t.Fatalf("write: %v", err)
	}
	w.Close()
}
