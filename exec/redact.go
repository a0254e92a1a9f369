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
