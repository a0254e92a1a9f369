package dialect

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// FuzzParseURL: any URL either parses or fails with an error; neither path
// panics, and a password given in the URL never appears in the error or in
// the redacted form.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"jdbc:mysql://h:3306/db?user=u&password=PWSECRET",
		"jdbc:mysql://u:PWSECRET@h/db?useSSL=x",
		"jdbc:mysql://h/db?sessionVariables=a='1,2',b=2&password=PWSECRET&bogus",
		"jdbc:mysql://[::1]:3306/db?password=PWSECRET%",
		"jdbc:postgresql://h/db?password=PWSECRET",
		// The marker also outside the password: only the password's place
		// must be hidden.
		"jdbc:mysql://password=PWSECRET&PWSECRET",
	} {
		f.Add(s)
	}
	// shows reports a password still readable where the URL gives one: a
	// password parameter anywhere, or user:secret@ in the authority (a
	// ":PWSECRET@" after the first '/' is part of the database name).
	param := regexp.MustCompile(`(?i)password\s*=\s*PWSECRET`)
	shown := func(s string) bool {
		if param.MatchString(s) {
			return true
		}
		rest, ok := strings.CutPrefix(s, "jdbc:mysql://")
		if !ok {
			return strings.Contains(s, ":PWSECRET@")
		}
		authority, _, _ := strings.Cut(rest, "/")
		return strings.Contains(authority, ":PWSECRET@")
	}
	f.Fuzz(func(t *testing.T, u string) {
		c, err := ParseURL(u, "", "", false)
		red := RedactURL(u)
		rest, isMySQL := strings.CutPrefix(u, "jdbc:mysql://")
		host, _, _ := strings.Cut(rest, "/")
		if isMySQL && (strings.Contains(u, "password=PWSECRET") || strings.Contains(host, ":PWSECRET@")) {
			if shown(red) {
				t.Fatalf("RedactURL(%q) = %q shows the password", u, red)
			}
			for e := error(err); e != nil; e = errors.Unwrap(e) {
				if param.MatchString(e.Error()) || strings.Contains(e.Error(), ":PWSECRET@") && !strings.Contains(RedactURL(u), ":PWSECRET@") {
					t.Fatalf("ParseURL(%q) error shows the password: %v", u, e)
				}
			}
		}
		if err == nil && c.Config == nil {
			t.Fatal("nil config without error")
		}
	})
}

// FuzzLiteralString: every string encodes to a single quoted literal with
// no unescaped quote inside, in both escaping modes.
func FuzzLiteralString(f *testing.F) {
	f.Add("it's")
	f.Add("\\'")
	f.Add("\x00\n\r\x1a\"")
	f.Fuzz(func(t *testing.T, s string) {
		for _, esc := range []Escaping{BackslashEscapes, NoBackslashEscapes} {
			b, err := MySQL{}.AppendLiteral(nil, s, sql.String(), esc)
			if err != nil {
				t.Fatal(err)
			}
			if decoded, ok := unquote(string(b), esc); !ok || decoded != s {
				t.Fatalf("%q (mode %d) encoded as %q, decodes to %q, %v", s, esc, b, decoded, ok)
			}
		}
	})
}

// unquote reads a literal the way the server's lexer does, reporting
// whether it ends exactly at the closing quote.
func unquote(lit string, esc Escaping) (string, bool) {
	if len(lit) < 2 || lit[0] != '\'' {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(lit); i++ {
		c := lit[i]
		switch {
		case c == '\\' && esc == BackslashEscapes && i+1 < len(lit):
			i++
			switch lit[i] {
			case '0':
				b.WriteByte(0)
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 'Z':
				b.WriteByte(0x1a)
			default:
				b.WriteByte(lit[i])
			}
		case c == '\'':
			if i+1 < len(lit) && lit[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String(), i == len(lit)-1
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}
