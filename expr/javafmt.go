package expr

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// javaPattern is a java.time.format.DateTimeFormatter pattern
// (DateTimeFormatter.ofPattern), which Flink's DATE_FORMAT and
// TO_TIMESTAMP(s, format) use (DateTimeUtils.formatTimestamp and
// parseTimestampData): its fields and literal text, read by the rules of
// DateTimeFormatterBuilder.appendPattern for the letters sqlrun supports.
type javaPattern []javaField

// javaField is one letter run (letter != 0, count letters) or literal
// text.
type javaField struct {
	letter byte
	count  int
	text   string
}

var (
	javaMonths   = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	javaWeekdays = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
)

// compileJavaPattern reads a DateTimeFormatter pattern. Letters sqlrun
// does not support (zones, week-based fields, optional sections) fail by
// name rather than format something else.
func compileJavaPattern(p string) (javaPattern, error) {
	return tokenizePattern(p, "Pattern ends with an incomplete string literal: %s", checkJavaLetter, "[]{}#")
}

// tokenizePattern splits a Java date-time pattern (DateTimeFormatter's or
// SimpleDateFormat's, which share this syntax) into letter runs, each
// checked by check, and literal text: quoted (two quotes are one) or any other
// character, except those in refused. unterminated is the message for a
// quote left open.
func tokenizePattern(p, unterminated string, check func(c byte, n int) error, refused string) ([]javaField, error) {
	var out []javaField
	lit := func(s string) {
		if n := len(out); n > 0 && out[n-1].letter == 0 {
			out[n-1].text += s
			return
		}
		out = append(out, javaField{text: s})
	}
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			j := i + 1
			var b strings.Builder
			for {
				if j >= len(p) {
					return nil, fmt.Errorf(unterminated, p)
				}
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(p[j])
				j++
			}
			if j == i+1 {
				lit("'")
			} else {
				lit(b.String())
			}
			i = j + 1
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(p) && p[j] == c {
				j++
			}
			if err := check(c, j-i); err != nil {
				return nil, err
			}
			out = append(out, javaField{letter: c, count: j - i})
			i = j
		case strings.IndexByte(refused, c) >= 0:
			return nil, fmt.Errorf("sqlrun does not support '%c' in a date-time pattern yet: %s", c, p)
		default:
			lit(string(c))
			i++
		}
	}
	return out, nil
}

func checkJavaLetter(c byte, n int) error {
	max := 0
	switch c {
	case 'y', 'u', 'S', 'n':
		max = 19
	case 'M', 'L':
		max = 4
	case 'd', 'H', 'h', 'k', 'K', 'm', 's':
		max = 2
	case 'D':
		max = 3
	case 'a':
		max = 1
	case 'E':
		max = 4
	default:
		return fmt.Errorf("sqlrun does not support the pattern letter '%c' in a date-time pattern yet", c)
	}
	if n > max {
		return fmt.Errorf("Too many pattern letters: %c", c)
	}
	return nil
}

// format writes t as DateTimeFormatter.format does (ISO chronology,
// Locale.US text).
func (p javaPattern) format(t time.Time) string {
	var b strings.Builder
	num := func(v, width int) {
		s := strconv.Itoa(v)
		if v >= 0 {
			for i := len(s); i < width; i++ {
				b.WriteByte('0')
			}
		}
		b.WriteString(s)
	}
	for _, f := range p {
		switch f.letter {
		case 0:
			b.WriteString(f.text)
		case 'y', 'u':
			y := t.Year()
			switch {
			case f.count == 2:
				num(((y%100)+100)%100, 2)
			case f.count >= 4 && y > 9999:
				b.WriteByte('+')
				num(y, f.count)
			default:
				num(y, f.count)
			}
		case 'M', 'L':
			switch f.count {
			case 3:
				b.WriteString(javaMonths[t.Month()-1][:3])
			case 4:
				b.WriteString(javaMonths[t.Month()-1])
			default:
				num(int(t.Month()), f.count)
			}
		case 'd':
			num(t.Day(), f.count)
		case 'D':
			num(t.YearDay(), f.count)
		case 'H', 'k', 'K', 'h', 'm', 's':
			num(clockField(t, f.letter), f.count)
		case 'S':
			frac := fmt.Sprintf("%09d", t.Nanosecond())
			for len(frac) < f.count {
				frac += "0"
			}
			b.WriteString(frac[:f.count])
		case 'n':
			num(t.Nanosecond(), f.count)
		case 'a':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'E':
			w := javaWeekdays[t.Weekday()]
			if f.count < 4 {
				w = w[:3]
			}
			b.WriteString(w)
		}
	}
	return b.String()
}

