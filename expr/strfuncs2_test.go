package expr

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// The inputs TestStringFuncsAsJava runs through Java and sqlrun.
var (
	javaURLs = []string{
		"http://userinfo@flink.apache.org/path?query=1#Ref", "http://user:pass@host", "http://user:pass@host/?#",
		"http:foo", "http:?q", "http:///x", "http://", "http://a@b@c/p", "http://h:80/p", "http://h:-1/p", "http://h:-2/p",
		"http://h:abc/p", "http://h:+80/p", "http://h:/p", "http://[::1]:8080/p?q#r", "http://[::1]x/p", "http://[zz]/p",
		"http://[]/p", "http://host#a?b", "  HTTP://Host/Path  ", "url:http://x/y", "ftp://u@h/f", "file:///etc/passwd",
		"file:/etc/passwd", "mailto:a@b.com?subject=hi#frag", "mailto:   ", "mailto:", "https://h?x=1&query=2&query=3",
		"////x", "http:////x/y", "http://h/a?b?c#d#e", "#http://x", "x:y", "1http://x", "http://h/p;x?y",
		"invalid://user:pass@host/file;param?query;p2", "https://use%20r:pas%20s@example.com/dir%20/pa%20th.HTML?query=x%20y&q2=2#Ref%20two",
		"http://ü.example/ä?ö#ß", "HtTpS://H/", "http://h:99999999999/", "",
	}
	javaEncodeTexts = []string{"a b", "https://flink.apache.org/", "中国~!*'()", "😀", "é", "", "-_.*+%"}
	javaDecodeTexts = []string{
		"a+b%20c", "%E4%BD%A0", "%E4%BD", "%E4%BDx", "%+1", "%-1", "%-0", "%4", "abc%", "%zz", "%ED%A0%80",
		"%F0%9F%98", "%F0%9F%98%80", "%C0%80", "%80", "%E0%80%80", "%F4%90%80%80", "%E4%41", "%F0%9F%41", "%EF%BF%BD",
		"%F5%80", "%e4%bd%a0", "中%41", "%%41", "",
	}
	javaCharsets = []string{"US-ASCII", "ISO-8859-1", "UTF-8", "UTF-16", "UTF-16BE", "UTF-16LE", "utf8", "latin1", "ascii", "Utf-16le"}
	javaStrings  = []string{"", "aé中😀", "val_238"}
	javaBytes    = [][]byte{{}, {0xFE, 0xFF, 0, 0x61}, {0xFF, 0xFE, 0x61, 0}, {0, 0x61, 0x62}, {0xD8, 0, 0, 0x61}, {0xFE, 0xFF},
		{0x80, 0x41}, {0xDC, 0, 0, 0x41}, {0, 0x41, 0xD8, 0}, {0xD8, 0x3D, 0xDE, 0}, {0xE4, 0xBD}, {0xF0, 0x9F, 0x98, 0x80}}
	javaNumbers = []string{
		"1", "11.4445", " 1 ", "1.", ".5", ".", "1e5", "1e", "1f", "1.5D", "0x1p3", "0x1.8p1", "0x1", "NaN", "-Infinity",
		"+NaN", "Infinityx", "١٢٣", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999",
		"1_0", "+", "-", "1e+5d", "\t2\n", "0X.8P0", "1e5.0", "abc", "", "+-1", "1e-3F", "١.٥",
	}
	javaSplits = [][3]string{
		{"a=1,,b=2,,", ",", "0"}, {"a=1,,b=2,,", ",", "2"}, {",a", ",", "0"}, {"abc", "", "0"}, {"abc", "", "2"},
		{"a1b2c3", `\d`, "0"}, {"a1b2c3", `\d`, "2"}, {"k1$$v1|k2$$ v2", `\|`, "0"}, {"", ",", "0"}, {",,,", ",", "0"},
		{"a=b=c", "=", "2"}, {"x", "x", "2"}, {"aXbXc", "X*", "0"},
	}
	javaMaps = [][3]string{
		{"test1=1,test2=2,test3=3", ",", "="}, {"b=1,a=2,c,a=3", ",", "="},
		{"zz=1,aa=2,mm=3,bb=4,yy=5,q=6,r=7,s=8,t=9,u=10,v=11,w=12,x=13,y=14,z=15,ab=16,ac=17", ",", "="},
		{"k1:v1;k2: v2", ";", ":"}, {"k1$$v1|k2$$ v2", `\|`, `\$\$`}, {"", ",", "="}, {",", ",", "="}, {"=x,y=", ",", "="},
		{"é=1,😀=2,Aa=3,BB=4", ",", "="},
	}
)

