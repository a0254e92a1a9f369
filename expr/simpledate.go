package expr

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// simplePattern is a java.text.SimpleDateFormat pattern, which Flink's
// FROM_UNIXTIME(n, format), UNIX_TIMESTAMP(s, format) and TO_DATE(s,
// format) use (DateTimeUtils.formatTimestampMillis,
// parseTimestampMillis, parseDate): the same letter runs and quoted text
// as a DateTimeFormatter pattern, with SimpleDateFormat's meanings ('S'
// is milliseconds, any run of a numeric letter pads to its length) and
// its lenient parsing.
type simplePattern []javaField

func compileSimplePattern(p string) (simplePattern, error) {
	return tokenizePattern(p, "Unterminated quote in pattern %s", func(c byte, _ int) error {
		if strings.IndexByte("yMdDEuaHkKhmsS", c) < 0 {
			return fmt.Errorf("sqlrun does not support the pattern letter '%c' in a SimpleDateFormat pattern yet", c)
		}
		return nil
	}, "")
}

// format writes t as SimpleDateFormat.format does (Locale.US, UTC).
func (p simplePattern) format(t time.Time) string {
	var b strings.Builder
	num := func(v, width int) {
		s := strconv.Itoa(v)
		for i := len(s); i < width; i++ {
			b.WriteByte('0')
		}
		b.WriteString(s)
	}
	for _, f := range p {
		switch f.letter {
		case 0:
			b.WriteString(f.text)
		case 'y':
			if f.count == 2 {
				num(t.Year()%100, 2)
			} else {
				num(t.Year(), f.count)
			}
		case 'M':
			switch {
			case f.count >= 4:
				b.WriteString(javaMonths[t.Month()-1])
			case f.count == 3:
				b.WriteString(javaMonths[t.Month()-1][:3])
			default:
				num(int(t.Month()), f.count)
			}
		case 'd':
			num(t.Day(), f.count)
		case 'D':
			num(t.YearDay(), f.count)
		case 'E':
			w := javaWeekdays[t.Weekday()]
			if f.count < 4 {
				w = w[:3]
			}
			b.WriteString(w)
		case 'u':
			d := int(t.Weekday())
			if d == 0 {
				d = 7
			}
			num(d, f.count)
		case 'a':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'H', 'k', 'K', 'h', 'm', 's':
			num(clockField(t, f.letter), f.count)
		case 'S':
			num(t.Nanosecond()/1e6, f.count)
		}
	}
	return b.String()
}

// parse reads a prefix of s as SimpleDateFormat.parse(String) does,
// leniently: a numeric field takes all the digits there are, or its
// letters' count of them when a numeric field follows directly; values
// out of range roll over into the next field (month 13 is January of the
// next year); a two-digit 'yy' year is taken within 80 years before and
// 20 after now; blanks before a field are skipped and text after the
// pattern is ignored. Fields the pattern lacks are those of 1970-01-01
// 00:00:00. Dates are proleptic Gregorian, where SimpleDateFormat's
// GregorianCalendar is Julian before 1582-10-15.
func (p simplePattern) parse(s string, now time.Time) (time.Time, bool) {
	year, month, day, hour, minute, second, milli := 1970, 1, 1, 0, 0, 0, 0
	hour12, ampm := -1, -1
	i := 0
	for k, f := range p {
		if f.letter == 0 {
			if !strings.HasPrefix(s[i:], f.text) {
				return time.Time{}, false
			}
			i += len(f.text)
			continue
		}
		// subParse skips blanks and tabs before a field.
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		text := func(names []string, short bool) (int, bool) {
			for n, name := range names {
				cands := []string{name}
				if len(name) > 3 {
					cands = append(cands, name[:3])
				}
				for _, cand := range cands {
					if short && len(cand) != 3 {
						continue
					}
					if len(s)-i >= len(cand) && strings.EqualFold(s[i:i+len(cand)], cand) {
						i += len(cand)
						return n, true
					}
				}
			}
			return 0, false
		}
		switch {
		case f.letter == 'a':
			n, ok := text([]string{"AM", "PM"}, false)
			if !ok {
				return time.Time{}, false
			}
			ampm = n
			continue
		case f.letter == 'E':
			if _, ok := text(javaWeekdays, false); !ok {
				return time.Time{}, false
			}
			continue
		case f.letter == 'M' && f.count >= 3:
			n, ok := text(javaMonths, false)
			if !ok {
				return time.Time{}, false
			}
			month = n + 1
			continue
		}
		// A numeric field: its count of digits when a numeric field
		// follows (SimpleDateFormat's obeyCount), else all of them.
		max := 10
		if k+1 < len(p) {
			if g := p[k+1]; g.letter != 0 && g.letter != 'a' && g.letter != 'E' && !(g.letter == 'M' && g.count >= 3) {
				max = f.count
			}
		}
		neg := false
		if i < len(s) && s[i] == '-' && f.letter != 'y' {
			neg, i = true, i+1
		}
		j := i
		for j < len(s) && j-i < max && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return time.Time{}, false
		}
		v, _ := strconv.Atoi(s[i:j])
		if neg {
			v = -v
		}
		digits := j - i
		i = j
		switch f.letter {
		case 'y':
			if f.count <= 2 && digits == 2 {
				start := now.Year() - 80
				v += start / 100 * 100
				if v < start || v == start && !now.AddDate(-80, 0, 0).Before(time.Date(v, 1, 1, 0, 0, 0, 0, time.UTC)) {
					v += 100
				}
			}
			year = v
		case 'M':
			month = v
		case 'd':
			day = v
		case 'D':
			month, day = 1, v
		case 'u':
		case 'H':
			hour = v
		case 'k':
			if v == 24 {
				v = 0
			}
			hour = v
		case 'K', 'h':
			if f.letter == 'h' && v == 12 {
				v = 0
			}
			hour12 = v
		case 'm':
			minute = v
		case 's':
			second = v
		case 'S':
			milli = v
		}
	}
	if hour12 >= 0 {
		hour = hour12
		if ampm == 1 {
			hour += 12
		}
	} else if ampm == 1 && hour < 12 {
		// 'a' without 'h'/'K' moves HOUR_OF_DAY only through AM_PM when
		// the hour is set by HOUR; with 'H' the AM_PM field is ignored.
		_ = hour
	}
	return time.Date(year, time.Month(month), day, hour, minute, second, milli*1e6, time.UTC), true
}

// simplePatterns caches compiled SimpleDateFormat patterns (Flink's
// FORMATTER_CACHE).
var simplePatterns sync.Map // string -> simplePattern or error

func getSimplePattern(p string) (simplePattern, error) {
	if v, ok := simplePatterns.Load(p); ok {
		if err, isErr := v.(error); isErr {
			return nil, err
		}
		return v.(simplePattern), nil
	}
	pat, err := compileSimplePattern(p)
	if err != nil {
		simplePatterns.Store(p, err)
		return nil, err
	}
	simplePatterns.Store(p, pat)
	return pat, nil
}

// clockField is the value of a clock pattern letter, the same in
// DateTimeFormatter and SimpleDateFormat: H hour 0-23, k hour 1-24, K hour
// 0-11, h hour 1-12, m minute, s second.
func clockField(t time.Time, letter byte) int {
	switch letter {
	case 'H':
		return t.Hour()
	case 'k':
		if t.Hour() == 0 {
			return 24
		}
		return t.Hour()
	case 'K':
		return t.Hour() % 12
	case 'h':
		if t.Hour()%12 == 0 {
			return 12
		}
		return t.Hour() % 12
	case 'm':
		return t.Minute()
	default: // 's'
		return t.Second()
	}
}
