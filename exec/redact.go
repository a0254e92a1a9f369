package exec

import (
	"regexp"
	"strings"

	"github.com/sqlrun/sqlrun/connectors"
)

// optionPair matches 'key' = 'value' (SQL string literals, a quote inside doubled),
// the shape of WITH options, OPTIONS hints, SET and CREATE CATALOG.
var optionPair = regexp.MustCompile(`('(?:[^']|'')*')(\s*=\s*)'(?:[^']|'')*'`)

// Credentials embedded in a value (a JDBC url's password=... parameter,
// scheme://user:secret@host), found anywhere in a statement's text — a
// literal's boundaries cannot be trusted when a comment holds a quote.
// Unlike connectors.MaskValue they need at least one character of
// secret, so "WHERE password='x'" in a query is left as written.
var (
	textParamSecret    = regexp.MustCompile(`(?i)((?:password|passwd|pwd|secret|token|apikey)\s*=\s*)[^&;,\s'"*][^&;,\s'"]*`)
	textUserinfoSecret = regexp.MustCompile(`(://[^/:@\s'"]*:)[^@/\s'"*][^@/\s'"]*@`)
)

// RedactSQL replaces the value of every sensitive 'key' = 'value' pair in
// a statement's text with '******' (keys as connectors.IsSensitive
// judges them), and credentials embedded in any value (a JDBC url's
// password=... or user:password@) with ******. The shell stores history
// and echoes script statements through it, so a password typed into DDL
// never reaches a screen log or ~/.sqlrun_history.
func RedactSQL(text string) string {
	if strings.ContainsAny(text, "=@") {
		text = textParamSecret.ReplaceAllString(text, "${1}"+connectors.Mask)
		text = textUserinfoSecret.ReplaceAllString(text, "${1}"+connectors.Mask+"@")
	}
	if !strings.Contains(text, "'") {
		return text
	}
	return optionPair.ReplaceAllStringFunc(text, func(m string) string {
		sub := optionPair.FindStringSubmatch(m)
		key := strings.ReplaceAll(sub[1][1:len(sub[1])-1], "''", "'")
		if !connectors.IsSensitive(key) {
			return m
		}
		return sub[1] + sub[2] + "'" + connectors.Mask + "'"
	})
}

// SecretsIn returns the secret values a statement's text holds: the
// values of sensitive 'key' = 'value' pairs and credentials embedded in
// any value, as RedactSQL finds them, so that text coming back from
// elsewhere (a SQL Gateway's errors and results) can be masked too.
func SecretsIn(text string) []string {
	var out []string
	for _, m := range optionPair.FindAllStringSubmatch(text, -1) {
		key := strings.ReplaceAll(m[1][1:len(m[1])-1], "''", "'")
		if !connectors.IsSensitive(key) {
			continue
		}
		v := m[0][len(m[1])+len(m[2]):]
		if v = strings.ReplaceAll(v[1:len(v)-1], "''", "'"); v != "" {
			out = append(out, v)
		}
	}
	for _, m := range textParamSecret.FindAllStringSubmatch(text, -1) {
		out = append(out, strings.TrimPrefix(m[0], m[1]))
	}
	for _, m := range textUserinfoSecret.FindAllStringSubmatch(text, -1) {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(m[0], m[1]), "@"))
	}
	return out
}
