package fs

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/sqlrun/sqlrun/internal/testutil/s3server"
)

// TestConformance runs the same behaviour checks against every FileIO.
func TestConformance(t *testing.T) {
	for name, mk := range map[string]func(t *testing.T) (FileIO, string){
		"local": func(t *testing.T) (FileIO, string) { return NewLocal(), "file://" + t.TempDir() },
		"mem":   func(t *testing.T) (FileIO, string) { return NewMem(), "file:///warehouse" },
		"injecting": func(t *testing.T) (FileIO, string) {
			return NewInjecting(NewMem(), nil), "/w"
		},
		"s3": func(t *testing.T) (FileIO, string) {
			srv := s3server.Start(t)
			srv.Bucket(t, "conformance")
			fio, err := ForPath("s3://conformance/warehouse", srv.Options())
			if err != nil {
				t.Fatal(err)
			}
			return fio, "s3://conformance/warehouse"
		},
	} {
		t.Run(name, func(t *testing.T) {
			fio, root := mk(t)
			p := Join(root, "t", "bucket-0", "data-1.parquet")
			w, err := fio.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(w, "abcdef")
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f, err := fio.Open(p)
			if err != nil || f.Size() != 6 {
				t.Fatalf("open: %v", err)
			}
			buf := make([]byte, 2)
			if _, err := f.ReadAt(buf, 4); err != nil || string(buf) != "ef" {
				t.Fatalf("ReadAt %q %v", buf, err)
			}
			f.Close()
			if _, err := fio.ReadFile(Join(root, "nope")); !errors.Is(err, ErrNotExist) {
				t.Fatalf("missing: %v", err)
			}
			snap := Join(root, "t", "snapshot", "snapshot-1")
			var wg sync.WaitGroup
			wins := make(chan int, 8)
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := fio.WriteFileAtomic(snap, []byte("x")); err == nil {
						wins <- 1
					} else if !errors.Is(err, ErrExist) {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			close(wins)
			if len(wins) != 1 {
				t.Fatalf("%d winners", len(wins))
			}
			fio.Overwrite(Join(root, "t", "snapshot", "LATEST"), []byte("1"))
			fio.Overwrite(Join(root, "t", "snapshot", "LATEST"), []byte("2"))
			if b, _ := fio.ReadFile(Join(root, "t", "snapshot", "LATEST")); string(b) != "2" {
				t.Fatalf("overwrite %q", b)
			}
			ls, err := fio.List(Join(root, "t"))
			var names []string
			for _, s := range ls {
				names = append(names, s.Name)
			}
			if err != nil || strings.Join(names, ",") != "bucket-0,snapshot" || !ls[0].IsDir {
				t.Fatalf("list t: %v %v", names, err)
			}
			ls, _ = fio.List(Join(root, "t", "snapshot"))
			if len(ls) != 2 || ls[0].Name != "LATEST" || ls[1].Name != "snapshot-1" || ls[1].Size != 1 {
				t.Fatalf("list snapshot: %+v", ls)
			}
			if ls, err := fio.List(Join(root, "none")); err != nil || len(ls) != 0 {
				t.Fatalf("list missing: %v %v", ls, err)
			}
			if ok, _ := fio.Exists(Join(root, "t", "bucket-0")); !ok {
				t.Fatal("dir exists")
			}
			if err := fio.Rename(p, Join(root, "t", "bucket-0", "moved")); err != nil {
				t.Fatal(err)
			}
			if ok, _ := fio.Exists(p); ok {
				t.Fatal("renamed file still there")
			}
			if err := fio.Delete(p); err != nil {
				t.Fatal("delete missing:", err)
			}
			if err := fio.DeleteAll(Join(root, "t")); err != nil {
				t.Fatal(err)
			}
			if ok, _ := fio.Exists(snap); ok {
				t.Fatal("DeleteAll left files")
			}
		})
	}
}

func TestMemClone(t *testing.T) {
	m := NewMem()
	m.WriteFileAtomic("/t/a", []byte("1"))
	c := m.Clone()
	m.Overwrite("/t/a", []byte("2"))
	if b, _ := c.ReadFile("/t/a"); string(b) != "1" {
		t.Fatalf("clone shares state: %q", b)
	}
}
