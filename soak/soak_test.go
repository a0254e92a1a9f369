//go:build linux

package soak

import (
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
)

func init() {
	// The soak's own polling connections see MariaDB go away on purpose;
	// the driver's "bad idle connection" notes are noise here.
	_ = mysql.SetLogger(log.New(io.Discard, "", 0))
}

// TestSoak is the short form CI runs (≥ 50 faults across the four kinds,
// three producers, a few minutes); `make soak` runs the long form through
// the same test with SOAK_FAULTS and SOAK_DURATION raised. SOAK_SEED
// replays a schedule; SOAK_PRODUCERS picks producers (comma-separated).
func TestSoak(t *testing.T) {
	// The faults are what the test asks for; the duration only bounds a
	// machine too slow to inject them. They fit in 4 minutes on a quiet
	// machine (the bound until 2026-12-04); at a load average of 50-70 on
	// 2 cores only 35 of them did, and the test failed with every row
	// equal. The bound is three times the quiet figure, so that a loaded
	// machine runs the same schedule more slowly rather than fails.
	cfg := Config{Faults: 54, Duration: 12 * time.Minute, Seed: time.Now().UnixNano() % 1_000_000,
		Producers: []string{"none", "input", "lookup"}, Logf: t.Logf}
	if v := os.Getenv("SOAK_FAULTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			t.Fatalf("SOAK_FAULTS=%q: want a count", v)
		}
		cfg.Faults = n
	}
	if v := os.Getenv("SOAK_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("SOAK_DURATION=%q: want a Go duration such as 15m", v)
		}
		cfg.Duration = d
	}
	if v := os.Getenv("SOAK_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("SOAK_SEED=%q: want an integer", v)
		}
		cfg.Seed = n
	}
	if v := os.Getenv("SOAK_PRODUCERS"); v != "" {
		cfg.Producers = strings.Split(v, ",")
	}
	srv := mariadb.Start(t) // skips, saying why, only when no server can be had
	if srv.External() {
		t.Skip("soak: needs a MariaDB it can stop and start (SQLRUN_MYSQL_DSN points at an external server)")
	}
	cfg.Dir = t.TempDir()
	cfg.Bin = filepath.Join(cfg.Dir, "sqlrun")
	build := exec.Command("go", "build", "-o", cfg.Bin, "github.com/sqlrun/sqlrun/cmd/sqlrun")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build sqlrun: %v\n%s", err, out)
	}
	t.Logf("soak seed %d (replay with SOAK_SEED=%d), %d faults within %s", cfg.Seed, cfg.Seed, cfg.Faults, cfg.Duration)
	rep, err := Run(t, srv, cfg)
	fmt.Println(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Kinds {
		if rep.Faults[k] == 0 && cfg.Faults >= 2*len(Kinds) {
			t.Errorf("no %s fault was injected", k)
		}
	}
	if rep.Total() < cfg.Faults {
		t.Errorf("only %d of %d faults fitted in %s", rep.Total(), cfg.Faults, cfg.Duration)
	}
}