// numeric reports a field parsed as digits.
func (f javaField) numeric() bool {
	switch f.letter {
	case 0, 'a', 'E':
		return false
	case 'M', 'L':
		return f.count <= 2
	}
	return true
}

// widths are the digits a numeric field reads: at least min, at most max
// (DateTimeFormatterBuilder.appendPattern's appendValue arguments).
func (f javaField) widths() (min, max int) {
	switch f.letter {
	case 'y', 'u':
		switch {
		case f.count == 2:
			return 2, 2
		case f.count == 1:
			return 1, 19
		}
		return f.count, 19
	case 'S':
		return f.count, f.count
	case 'n':
		return f.count, 19
	case 'D':
		if f.count == 1 {
			return 1, 3
		}
		return f.count, 3
	}
	if f.count == 1 {
		return 1, 19
	}
	return f.count, f.count
}

// parse reads s as DateTimeFormatter.parse does in the resolver's SMART
// mode, filling the fields the pattern lacks as Flink's
// DateTimeUtils.fromTemporalAccessor does (1970-01-01 00:00:00). A
// numeric field of variable width followed directly by fixed-width ones
// leaves them their digits (adjacent value parsing: yyyyMMdd).
func (p javaPattern) parse(s string) (time.Time, bool) {
	year, month, day, hour, minute, second, nano := 1970, 1, 1, 0, 0, 0, 0
	var ampm, hour12 = -1, -1
	yearSet, dateSet := false, false
	i := 0
	for k, f := range p {
		switch {
		case f.letter == 0:
			if !strings.HasPrefix(s[i:], f.text) {
				return time.Time{}, false
			}
			i += len(f.text)
			continue
		case f.letter == 'a':
			switch {
			case strings.HasPrefix(s[i:], "AM"):
				ampm = 0
			case strings.HasPrefix(s[i:], "PM"):
				ampm = 1
			default:
				return time.Time{}, false
			}
			i += 2
			continue
		case f.letter == 'E':
			found := false
			for _, w := range javaWeekdays {
				if f.count < 4 {
					w = w[:3]
				}
				if strings.HasPrefix(s[i:], w) {
					i += len(w)
					found = true
					break
				}
			}
			if !found {
				return time.Time{}, false
			}
			continue
		case !f.numeric():
			found := false
			for m, name := range javaMonths {
				if f.count == 3 {
					name = name[:3]
				}
				if strings.HasPrefix(s[i:], name) {
					month, i, found = m+1, i+len(name), true
					break
				}
			}
			if !found {
				return time.Time{}, false
			}
			continue
		}
		min, max := f.widths()
		if min != max {
			// Adjacent value parsing: leave the following fixed-width
			// numeric fields their digits.
			reserve := 0
			for _, g := range p[k+1:] {
				if !g.numeric() {
					break
				}
				gmin, gmax := g.widths()
				if gmin != gmax {
					break
				}
				reserve += gmin
			}
			if reserve > 0 {
				avail := 0
				for j := i; j < len(s) && s[j] >= '0' && s[j] <= '9'; j++ {
					avail++
				}
				if avail-reserve < max {
					max = avail - reserve
				}
			}
		}
		plus := false
		if (f.letter == 'y' || f.letter == 'u') && f.count >= 4 {
			// SignStyle.EXCEEDS_PAD: more digits than the pattern's
			// letters after a '+', and a '+' only before more (strict
			// parsing).
			if i < len(s) && s[i] == '+' {
				i, plus = i+1, true
			} else if max > f.count {
				max = f.count
			}
		}
		j := i
		for j < len(s) && j-i < max && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j-i < min || plus && j-i <= f.count {
			return time.Time{}, false
		}
		digits := s[i:j]
		i = j
		v, err := strconv.Atoi(digits)
		if err != nil {
			return time.Time{}, false
		}
		switch f.letter {
		case 'y', 'u':
			if f.count == 2 {
				v += 2000
			}
			year, yearSet, dateSet = v, true, true
		case 'M', 'L':
			month, dateSet = v, true
		case 'd':
			day, dateSet = v, true
		case 'D':
			if !yearSet {
				return time.Time{}, false
			}
			t := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, v-1)
			month, day = int(t.Month()), t.Day()
		case 'H':
			hour = v
		case 'k':
			if v == 24 {
				v = 0
			}
			hour = v
		case 'K', 'h':
			hour12 = v
			if f.letter == 'h' && v == 12 {
				hour12 = 0
			}
		case 'm':
			minute = v
		case 's':
			second = v
		case 'S':
			for n := len(digits); n < 9; n++ {
				v *= 10
			}
			nano = v
		case 'n':
			nano = v
		}
	}
	if i != len(s) {
		return time.Time{}, false
	}
	if hour12 >= 0 {
		if hour12 > 11 {
			return time.Time{}, false
		}
		hour = hour12
		if ampm == 1 {
			hour += 12
		}
	}
	// SMART resolving takes 24:00 as the end of the day: midnight of the
	// next one (of none where no date was read).
	endOfDay := hour == 24 && minute == 0 && second == 0 && nano == 0
	if endOfDay {
		hour = 0
	}
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59 || nano > 999999999 {
		return time.Time{}, false
	}
	if last := time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day(); day > last {
		day = last
	}
	t := time.Date(year, time.Month(month), day, hour, minute, second, nano, time.UTC)
	if endOfDay && dateSet {
		t = t.AddDate(0, 0, 1)
	}
	return t, true
}

