package expr

import (
	"bytes"
	"fmt"
	"math/rand"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestJavaPatternsAsJava checks DATE_FORMAT's and TO_TIMESTAMP's
// date-time patterns against java.time.format.DateTimeFormatter, which
// Flink's DateTimeUtils uses: random date-times formatted by a set of
// patterns, and texts (those outputs and hand-written edge cases) parsed
// by them. scripts/compat/DateFmt.java computes Java's side; the test is
// skipped where java is not installed.
func TestJavaPatternsAsJava(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("expr: java is not installed; date-time patterns not compared with DateTimeFormatter (scripts/compat/install.sh)")
	}
	patterns := []string{
		"yyyy-MM-dd HH:mm:ss", "yyyy/MM/dd HH:mm:ss.SSS", "yyyyMMdd", "yyyyMMddHHmmss", "yy-MM-dd HH-mm-ss",
		"d/M/y H:m:s", "EEE, d MMM yyyy HH:mm:ss", "EEEE MMMM dd yyyy hh:mm a", "yyyy-DDD", "yyyy-D",
		"HH:mm:ss.SSSSSS", "'T'HH'h'mm", "yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSS", "kk:mm", "KK:mm a", "uuuu-MM-dd",
		"SSSSSSS", "yyyyMMdd mm:ss.SSSSSSS", "yyyy-MM-dd HH:mm:ss.SSSSS", "MMM yyyy", "n", "yyyy-MM-dd''HH",
		"y-M-d", "yyyyy-MM-dd",
	}
	texts := map[string][]string{
		"yyyy-M-d":               {"2021-9-1", "2021-09-01", "2021-10-1"},
		"yyyy-MM-dd":             {"2021-02-30", "2021-13-01", "2021-9-01", " 2021-01-01", "2021-01-01 ", "2021-02-29", "2020-02-30", "2021-04-31", "2021-01-32"},
		"yyyyMMdd mm:ss.SSSSSSS": {"20000202 59:59.1234567"},
		"SSSSSSS":                {"1234567", "123456"},
		"yy-MM-dd":               {"99-01-01", "00-12-31"},
		"yyyyMMddHH":             {"2000020210", "200002021"},
		"yyyy":                   {"2021", "20211", "21"},
		"HH:mm":                  {"24:00", "23:59", "7:05"},
		"yyyy-MM-dd HH:mm":       {"2021-12-31 24:00", "2021-12-31 24:01", "+2021-12-31 10:00", "+20211-01-01 10:00"},
		"hh:mm a":                {"12:30 AM", "12:30 PM", "00:30 AM", "13:00 PM"},
	}
	type tcase struct{ kind, pattern, arg string }
	var cases []tcase
	rng := rand.New(rand.NewSource(7))
	var times []time.Time
	for i := 0; i < 40; i++ {
		sec := rng.Int63n(253402300799+62135596800) - 62135596800 // 0001-01-01 .. 9999-12-31
		if i < 20 {
			sec = rng.Int63n(4102444800) // 1970 .. 2100
		}
		times = append(times, time.Unix(sec, rng.Int63n(1e9)).UTC())
	}
	times = append(times, time.Date(2021, 1, 3, 0, 0, 0, 0, time.UTC), time.Date(2020, 12, 31, 12, 0, 0, 0, time.UTC),
		time.Date(999, 5, 6, 7, 8, 9, 100000000, time.UTC))
	for _, p := range patterns {
		for _, tm := range times {
			cases = append(cases, tcase{"F", p, fmt.Sprintf("%d\t%d", tm.Unix(), tm.Nanosecond())})
		}
	}
	// Parse what Java formats, and the edge cases.
	var in bytes.Buffer
	for _, c := range cases {
		fmt.Fprintf(&in, "%s\t%s\t%s\n", c.kind, c.pattern, c.arg)
	}
	formatted := runDateFmt(t, java, &in, len(cases))
	nf := len(cases)
	for i, c := range cases {
		if formatted[i] != "ERR" {
			cases = append(cases, tcase{"P", c.pattern, formatted[i]})
		}
	}
	for p, ts := range texts {
		for _, s := range ts {
			cases = append(cases, tcase{"P", p, s})
		}
	}
	in.Reset()
	for _, c := range cases[nf:] {
		fmt.Fprintf(&in, "%s\t%s\t%s\n", c.kind, c.pattern, c.arg)
	}
	parsed := runDateFmt(t, java, &in, len(cases)-nf)
	want := append(formatted, parsed...)

	bad := 0
	for i, c := range cases {
		pat, err := compileJavaPattern(c.pattern)
		var got string
		switch {
		case err != nil:
			got = "ERR"
		case c.kind == "F":
			var sec, nano int64
			fmt.Sscanf(c.arg, "%d\t%d", &sec, &nano)
			got = pat.format(time.Unix(sec, nano).UTC())
		default:
			tm, ok := pat.parse(c.arg)
			got = "ERR"
			if ok {
				got = fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d.%09d", tm.Year(), tm.Month(), tm.Day(), tm.Hour(), tm.Minute(), tm.Second(), tm.Nanosecond())
			}
		}
		if got != want[i] {
			if bad++; bad <= 25 {
				t.Errorf("%s %q %q: sqlrun %q, DateTimeFormatter %q", c.kind, c.pattern, c.arg, got, want[i])
			}
		}
	}
	t.Logf("%d cases compared, %d differ", len(cases), bad)
}

