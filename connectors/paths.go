package connectors

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// LocalPath converts a plain path or file: URI to an OS path. Other schemes
// are rejected so that 's3://bucket/x' never silently becomes a relative
// directory named "s3:".
func LocalPath(p string) (string, error) {
	switch {
	case strings.HasPrefix(p, "file://"):
		p = strings.TrimPrefix(p, "file://")
		if !strings.HasPrefix(p, "/") { // file://host/path is not supported
			return "", fmt.Errorf("unsupported file URI authority in %q", "file://"+p)
		}
	case strings.HasPrefix(p, "file:"):
		p = strings.TrimPrefix(p, "file:")
	default:
		if i := strings.Index(p, "://"); i > 0 && !strings.ContainsAny(p[:i], "/\\") {
			return "", fmt.Errorf("unsupported file system scheme %q in path %q", p[:i], p)
		}
	}
	if p == "" {
		return "", errors.New("empty path")
	}
	return filepath.FromSlash(p), nil
}

// CheckPathScheme fails for a path the local file system cannot reach
// (hdfs://, s3://, oss://): sqlrun reads and writes local paths and file:
// URIs only, and says so when the table or catalog is created rather than
// at the first INSERT. what names the option ("option 'path' of table
// ...").
func CheckPathScheme(p, what string) error {
	p = strings.TrimSpace(p)
	if p == "" {
		return nil
	}
	if _, err := LocalPath(p); err != nil {
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

// objectStoreSchemes are the URI schemes of S3 paths, as Hadoop names them.
var objectStoreSchemes = []string{"s3://", "s3a://", "s3n://"}

// ObjectStoreKey splits an S3 path (s3://bucket/key, s3a://, s3n://) into
// its bucket and key; ok is false for any other path.
func ObjectStoreKey(p string) (bucket, key string, ok bool) {
	for _, scheme := range objectStoreSchemes {
		if len(p) >= len(scheme) && strings.EqualFold(p[:len(scheme)], scheme) {
			bucket, key, _ = strings.Cut(p[len(scheme):], "/")
			return bucket, strings.Trim(key, "/"), true
		}
	}
	return "", "", false
}

// IsObjectStorePath reports whether p is an S3 path with a bucket.
func IsObjectStorePath(p string) bool {
	b, _, ok := ObjectStoreKey(strings.TrimSpace(p))
	return ok && b != ""
}