// TestStringFuncsAsJava checks the Java-dependent parts of the string and
// encoding functions (java.net.URL's parsing for PARSE_URL, URLEncoder and
// URLDecoder, String.getBytes and new String for ENCODE and DECODE,
// Long.parseLong and Double.parseDouble for IS_DECIMAL, String.split and
// HashMap's order for STR_TO_MAP) against the JDK
// (scripts/compat/Strings.java).
func TestStringFuncsAsJava(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("expr: java is not installed; string functions not compared with the JDK (scripts/compat/install.sh)")
	}
	h := func(s string) string { return hex.EncodeToString([]byte(s)) }
	var in bytes.Buffer
	var got, what []string
	add := func(line, desc, sqlrun string) {
		in.WriteString(line + "\n")
		what = append(what, desc)
		got = append(got, sqlrun)
	}
	str := func(s string) string { return "=" + h(s) }
	ptr := func(s *string) string {
		if s == nil {
			return "null"
		}
		return str(*s)
	}
	for _, u := range javaURLs {
		p, err := parseJavaURL(u)
		res := "ERR"
		if err != nil {
			t.Fatalf("URL %q: %v", u, err)
		}
		if p != nil {
			file := p.path
			if p.query != nil {
				file += "?" + *p.query
			}
			res = strings.Join([]string{str(p.protocol), str(p.host), str(p.path), ptr(p.query), ptr(p.ref), str(file), ptr(p.authority), ptr(p.userInfo)}, ",")
		}
		add("U\t"+h(u), fmt.Sprintf("new URL(%q)", u), res)
	}
	one := func(f func(*Call, []Eval) (Eval, error), op string, vs ...any) (any, error) {
		args := make([]Eval, len(vs))
		for i, v := range vs {
			args[i] = func([]any) (any, error) { return v, nil }
		}
		ev, err := f(&Call{Op: op}, args)
		if err != nil {
			return nil, err
		}
		return ev(nil)
	}
	for _, s := range javaEncodeTexts {
		v, _ := one(evalURLEncode, "URL_ENCODE", s)
		add("E\t"+h(s), fmt.Sprintf("URLEncoder.encode(%q)", s), str(v.(string)))
	}
	for _, s := range javaDecodeTexts {
		v, _ := one(evalURLDecode, "URL_DECODE", s)
		res := "ERR"
		if v != nil {
			res = str(v.(string))
		}
		add("D\t"+h(s), fmt.Sprintf("URLDecoder.decode(%q)", s), res)
	}
	for _, cs := range javaCharsets {
		for _, s := range javaStrings {
			v, err := one(evalEncode, "ENCODE", s, cs)
			if err != nil {
				t.Fatal(err)
			}
			add("B\t"+h(s)+"\t"+h(cs), fmt.Sprintf("%q.getBytes(%s)", s, cs), "="+hex.EncodeToString(v.([]byte)))
		}
		for _, b := range javaBytes {
			v, err := one(evalDecode, "DECODE", b, cs)
			if err != nil {
				t.Fatal(err)
			}
			add("S\t"+hex.EncodeToString(b)+"\t"+h(cs), fmt.Sprintf("new String(%x, %s)", b, cs), str(v.(string)))
		}
	}
	for _, s := range javaNumbers {
		_, l := javaParseLong(s, 10)
		add("N\t"+h(s), fmt.Sprintf("parseLong/parseDouble(%q)", s), fmt.Sprintf("%v,%v", l, javaParsesDouble(s)))
	}
	for _, c := range javaSplits {
		limit := 0
		fmt.Sscan(c[2], &limit)
		parts, err := javaSplit("STR_TO_MAP", nil, c[1], c[0], limit)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString("[")
		for _, p := range parts {
			b.WriteString(str(p) + ",")
		}
		b.WriteString("]")
		add("P\t"+h(c[0])+"\t"+h(c[1])+"\t"+h(c[2]), fmt.Sprintf("%q.split(%q, %s)", c[0], c[1], c[2]), b.String())
	}
	for _, c := range javaMaps {
		v, err := one(evalStrToMap, "STR_TO_MAP", c[0], c[1], c[2])
		if err != nil {
			t.Fatal(err)
		}
		m := v.(*sql.Map)
		parts := make([]string, len(m.Keys))
		for i := range m.Keys {
			val := "null"
			if m.Values[i] != nil {
				val = m.Values[i].(string)
			}
			parts[i] = m.Keys[i].(string) + "=" + val
		}
		add("M\t"+h(c[0])+"\t"+h(c[1])+"\t"+h(c[2]), fmt.Sprintf("strToMap(%q, %q, %q)", c[0], c[1], c[2]), str("{"+strings.Join(parts, ", ")+"}"))
	}
	cmd := exec.Command(java, filepath.Join("..", "scripts", "compat", "Strings.java"))
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("Strings.java: %v\n%s", err, stderr.String())
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(want) != len(got) {
		t.Fatalf("Strings.java printed %d lines for %d cases", len(want), len(got))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: sqlrun %s, Java %s", what[i], got[i], want[i])
		}
	}
}
