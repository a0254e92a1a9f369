package table

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

// killChildEnv makes the test binary act as a committing child process.
const killChildEnv = "SQLRUN_PAIMON_KILL_CHILD"

// TestKillChild is the child: it commits in a loop as user "killer", one
// identifier per commit, each adding key i and setting key 0 to i, and
// prints "committed i" after each commit. Like the Paimon sink, it keeps
// the committable of the commit in flight (its checkpoint) in
// <dir>.pending before committing, and on start re-commits it: a commit
// whose APPEND snapshot landed but whose COMPACT snapshot did not is
// completed (Commit skips the part already there). Then it resumes after
// the user's last committed identifier, so a commit that landed before a
// SIGKILL is never repeated.
func TestKillChild(t *testing.T) {
	dir := os.Getenv(killChildEnv)
	if dir == "" {
		t.Skip("child process of TestSigkillWhileCommitting")
	}
	fail := func(err error) {
		fmt.Println("error", err)
		os.Exit(2)
	}
	tbl, err := Open(fs.NewLocal(), dir, nil)
	if err != nil {
		fail(err)
	}
	pending := dir + ".pending"
	if b, err := os.ReadFile(pending); err == nil {
		id, enc, _ := strings.Cut(string(b), "\n")
		i, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			fail(err)
		}
		msgs, err := DecodeMessages([]byte(enc))
		if err != nil {
			fail(err)
		}
		if err := tbl.NewCommit("killer").Commit(i, msgs, nil); err != nil {
			fail(err)
		}
	} else if !os.IsNotExist(err) {
		fail(err)
	}
	last, _, err := tbl.NewCommit("killer").LatestCommitted()
	if err != nil {
		fail(err)
	}
	for i := last + 1; ; i++ {
		w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
		if err == nil {
			err = w.Write(row(sql.Insert, i, "d", int32(i), "x"))
		}
		if err == nil {
			err = w.Write(row(sql.UpdateAfter, int64(0), "d", int32(i), "hot"))
		}
		var msgs []CommitMessage
		if err == nil {
			msgs, err = w.PrepareCommit(true)
		}
		var enc []byte
		if err == nil {
			enc, err = EncodeMessages(msgs)
		}
		if err == nil {
			err = os.WriteFile(pending+".tmp", append([]byte(fmt.Sprintf("%d\n", i)), enc...), 0o644)
		}
		if err == nil {
			err = os.Rename(pending+".tmp", pending)
		}
		if err == nil {
			err = tbl.NewCommit("killer").Commit(i, msgs, nil)
		}
		if err != nil {
			fail(err)
		}
		w.Close()
		fmt.Println("committed", i)
	}
}

