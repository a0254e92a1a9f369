package table

import (
	"errors"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// errTimeParse is Java's DateTimeParseException: a partition value that
// does not parse with the formatter. Paimon's expiration skips such a
// partition (with a warning); other errors (a bad formatter pattern) fail.
var errTimeParse = errors.New("text could not be parsed")

// timeExtractor is Paimon's PartitionTimeExtractor: the time of a
// partition is its first value, or the 'partition.timestamp-pattern' with
// every $<key> replaced by that key's value, parsed with
// 'partition.timestamp-formatter' (a java.time DateTimeFormatter pattern)
// or, without one, as 'yyyy-MM-dd[ HH:mm:ss[.S…]]' (lenient). The result
// is a wall-clock time (Java's LocalDateTime), here a time.Time in UTC.
type timeExtractor struct {
	pattern, formatter       string
	hasPattern, hasFormatter bool
}

// extract is PartitionTimeExtractor.extract. values are the Java
// toString() of the partition's internal values, nil for null (Paimon
// then fails with a NullPointerException that the expiration catches:
// errTimeParse here too).
func (x timeExtractor) extract(keys []string, values []*string) (time.Time, error) {
	var s string
	if !x.hasPattern {
		if values[0] == nil {
			return time.Time{}, errTimeParse
		}
		s = *values[0]
	} else {
		// String.replaceAll("\\$" + key, value), key by key in order.
		s = x.pattern
		for i, k := range keys {
			if !strings.Contains(s, "$"+k) {
				continue
			}
			if values[i] == nil {
				return time.Time{}, errTimeParse
			}
			s = strings.ReplaceAll(s, "$"+k, *values[i])
		}
	}
	if !x.hasFormatter {
		return parseDefaultTimestamp(s)
	}
	f, err := compileJavaPattern(x.formatter)
	if err != nil {
		return time.Time{}, err
	}
	return f.parse(s)
}

// parseDefaultTimestamp is PartitionTimeExtractor.toLocalDateTimeDefault:
// TIMESTAMP_FORMATTER (year 1-10 digits, month and day 1-2, then
// optionally ' H:m:s' each 1-2 digits and an optional fraction of 1-9
// digits), else DATE_FORMATTER at midnight; both resolve leniently (a
// month 13 is January of the next year), as time.Date normalizes.
func parseDefaultTimestamp(s string) (time.Time, error) {
	p := numScanner{s: s}
	y, ok1 := p.num(1, 10)
	ok2 := p.lit("-")
	mo, ok3 := p.num(1, 2)
	ok4 := p.lit("-")
	d, ok5 := p.num(1, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return time.Time{}, errTimeParse
	}
	if p.i == len(s) {
		return time.Date(int(y), time.Month(mo), int(d), 0, 0, 0, 0, time.UTC), nil
	}
	// The optional time section: all of it or none.
	save := p.i
	var h, mi, sec, nano int64
	ok := p.lit(" ")
	var okH, okM, okS, okC1, okC2 bool
	if ok {
		h, okH = p.num(1, 2)
		okC1 = p.lit(":")
		mi, okM = p.num(1, 2)
		okC2 = p.lit(":")
		sec, okS = p.num(1, 2)
	}
	if !(ok && okH && okC1 && okM && okC2 && okS) {
		p.i = save
		return time.Time{}, errTimeParse // unparsed text remains
	}
	if p.lit(".") {
		start := p.i
		f, okF := p.num(1, 9)
		if !okF {
			return time.Time{}, errTimeParse
		}
		for n := p.i - start; n < 9; n++ {
			f *= 10
		}
		nano = f
	}
	if p.i != len(s) {
		return time.Time{}, errTimeParse
	}
	return time.Date(int(y), time.Month(mo), int(d), int(h), int(mi), int(sec), int(nano), time.UTC), nil
}

type numScanner struct {
	s string
	i int
}

func (p *numScanner) lit(l string) bool {
	if strings.HasPrefix(p.s[p.i:], l) {
		p.i += len(l)
		return true
	}
	return false
}

// num reads min..max digits (greedy).
func (p *numScanner) num(min, max int) (int64, bool) {
	var v int64
	n := 0
	for p.i+n < len(p.s) && n < max && p.s[p.i+n] >= '0' && p.s[p.i+n] <= '9' {
		v = v*10 + int64(p.s[p.i+n]-'0')
		n++
	}
	if n < min {
		return 0, false
	}
	p.i += n
	return v, true
}

// javaField is a field a DateTimeFormatter pattern letter parses.
type javaField uint8

const (
	fieldLiteral javaField = iota
	fieldYearOfEra
	fieldYear
	fieldMonth
	fieldDay
	fieldDayOfYear
	fieldHour
	fieldMinute
	fieldSecond
	fieldNano // S…: fraction of second
)

// javaToken is one element of a compiled pattern: a literal or a number of
// min..max digits (exceedsPad: more than min digits need a sign, which
// sqlrun's partition values never carry; reduced: two-digit year based
// 2000).
type javaToken struct {
	field      javaField
	lit        string
	min, max   int
	exceedsPad bool
	reduced    bool
}

type javaFormatter []javaToken

// compileJavaPattern is DateTimeFormatter.ofPattern for the letters that
// date and time partition values use (y u M d D H m s S and literals),
// with Java's IllegalArgumentException messages for a bad pattern; the
// other valid letters (text months, week fields, zones, am/pm, optional
// sections) are refused as not supported by sqlrun rather than parsed
// otherwise.
func compileJavaPattern(pattern string) (javaFormatter, error) {
	var out javaFormatter
	addLit := func(s string) {
		if n := len(out); n > 0 && out[n-1].field == fieldLiteral {
			out[n-1].lit += s
			return
		}
		out = append(out, javaToken{field: fieldLiteral, lit: s})
	}
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'):
			n := 1
			for i+n < len(rs) && rs[i+n] == c {
				n++
			}
			i += n - 1
			tooMany := func() error {
				return sql.Errorf(sql.IllegalArgumentException, "Too many pattern letters: %c", c)
			}
			switch c {
			case 'y', 'u':
				f := fieldYearOfEra
				if c == 'u' {
					f = fieldYear
				}
				switch {
				case n == 2:
					out = append(out, javaToken{field: f, min: 2, max: 2, reduced: true})
				case n < 4:
					out = append(out, javaToken{field: f, min: n, max: 19})
				default:
					out = append(out, javaToken{field: f, min: n, max: 19, exceedsPad: true})
				}
			case 'M', 'L':
				switch n {
				case 1:
					out = append(out, javaToken{field: fieldMonth, min: 1, max: 19})
				case 2:
					out = append(out, javaToken{field: fieldMonth, min: 2, max: 2})
				default:
					return nil, unsupportedLetter(pattern, c)
				}
			case 'd', 'H', 'm', 's':
				f := map[rune]javaField{'d': fieldDay, 'H': fieldHour, 'm': fieldMinute, 's': fieldSecond}[c]
				switch n {
				case 1:
					out = append(out, javaToken{field: f, min: 1, max: 19})
				case 2:
					out = append(out, javaToken{field: f, min: 2, max: 2})
				default:
					return nil, tooMany()
				}
			case 'D':
				switch n {
				case 1:
					out = append(out, javaToken{field: fieldDayOfYear, min: 1, max: 19})
				case 2:
					out = append(out, javaToken{field: fieldDayOfYear, min: 2, max: 3})
				case 3:
					out = append(out, javaToken{field: fieldDayOfYear, min: 3, max: 3})
				default:
					return nil, tooMany()
				}
			case 'S':
				out = append(out, javaToken{field: fieldNano, min: n, max: n})
			case 'G', 'Q', 'q', 'F', 'E', 'c', 'e', 'a', 'k', 'K', 'h', 'A', 'n', 'N', 'g', 'V', 'v', 'z', 'Z', 'O', 'X', 'x', 'W', 'w', 'Y', 'p', 'B':
				return nil, unsupportedLetter(pattern, c)
			default:
				return nil, sql.Errorf(sql.IllegalArgumentException, "Unknown pattern letter: %c", c)
			}
		case c == '\'':
			j := i + 1
			var lit strings.Builder
			closed := false
			for ; j < len(rs); j++ {
				if rs[j] == '\'' {
					if j+1 < len(rs) && rs[j+1] == '\'' {
						lit.WriteRune('\'')
						j++
						continue
					}
					closed = true
					break
				}
				lit.WriteRune(rs[j])
			}
			if !closed {
				return nil, sql.Errorf(sql.IllegalArgumentException, "Pattern ends with an incomplete string literal: %s", pattern)
			}
			if j == i+1 {
				addLit("'") // '' is a quote
			} else {
				addLit(lit.String())
			}
			i = j
		case c == '{' || c == '}' || c == '#':
			return nil, sql.Errorf(sql.IllegalArgumentException, "Pattern includes reserved character: '%c'", c)
		case c == '[' || c == ']':
			return nil, sql.Errorf(sql.UnsupportedOperation, "'partition.timestamp-formatter' '%s': optional sections ('[', ']') are not supported by sqlrun yet", pattern)
		default:
			addLit(string(c))
		}
	}
	return out, nil
}

