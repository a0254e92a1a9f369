package table

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/google/uuid"
)

// Local scratch directories of writers (lookup indexes, spilled write
// buffers). Each is named sqlrun-paimon-<pid>-<uuid> under the system temp
// directory, so that what a killed process left behind can be recognised
// and removed by the next one (RemoveStaleTempDirs), and every directory
// this process made is recorded until removed, so that any exit of the
// binary — also a forced one — can remove them (RemoveTempDirs).

// TempDirPrefix starts the name of every scratch directory.
const TempDirPrefix = "sqlrun-paimon-"

var tempDirs = struct {
	sync.Mutex
	m map[string]struct{}
}{m: map[string]struct{}{}}

// newTempDir names (does not create) a fresh scratch directory of this
// process and records it.
func newTempDir() string {
	d := filepath.Join(os.TempDir(), TempDirPrefix+strconv.Itoa(os.Getpid())+"-"+uuid.NewString())
	tempDirs.Lock()
	tempDirs.m[d] = struct{}{}
	tempDirs.Unlock()
	return d
}

// removeTempDir removes a scratch directory and forgets it.
func removeTempDir(d string) {
	os.RemoveAll(d)
	tempDirs.Lock()
	delete(tempDirs.m, d)
	tempDirs.Unlock()
}

// RemoveTempDirs removes every scratch directory of this process that is
// still there: the binary calls it on every way out, so that a run that
// failed, was stopped or was forced to exit leaves nothing behind.
func RemoveTempDirs() {
	tempDirs.Lock()
	ds := make([]string, 0, len(tempDirs.m))
	for d := range tempDirs.m {
		ds = append(ds, d)
	}
	tempDirs.Unlock()
	for _, d := range ds {
		removeTempDir(d)
	}
}

// RemoveStaleTempDirs removes the scratch directories under dir ("" = the
// system temp directory) whose process no longer runs — what a kill -9
// left. Directories of live processes (and names it does not know) are
// kept. It returns the directories removed.
func RemoveStaleTempDirs(dir string) []string {
	if dir == "" {
		dir = os.TempDir()
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), TempDirPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		ps, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(ps)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if os.RemoveAll(p) == nil {
			out = append(out, p)
		}
	}
	return out
}

// processAlive reports whether a process with this id exists (signal 0;
// EPERM means it exists but belongs to another user).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
