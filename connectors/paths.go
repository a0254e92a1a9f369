package connectors

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
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