func unsupportedLetter(pattern string, c rune) error {
	return sql.Errorf(sql.UnsupportedOperation, "'partition.timestamp-formatter' '%s': pattern letter '%c' is not supported by sqlrun yet (it parses y u M d D H m s S and literals)", pattern, c)
}

// fixedWidth reports whether a token is a fixed-width number, which a
// preceding variable-width number leaves its digits to (Java's adjacent
// value parsing).
func (t javaToken) fixedWidth() bool { return t.field != fieldLiteral && t.min == t.max }

// parse is LocalDateTime.parse(s, formatter), falling back to
// LocalDate.parse at midnight as PartitionTimeExtractor does, with the
// SMART resolver: fields are range-checked, a day past the end of its
// month is the month's last day, hour-only times have zero minutes and
// seconds; a date needs a year and a month and day (or a day of year).
func (f javaFormatter) parse(s string) (time.Time, error) {
	vals := map[javaField]int64{}
	p := numScanner{s: s}
	for i, t := range f {
		if t.field == fieldLiteral {
			if !p.lit(t.lit) {
				return time.Time{}, errTimeParse
			}
			continue
		}
		max := t.max
		if !t.fixedWidth() {
			// Reserve the digits of the fixed-width numbers that follow
			// directly.
			reserve := 0
			for _, u := range f[i+1:] {
				if !u.fixedWidth() {
					break
				}
				reserve += u.min
			}
			digits := 0
			for p.i+digits < len(s) && s[p.i+digits] >= '0' && s[p.i+digits] <= '9' {
				digits++
			}
			if digits-reserve < max {
				max = digits - reserve
			}
		}
		start := p.i
		v, ok := p.num(t.min, max)
		if !ok {
			return time.Time{}, errTimeParse
		}
		if t.exceedsPad && p.i-start > t.min {
			return time.Time{}, errTimeParse // more digits than the pad need a '+'
		}
		if t.reduced {
			v += 2000
		}
		if t.field == fieldNano {
			for n := p.i - start; n < 9; n++ {
				v *= 10
			}
		}
		if old, dup := vals[t.field]; dup && old != v {
			return time.Time{}, errTimeParse // conflicting values
		}
		vals[t.field] = v
	}
	if p.i != len(s) {
		return time.Time{}, errTimeParse
	}
	year, hasYear := vals[fieldYear]
	if yoe, ok := vals[fieldYearOfEra]; ok {
		if yoe < 1 {
			return time.Time{}, errTimeParse
		}
		if hasYear && year != yoe {
			return time.Time{}, errTimeParse
		}
		year, hasYear = yoe, true
	}
	mo, hasMonth := vals[fieldMonth]
	d, hasDay := vals[fieldDay]
	doy, hasDoy := vals[fieldDayOfYear]
	var date time.Time
	switch {
	case hasYear && hasMonth && hasDay:
		if mo < 1 || mo > 12 || d < 1 || d > 31 {
			return time.Time{}, errTimeParse
		}
		last := time.Date(int(year), time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day()
		if int(d) > last {
			d = int64(last)
		}
		date = time.Date(int(year), time.Month(mo), int(d), 0, 0, 0, 0, time.UTC)
		if hasDoy && int64(date.YearDay()) != doy {
			return time.Time{}, errTimeParse
		}
	case hasYear && hasDoy && !hasMonth && !hasDay:
		days := 365
		if time.Date(int(year), 12, 31, 0, 0, 0, 0, time.UTC).YearDay() == 366 {
			days = 366
		}
		if doy < 1 || doy > int64(days) {
			return time.Time{}, errTimeParse
		}
		date = time.Date(int(year), 1, int(doy), 0, 0, 0, 0, time.UTC)
	default:
		return time.Time{}, errTimeParse // no date: LocalDate.parse fails too
	}
	h, hasHour := vals[fieldHour]
	if !hasHour {
		return date, nil // LocalDate.parse at midnight
	}
	mi, hasMin := vals[fieldMinute]
	sec, hasSec := vals[fieldSecond]
	nano := vals[fieldNano]
	if (hasSec && !hasMin) || h > 24 || mi > 59 || sec > 59 {
		return time.Time{}, errTimeParse
	}
	if h == 24 {
		// SMART: 24:00 is the end of the day, anything else after it fails.
		if mi != 0 || sec != 0 || nano != 0 {
			return time.Time{}, errTimeParse
		}
		return date.AddDate(0, 0, 1), nil
	}
	return date.Add(time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute + time.Duration(sec)*time.Second + time.Duration(nano)), nil
}
