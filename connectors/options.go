package connectors

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// OptionType is the value type of an option, used for validation and docs.
type OptionType int

// Option value types.
const (
	String OptionType = iota
	Int
	Long
	Bool
	Double
	Duration   // Flink durations: "1s", "500 ms", "10 min", a bare number is millis
	MemorySize // Flink memory sizes: "256 mb", "8 kb", a bare number is bytes
	Enum       // one of Option.Enum, case-insensitive
	Map        // Flink's map options: "k1:v1,k2:v2" (ParseMap)
)

// Option declares one connector option, with Flink's / Paimon's name and
// default.
type Option struct {
	Key string
	// Default is the value used when the option is absent; "" means none.
	Default     string
	Type        OptionType
	Required    bool
	Enum        []string
	Description string
	// Prefix marks a key family: any key starting with Key is accepted
	// (e.g. datagen's "fields." or Paimon's "fields.").
	Prefix bool
	// FallbackKeys are deprecated names accepted for this option.
	FallbackKeys []string
	// SqlrunOnly marks an option the connector's Java implementation does
	// not have (sqlrun's own, opt-in behaviour): `sqlrun check --target
	// flink-1.20` reports it, and docs/connectors.md marks it.
	SqlrunOnly bool
}

// sensitiveKeys are the fragments Flink's GlobalConfiguration.isSensitive
// looks for, and the object store's access key (s3.access-key: Flink shows
// it; sqlrun treats both halves of an S3 credential as secret); options
// whose key contains one are shown as ******.
var sensitiveKeys = []string{"password", "secret", "fs.azure.account.key", "apikey",
	"auth-params", "service-key", "token", "basic-auth", "jaas.config", "http-headers", "access-key"}

// Mask is what a sensitive value is shown as.
const Mask = "******"