func runDateFmt(t *testing.T, java string, in *bytes.Buffer, n int) []string {
	t.Helper()
	cmd := exec.Command(java, filepath.Join("..", "scripts", "compat", "DateFmt.java"))
	cmd.Stdin = in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("DateFmt.java: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("DateFmt.java printed %d lines for %d cases", len(lines), n)
	}
	return lines
}

// TestSimplePatternsAsJava checks FROM_UNIXTIME's, UNIX_TIMESTAMP's and
// TO_DATE's SimpleDateFormat patterns against java.text.SimpleDateFormat
// in UTC, as TestJavaPatternsAsJava does DateTimeFormatter's.
func TestSimplePatternsAsJava(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("expr: java is not installed; SimpleDateFormat patterns not compared (scripts/compat/install.sh)")
	}
	patterns := []string{
		"yyyy-MM-dd HH:mm:ss", "yyyy/MM/dd HH:mm:ss.S", "yyyy/MM/dd HH:mm:ss.SSS", "yyyyMMdd", "yyyyMMddHHmmss",
		"yy-MM-dd HH-mm-ss", "d/M/y H:m:s", "EEE, d MMM yyyy HH:mm:ss", "EEEE MMMM dd yyyy hh:mm a", "yyyy-DDD",
		"HH:mm:ss.SSSSSS", "'T'HH'h'mm", "kk:mm", "KK:mm a", "yyyyy-MM-dd", "MMM yyyy", "u", "yyyy-MM-dd''HH",
	}
	texts := map[string][]string{
		"yyyy-MM-dd HH:mm:ss":   {"2015-07-24 10:00:00", "2015-7-24 10:0:0", "2015-07-24 10:00:00.300", "2015-13-01 00:00:00", "2015-02-30 25:61:61", "2015-07-24", " 2015-07-24 10:00:00", "x"},
		"yyyy/MM/dd HH:mm:ss.S": {"2015/07/24 10:00:00.5", "2015/07/25 02:02:02.6", "2015/07/25 02:02:02.123456"},
		"yyyyMMdd":              {"20150724", "2015072", "201507241"},
		"yy-MM-dd":              {"99-01-01", "00-12-31", "45-06-01", "46-06-01", "1999-01-01"},
		"yyyy-MM-dd":            {"2021-02-29", "2021-1-5", "1582-10-15"},
		"hh:mm a":               {"12:30 AM", "12:30 pm", "11:00 PM"},
		"dd MMM yyyy":           {"05 jan 2021", "05 January 2021", "05 Jnu 2021"},
	}
	rng := rand.New(rand.NewSource(11))
	var millis []int64
	for i := 0; i < 30; i++ {
		millis = append(millis, rng.Int63n(4102444800000))
	}
	millis = append(millis, 0, 1005, 86399999)
	type tcase struct{ kind, pattern, arg string }
	var cases []tcase
	for _, p := range patterns {
		for _, ms := range millis {
			cases = append(cases, tcase{"SF", p, fmt.Sprint(ms)})
		}
	}
	for p, ts := range texts {
		for _, s := range ts {
			cases = append(cases, tcase{"SP", p, s})
		}
	}
	var in bytes.Buffer
	for _, c := range cases {
		fmt.Fprintf(&in, "%s\t%s\t%s\n", c.kind, c.pattern, c.arg)
	}
	now := time.Now().UTC()
	want := runDateFmt(t, java, &in, len(cases))
	bad := 0
	for i, c := range cases {
		pat, err := compileSimplePattern(c.pattern)
		got := "ERR"
		if err == nil {
			if c.kind == "SF" {
				var ms int64
				fmt.Sscan(c.arg, &ms)
				got = pat.format(time.UnixMilli(ms).UTC())
			} else if tm, ok := pat.parse(c.arg, now); ok {
				got = fmt.Sprint(tm.UnixMilli())
			}
		}
		if got != want[i] {
			if bad++; bad <= 25 {
				t.Errorf("%s %q %q: sqlrun %q, SimpleDateFormat %q", c.kind, c.pattern, c.arg, got, want[i])
			}
		}
	}
	t.Logf("%d cases compared, %d differ", len(cases), bad)
}