// patterns caches compiled patterns: a format is nearly always a literal,
// compiled once (Flink's DATETIME_FORMATTER_CACHE).
var patterns patternCache

type patternCache struct {
	m sync.Map // string -> javaPattern or error
}

func (c *patternCache) get(p string) (javaPattern, error) {
	if v, ok := c.m.Load(p); ok {
		if err, isErr := v.(error); isErr {
			return nil, err
		}
		return v.(javaPattern), nil
	}
	pat, err := compileJavaPattern(p)
	if err != nil {
		c.m.Store(p, err)
		return nil, err
	}
	c.m.Store(p, pat)
	return pat, nil
}

// sqlTimestampValueOf is the fallback of DateTimeUtils.parseTimestampData
// (s, format): with a blank, java.sql.Timestamp.valueOf
// ("yyyy-[m]m-[d]d hh:mm:ss[.f...]"); without, java.sql.Date.valueOf
// ("yyyy-[m]m-[d]d") at midnight.
func sqlTimestampValueOf(s string) (sql.TimestampData, bool) {
	date, clock, hasTime := strings.Cut(s, " ")
	parts := strings.Split(date, "-")
	if len(parts) != 3 || len(parts[0]) != 4 || len(parts[1]) < 1 || len(parts[1]) > 2 || len(parts[2]) < 1 || len(parts[2]) > 2 {
		return sql.TimestampData{}, false
	}
	var ymd [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return sql.TimestampData{}, false
		}
		ymd[i] = n
	}
	if ymd[1] < 1 || ymd[1] > 12 || ymd[2] < 1 || ymd[2] > 31 {
		return sql.TimestampData{}, false
	}
	var h, m, sec, nano int
	if hasTime {
		hms, frac, hasFrac := strings.Cut(clock, ".")
		f := strings.Split(hms, ":")
		if len(f) != 3 {
			return sql.TimestampData{}, false
		}
		var v [3]int
		for i, p := range f {
			n, err := strconv.Atoi(p)
			if err != nil || n < 0 || len(p) > 2 || len(p) == 0 {
				return sql.TimestampData{}, false
			}
			v[i] = n
		}
		h, m, sec = v[0], v[1], v[2]
		if hasFrac {
			if len(frac) == 0 || len(frac) > 9 {
				return sql.TimestampData{}, false
			}
			n, err := strconv.Atoi(frac)
			if err != nil || n < 0 {
				return sql.TimestampData{}, false
			}
			for k := len(frac); k < 9; k++ {
				n *= 10
			}
			nano = n
		}
	}
	// Timestamp.valueOf and Date.valueOf are lenient (GregorianCalendar):
	// out-of-range fields roll over, as time.Date normalises them.
	return sql.TimestampFromTime(time.Date(ymd[0], time.Month(ymd[1]), ymd[2], h, m, sec, nano, time.UTC)), true
}