// IsSensitive reports whether an option's value must never be shown.
func IsSensitive(key string) bool {
	k := strings.ToLower(key)
	for _, s := range sensitiveKeys {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// MaskOptions returns a copy of opts with sensitive values replaced by
// ******, and credentials embedded in other values (a JDBC url's
// password=... parameter or user:password@ part) masked too.
func MaskOptions(opts map[string]string) map[string]string {
	out := make(map[string]string, len(opts))
	for k, v := range opts {
		if IsSensitive(k) {
			v = Mask
		} else {
			v = MaskValue(v)
		}
		out[k] = v
	}
	return out
}

var (
	// password=secret inside a URL query or a key=value list.
	paramSecret = regexp.MustCompile(`(?i)((?:password|passwd|pwd|secret|token|apikey)=)[^&;,\s']*`)
	// scheme://user:secret@host
	userinfoSecret = regexp.MustCompile(`(://[^/:@\s']*:)[^@/\s']*@`)
)

// MaskValue masks credentials embedded in an option value, such as
// jdbc:mysql://h/db?password=secret or mysql://user:secret@h/db, so
// that SHOW CREATE TABLE, EXPLAIN and error messages never show them.
func MaskValue(v string) string {
	if !strings.ContainsAny(v, "=@") {
		return v
	}
	v = paramSecret.ReplaceAllString(v, "${1}"+Mask)
	return userinfoSecret.ReplaceAllString(v, "${1}"+Mask+"@")
}

// Validate checks opts against the factory's declared options with Flink's
// FactoryUtil wording: missing required options first, then unknown keys,
// then values that do not parse as their type.
func Validate(f Factory, opts map[string]string) error {
	declared := f.Options()
	var missing []string
	for _, o := range declared {
		if o.Required && !o.Prefix {
			if _, ok := lookup(opts, o); !ok {
				missing = append(missing, o.Key)
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return sql.Errorf(sql.ValidationException,
			"One or more required options are missing.\n\nMissing required options are:\n\n%s",
			strings.Join(missing, "\n"))
	}
	var unknown []string
	for k := range opts {
		if k == "connector" || known(declared, k) {
			continue
		}
		unknown = append(unknown, k)
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		supported := []string{"connector"}
		for _, o := range declared {
			key := o.Key
			if o.Prefix {
				key += "*"
			}
			supported = append(supported, key)
			supported = append(supported, o.FallbackKeys...)
		}
		sort.Strings(supported)
		return sql.Errorf(sql.ValidationException,
			"Unsupported options found for '%s'.\n\nUnsupported options:\n\n%s\n\nSupported options:\n\n%s",
			f.Identifier(), strings.Join(unknown, "\n"), strings.Join(supported, "\n"))
	}
	for _, o := range declared {
		if o.Prefix {
			continue
		}
		v, ok := lookup(opts, o)
		if !ok {
			continue
		}
		if err := CheckValue(o, v); err != nil {
			return err
		}
	}
	return nil
}

func known(declared []Option, key string) bool {
	for _, o := range declared {
		if o.Key == key || (o.Prefix && strings.HasPrefix(key, o.Key)) {
			return true
		}
		for _, fk := range o.FallbackKeys {
			if fk == key {
				return true
			}
		}
	}
	return false
}

func lookup(opts map[string]string, o Option) (string, bool) {
	if v, ok := opts[o.Key]; ok {
		return v, true
	}
	for _, fk := range o.FallbackKeys {
		if v, ok := opts[fk]; ok {
			return v, true
		}
	}
	return "", false
}

// CheckValue reports whether v parses as o's type, with Flink's
// "Could not parse value '...' for key '...'." message.
func CheckValue(o Option, v string) error {
	var err error
	switch o.Type {
	case Int:
		_, err = strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	case Long:
		_, err = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	case Double:
		_, err = strconv.ParseFloat(strings.TrimSpace(v), 64)
	case Bool:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "false":
		default:
			err = fmt.Errorf("not a boolean")
		}
	case Duration:
		_, err = ParseDuration(v)
	case MemorySize:
		_, err = ParseMemorySize(v)
	case Map:
		_, err = ParseMap(v)
	case Enum:
		ok := false
		for _, e := range o.Enum {
			if strings.EqualFold(e, strings.TrimSpace(v)) {
				ok = true
			}
		}
		if !ok {
			return sql.Errorf(sql.ValidationException,
				"Could not parse value '%s' for key '%s'.\nExpected one of: [%s]", v, o.Key, strings.Join(o.Enum, ", "))
		}
	}
	if err != nil {
		return sql.Errorf(sql.ValidationException, "Could not parse value '%s' for key '%s'.", v, o.Key)
	}
	return nil
}

// MapEntry is one key and value of a map option.
type MapEntry struct{ Key, Value string }

// ParseMap reads a map option as Flink's ConfigurationUtils does
// (convertToProperties over StructuredOptionsSplitter.splitEscaped):
// entries separated by ',', each a key and a value separated by ':';
// a part may be quoted with ' or " (a doubled quote inside stands for
// itself), which protects the separators in it, e.g.
// 'b:"DECIMAL(10, 2)"'. Whitespace around a part is dropped. Entries
// come back in the order written; a later duplicate key wins, as in
// Flink's map.
func ParseMap(v string) ([]MapEntry, error) {
	items, err := splitEscaped(v, ',')
	if err != nil {
		return nil, err
	}
	var out []MapEntry
	at := map[string]int{}
	for _, it := range items {
		kv, err := splitEscaped(it, ':')
		if err != nil {
			return nil, err
		}
		if len(kv) != 2 {
			return nil, fmt.Errorf("map item is not a key-value pair (missing ':'?)")
		}
		if i, ok := at[kv[0]]; ok {
			out[i].Value = kv[1]
			continue
		}
		at[kv[0]] = len(out)
		out = append(out, MapEntry{Key: kv[0], Value: kv[1]})
	}
	return out, nil
}

// splitEscaped splits s at delim as Flink's
// StructuredOptionsSplitter.splitEscaped does: a part starting with ' or "
// runs to the matching quote (doubled inside: the quote itself) and must
// be followed by delim or the end; any other part runs to the next delim,
// trimmed; whitespace between parts is skipped, and a delim adds an empty
// part only when another delim follows it.
func splitEscaped(s string, delim byte) ([]string, error) {
	type token struct {
		kind byte // 'q' quoted, 'u' unquoted, 'd' delimiter
		text string
	}
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			for ; ; j++ {
				if j >= len(s) {
					return nil, fmt.Errorf("could not split string: quoting was not closed properly")
				}
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						b.WriteByte(c)
						j++
						continue
					}
					break
				}
				b.WriteByte(s[j])
			}
			toks = append(toks, token{'q', b.String()})
			i = j + 1
		case c == delim:
			toks = append(toks, token{'d', ""})
			i++
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		default:
			j := strings.IndexByte(s[i:], delim)
			if j < 0 {
				j = len(s) - i
			}
			toks = append(toks, token{'u', strings.TrimSpace(s[i : i+j])})
			i += j
		}
	}
	var parts []string
	for i, t := range toks {
		switch t.kind {
		case 'q':
			if i+1 < len(toks) && toks[i+1].kind != 'd' {
				return nil, fmt.Errorf("could not split string: illegal quoting")
			}
			parts = append(parts, t.text)
		case 'u':
			parts = append(parts, t.text)
		case 'd':
			if i+1 < len(toks) && toks[i+1].kind == 'd' {
				parts = append(parts, "")
			}
		}
	}
	return parts, nil
}

