package fs

import (
	"fmt"
	"strings"
	"sync"

	"github.com/sqlrun/sqlrun/connectors"
)

// ForPath is the FileIO a warehouse or table path lives on: S3 for
// s3:// (s3a://, s3n://) paths, configured by opts' `s3.` keys (a
// catalog's options, as Paimon's S3 file system reads them); the local
// file system for plain paths and file: URIs. Any other scheme fails,
// naming it.
func ForPath(p string, opts map[string]string) (FileIO, error) {
	if IsObjectStorePath(p) {
		cfg, err := S3ConfigFromOptions(opts)
		if err != nil {
			return nil, err
		}
		return NewS3(cfg)
	}
	if _, err := connectors.LocalPath(p); err != nil {
		return nil, fmt.Errorf("path %q: %w", p, err)
	}
	return NewLocal(), nil
}

// mounts are the object-store FileIOs of open catalogs, by warehouse
// prefix: a catalog's table is opened again by path (the planner hands the
// connector a 'path'), and the path alone must find the credentials its
// catalog was created with, as Hadoop's FileSystem cache finds a file
// system by scheme and authority.
var mounts struct {
	sync.RWMutex
	byPrefix map[string]FileIO
}

// Mount makes For(p) return fio for every p under prefix.
func Mount(prefix string, fio FileIO) {
	mounts.Lock()
	defer mounts.Unlock()
	if mounts.byPrefix == nil {
		mounts.byPrefix = map[string]FileIO{}
	}
	mounts.byPrefix[strings.TrimRight(prefix, "/")] = fio
}

// For is the FileIO of a path a catalog handed out: the FileIO mounted at
// the longest prefix of p (an S3 warehouse), otherwise the local file
// system.
func For(p string) FileIO {
	mounts.RLock()
	defer mounts.RUnlock()
	best, bestLen := FileIO(nil), -1
	for prefix, fio := range mounts.byPrefix {
		if (p == prefix || strings.HasPrefix(p, prefix+"/")) && len(prefix) > bestLen {
			best, bestLen = fio, len(prefix)
		}
	}
	if best != nil {
		return best
	}
	return NewLocal()
}
