package expr

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCaseMappingAsJava checks UPPER and LOWER against java.lang.String,
// which Flink's BinaryStringData.toUpperCase / toLowerCase call for any
// string that is not all ASCII: every code point of the Basic Multilingual
// Plane and the supplementary ones with a case mapping, alone, and strings
// whose mapping depends on context (a final sigma). scripts/compat/
// CaseMap.java computes Java's side; the test is skipped where java is not
// installed. Code points the JDK's Unicode does not define (Go's tables
// may be newer) are left out.
func TestCaseMappingAsJava(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("expr: java is not installed; UPPER/LOWER not compared with java.lang.String (scripts/compat/install.sh)")
	}
	var inputs []string
	for r := rune(1); r <= 0x1FFFF; r++ {
		if (r >= 0xD800 && r <= 0xDFFF) || (r > 0xFFFF && JavaUpper(string(r)) == string(r) && JavaLower(string(r)) == string(r)) {
			continue
		}
		inputs = append(inputs, string(r))
	}
	inputs = append(inputs, "straße", "ΟΔΟΣ ΟΔΟΣ", "ΑΣ.", "ΑΣΑ", "Σ", "aΣ", "İstanbul", "ǅemal", "ﬃx", "Hello, Wörld!", "ŉ", "ΐ")
	var in bytes.Buffer
	for _, s := range inputs {
		in.WriteString(spell(s))
		in.WriteByte('\n')
	}
	cmd := exec.Command(java, "-Xss4m", filepath.Join("..", "scripts", "compat", "CaseMap.java"))
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("CaseMap.java: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(inputs) {
		t.Fatalf("CaseMap.java printed %d lines for %d strings", len(lines), len(inputs))
	}
	compared, bad := 0, 0
	for i, s := range inputs {
		if lines[i] == "U" {
			continue
		}
		compared++
		up, lo, _ := strings.Cut(lines[i], " | ")
		if got := spell(JavaUpper(s)); got != up {
			if bad++; bad <= 20 {
				t.Errorf("UPPER(%q) = %q (%s), java.lang.String: %s", s, JavaUpper(s), got, up)
			}
		}
		if got := spell(JavaLower(s)); got != lo {
			if bad++; bad <= 20 {
				t.Errorf("LOWER(%q) = %q (%s), java.lang.String: %s", s, JavaLower(s), got, lo)
			}
		}
	}
	if bad > 20 {
		t.Errorf("... %d differences in all", bad)
	}
	if compared < 60000 {
		t.Errorf("only %d of %d strings compared", compared, len(inputs))
	}
}

// spell is a string as CaseMap.java reads and writes it: its code points
// in hexadecimal, separated by spaces.
func spell(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(int64(r), 16))
	}
	return b.String()
}