// ParseDuration reads Flink's duration syntax (TimeUtils.parseDuration):
// a number and an optional unit (ms, s, min, h, d, with their long forms);
// a bare number is milliseconds.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("invalid duration %q: it must start with a number", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: %w", s, err)
	}
	unit := strings.TrimSpace(t[i:])
	var d time.Duration
	switch unit {
	case "", "ms", "milli", "millis", "millisecond", "milliseconds":
		d = time.Millisecond
	case "ns", "nano", "nanos", "nanosecond", "nanoseconds":
		d = time.Nanosecond
	case "µs", "us", "micro", "micros", "microsecond", "microseconds":
		d = time.Microsecond
	case "s", "sec", "secs", "second", "seconds":
		d = time.Second
	case "m", "min", "mins", "minute", "minutes":
		d = time.Minute
	case "h", "hour", "hours":
		d = time.Hour
	case "d", "day", "days":
		d = 24 * time.Hour
	default:
		return 0, fmt.Errorf("invalid duration %q: unknown unit %q", s, unit)
	}
	return time.Duration(n) * d, nil
}

// ParseMemorySize reads Flink's memory size syntax (MemorySize.parse): a
// number and an optional unit (b, kb, mb, gb, tb and their long forms).
func ParseMemorySize(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("invalid memory size %q", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid memory size %q: %w", s, err)
	}
	switch strings.TrimSpace(t[i:]) {
	case "", "b", "bytes":
		return n, nil
	case "k", "kb", "kibibytes":
		return n << 10, nil
	case "m", "mb", "mebibytes":
		return n << 20, nil
	case "g", "gb", "gibibytes":
		return n << 30, nil
	case "t", "tb", "tebibytes":
		return n << 40, nil
	}
	return 0, fmt.Errorf("invalid memory size %q: unknown unit", s)
}

// Options is a typed view of a table's option map with the declared
// defaults applied.
type Options struct {
	spec []Option
	vals map[string]string
}

// NewOptions binds values to their declarations.
func NewOptions(spec []Option, vals map[string]string) Options {
	return Options{spec: spec, vals: vals}
}

// Get returns the value of key, or its declared default.
func (o Options) Get(key string) string {
	for _, op := range o.spec {
		if op.Key == key {
			if v, ok := lookup(o.vals, op); ok {
				return v
			}
			return op.Default
		}
	}
	return o.vals[key]
}

// Has reports whether key was set explicitly.
func (o Options) Has(key string) bool {
	for _, op := range o.spec {
		if op.Key == key {
			_, ok := lookup(o.vals, op)
			return ok
		}
	}
	_, ok := o.vals[key]
	return ok
}

// Int returns an integer option (its default when unset or unparsable;
// Validate has already rejected bad values).
func (o Options) Int(key string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(o.Get(key)))
	return n
}

// Int64 returns a long option.
func (o Options) Int64(key string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSpace(o.Get(key)), 10, 64)
	return n
}

// Bool returns a boolean option.
func (o Options) Bool(key string) bool {
	return strings.EqualFold(strings.TrimSpace(o.Get(key)), "true")
}

// Duration returns a duration option.
func (o Options) Duration(key string) time.Duration {
	d, _ := ParseDuration(o.Get(key))
	return d
}

// MemorySize returns a memory-size option in bytes.
func (o Options) MemorySize(key string) int64 {
	n, _ := ParseMemorySize(o.Get(key))
	return n
}