// readAboveLevel0 reads the table merging only the files above level 0:
// with changelog-producer lookup, exactly the rows whose changelog the
// compactions have produced (level-0 rows get theirs when compacted).
func readAboveLevel0(t *testing.T, tbl *Table) []string {
	t.Helper()
	s, err := tbl.Snapshots.Latest()
	if err != nil {
		t.Fatalf("latest snapshot: %v", err)
	}
	if s == nil {
		return nil
	}
	splits, err := tbl.PlanFull(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sp := range splits {
		var files []manifest.DataFileMeta
		for _, f := range sp.Files {
			if f.Level > 0 {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			continue
		}
		sp.Files = files
		r, err := tbl.NewSplitReader(sp, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for {
			row, ok := r.Next()
			if !ok {
				break
			}
			out = append(out, sql.FormatRow(row, tbl.Schema.Types()))
		}
		if err := r.Error(); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	sortStrings(out)
	return out
}

// TestSigkillWhileCommitting kills a child that commits in a loop at
// random moments, then checks that the table is intact and reads exactly
// the state of some commit at or after the last one the child reported;
// with deletion vectors (each commit's compaction marks the hot key's
// older version and commits an index file), also that the table reads as
// Paimon's deletion-vector readers read it (checkDeletionVectors).
func TestSigkillWhileCommitting(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns subprocesses")
	}
	for _, dvs := range []bool{false, true} {
		t.Run(fmt.Sprintf("deletion-vectors=%v", dvs), func(t *testing.T) { runSigkillWhileCommitting(t, dvs) })
	}
}

func runSigkillWhileCommitting(t *testing.T, dvs bool) {
	dir := t.TempDir()
	opts := map[string]string{"bucket": "2", "num-sorted-run.compaction-trigger": "3", "snapshot.num-retained.min": "3",
		"snapshot.time-retained": "1 ms", "changelog-producer": "lookup"}
	if dvs {
		opts["deletion-vectors.enabled"] = "true"
	}
	tbl, err := Create(fs.NewLocal(), dir, pkSchema(), []string{"dt"}, opts, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	// With deletion vectors a large first commit keeps the hot key's first
	// version in a file that later compactions leave alone (size ratio):
	// each update marks the older version there instead of rewriting it.
	var base []string
	if dvs {
		var rows []sql.Row
		for i := int64(1_000_000); i < 1_000_400; i++ {
			rows = append(rows, row(sql.Insert, i, "d", int32(i%1000), "base"))
			base = append(base, fmt.Sprintf("+I[%d, d, %d, base]", i, i%1000))
		}
		rows = append(rows, row(sql.Insert, int64(0), "d", int32(0), "hot"))
		writeCommit(t, tbl, "setup", 1, rows...)
	}
	var acked int64
	// A streaming reader with a consumer-id follows the changelog; it must
	// end equal to the table however the child died.
	stream := map[string][]any{}
	var next int64 = 1
	tbl.Snapshots.WriteConsumer("reader", snapshot.Consumer{NextSnapshot: next})
	for round := 0; round < 4; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		wait := time.Duration(150+round*70) * time.Millisecond
		if dvs {
			wait *= 3 // more commits per round, so that vectors accumulate
		}
		deadline := time.After(wait)
		lines := make(chan string)
		go func() {
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				if strings.HasPrefix(l, "error") {
					t.Fatalf("child: %s", l)
				}
				if n, ok := strings.CutPrefix(l, "committed "); ok {
					acked, _ = strconv.ParseInt(n, 10, 64)
				}
			case <-deadline:
				break read
			}
		}
		cmd.Process.Kill()
		cmd.Wait()
		for range lines {
		}
		tbl, err = Open(fs.NewLocal(), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkIntegrity(t, tbl)
		if dvs {
			checkDeletionVectors(t, tbl)
		}
		k, _, err := tbl.NewCommit("killer").LatestCommitted()
		if err != nil {
			t.Fatal(err)
		}
		if k < acked {
			t.Fatalf("round %d: child reported commit %d, table has %d", round, acked, k)
		}
		want := append([]string(nil), base...)
		if k > 0 || dvs {
			want = append(want, fmt.Sprintf("+I[0, d, %d, hot]", k))
		}
		for i := int64(1); i <= k; i++ {
			want = append(want, fmt.Sprintf("+I[%d, d, %d, x]", i, i))
		}
		rows, err := readAll(tbl, nil, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sortStrings(want)
		if strings.Join(rows, "\n") != strings.Join(want, "\n") {
			t.Fatalf("round %d: table at commit %d reads\n%s\nwant\n%s", round, k, strings.Join(rows, "\n"), strings.Join(want, "\n"))
		}
		latest, _, _ := tbl.Snapshots.LatestID()
		for ; next <= latest; next++ {
			s, err := tbl.Snapshots.Read(next)
			if err != nil {
				t.Fatal(err)
			}
			splits, _ := tbl.PlanChangelog(s, nil)
			for _, sp := range splits {
				it, err := tbl.ReadKV(sp)
				if err != nil {
					t.Fatal(err)
				}
				for kv := it.Next(); kv != nil; kv = it.Next() {
					dedupApply(stream, sql.Row{Kind: kv.Kind, Values: kv.Value})
				}
				if err := it.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
		tbl.Snapshots.WriteConsumer("reader", snapshot.Consumer{NextSnapshot: next})
		var got []string
		for _, v := range stream {
			got = append(got, sql.FormatRow(sql.Row{Values: v}, tbl.Schema.Types()))
		}
		sortStrings(got)
		// The changelog so far is exactly what the compactions produced:
		// the rows above level 0.
		if ro := readAboveLevel0(t, tbl); strings.Join(got, "\n") != strings.Join(ro, "\n") {
			t.Fatalf("round %d: changelog replay\n%s\nwant (rows above level 0)\n%s", round, strings.Join(got, "\n"), strings.Join(ro, "\n"))
		}
		// Each commit compacts the buckets it wrote (lookup-wait) and a
		// commit cut short between its APPEND and COMPACT snapshots is
		// completed on restart, so after a COMPACT snapshot every row has
		// its changelog.
		if s, _ := tbl.Snapshots.Latest(); s != nil && s.CommitKind == snapshot.Compact && strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("round %d: changelog replay\n%s\nwant\n%s", round, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		t.Logf("round %d: killed after commit %d (reported %d), latest snapshot %d; data files with a deletion vector seen so far: %d", round, k, acked, latest, dvSeen[tbl.Root])
	}
}

func sortStrings(s []string) { sort.Strings(s) }
