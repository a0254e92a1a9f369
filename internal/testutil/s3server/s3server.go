// Package s3server starts a throwaway S3-compatible server for tests:
// versitygw's POSIX gateway (github.com/versity/versitygw, Apache-2.0) on
// a loopback port over a temporary directory. scripts/ensure-s3.sh builds
// it; without it, Start skips the test and says how to get it.
package s3server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Version is the versitygw release scripts/ensure-s3.sh installs.
const Version = "v1.8.0"

// Server is a running gateway.
type Server struct {
	// Endpoint is http://127.0.0.1:port.
	Endpoint string
	// AccessKey and SecretKey are the root account's credentials.
	AccessKey, SecretKey string
	// Dir is the directory the gateway stores buckets in (one
	// subdirectory per bucket, one file per object).
	Dir string

	cmd    *exec.Cmd
	client *minio.Client
}

// Binary finds the gateway: $SQLRUN_S3_SERVER, then where
// scripts/ensure-s3.sh builds it
// (${XDG_CACHE_HOME:-~/.cache}/sqlrun/versitygw-<Version>/versitygw), then
// versitygw on PATH.
func Binary() (string, error) {
	if p := os.Getenv("SQLRUN_S3_SERVER"); p != "" {
		return p, nil
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		if home, err := os.UserHomeDir(); err == nil {
			cache = filepath.Join(home, ".cache")
		}
	}
	if cache != "" {
		p := filepath.Join(cache, "sqlrun", "versitygw-"+Version, "versitygw")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	return "", errors.New("no versitygw binary (run scripts/ensure-s3.sh, or set SQLRUN_S3_SERVER)")
}

// Start starts a gateway for t and stops it when t ends; it skips t when
// no gateway binary can be found.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Skipf("s3server: %v", err)
	}
	s, err := start(bin, t.TempDir())
	if err != nil {
		t.Fatalf("s3server: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func start(bin, dir string) (*Server, error) {
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &Server{Endpoint: "http://127.0.0.1:" + strconv.Itoa(port), AccessKey: "sqlrun" + randomHex(4),
		SecretKey: randomHex(16), Dir: data}
	log, err := os.Create(filepath.Join(dir, "versitygw.log"))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	s.cmd = exec.Command(bin, "--access", s.AccessKey, "--secret", s.SecretKey,
		"--port", "127.0.0.1:"+strconv.Itoa(port), "posix", data)
	s.cmd.Stdout, s.cmd.Stderr = log, log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s.client, err = minio.New("127.0.0.1:"+strconv.Itoa(port), &minio.Options{
		Creds: credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""), BucketLookup: minio.BucketLookupPath})
	if err != nil {
		s.Close()
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := s.client.ListBuckets(ctx)
		cancel()
		if err == nil {
			return s, nil
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "versitygw.log"))
			s.Close()
			return nil, fmt.Errorf("versitygw not ready after 30 s: %v\n%s", err, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Bucket creates a bucket and returns its name.
func (s *Server) Bucket(t testing.TB, name string) string {
	t.Helper()
	if err := s.client.MakeBucket(context.Background(), name, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("s3server: make bucket %s: %v", name, err)
	}
	return name
}

// Options are the Paimon catalog options that reach this server.
func (s *Server) Options() map[string]string {
	return map[string]string{
		"s3.endpoint": s.Endpoint, "s3.access-key": s.AccessKey, "s3.secret-key": s.SecretKey,
		"s3.path.style.access": "true",
	}
}

// Close stops the gateway.
func (s *Server) Close() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}
