package config

import (
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// This file is the one place a SET value becomes a typed value: SET checks
// a known key's value with Check, and every reader — the session, the
// planner, the compiler, the runtime — takes a typed value from the
// session's configuration map with Bool, Int, Duration or Enum, which fall
// back to the key's declared default. A bad value fails with Flink's
// ConfigOption message naming the key.

var byKey = func() map[string]connectors.Option {
	m := make(map[string]connectors.Option, len(Options))
	for _, o := range Options {
		m[o.Key] = o
	}
	return m
}()

// Lookup returns the declaration of a known key.
func Lookup(key string) (connectors.Option, bool) {
	o, ok := byKey[key]
	return o, ok
}

// badValue is Flink's ConfigurationUtils message for a value that does
// not parse as its option's type.
func badValue(key, v string) error {
	return sql.Errorf(sql.IllegalArgumentException, "Could not parse value '%s' for key '%s'.", v, key)
}

// Check parses value as the type of key (a known key; others pass): what
// SET accepts.
func Check(key, value string) error {
	o, ok := byKey[key]
	if !ok {
		return nil
	}
	if _, err := parse(o, value); err != nil {
		return err
	}
	if key == KeyLocalTimeZone {
		_, err := TimeZone(map[string]string{key: value})
		return err
	}
	return nil
}

// parse turns a value of o into its Go value: int, bool, time.Duration,
// an enum's declared spelling, or the trimmed string.
func parse(o connectors.Option, value string) (any, error) {
	v := strings.TrimSpace(value)
	switch o.Type {
	case connectors.Int, connectors.Long:
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, badValue(o.Key, value)
		}
		return n, nil
	case connectors.Bool:
		switch {
		case strings.EqualFold(v, "true"):
			return true, nil
		case strings.EqualFold(v, "false"):
			return false, nil
		}
		return nil, badValue(o.Key, value)
	case connectors.Duration:
		d, err := connectors.ParseDuration(v)
		if err != nil {
			return nil, badValue(o.Key, value)
		}
		return d, nil
	case connectors.Enum:
		for _, e := range o.Enum {
			if strings.EqualFold(e, v) {
				return e, nil
			}
		}
		return nil, badValue(o.Key, value)
	}
	return v, nil
}

// value is key's value in m (or under one of its fallback keys), else its
// default, parsed; set is false when neither m nor the declaration gives
// one. An undeclared key is a programming error.
func value(m map[string]string, key string) (v any, set bool, err error) {
	o, ok := byKey[key]
	if !ok {
		panic("config: undeclared key " + key)
	}
	raw, ok := m[key]
	for _, fb := range o.FallbackKeys {
		if ok {
			break
		}
		raw, ok = m[fb]
	}
	if !ok {
		if o.Default == "" {
			return nil, false, nil
		}
		raw = o.Default
	}
	v, err = parse(o, raw)
	return v, err == nil, err
}

// Bool is key's value in m as a bool (false when unset without default).
func Bool(m map[string]string, key string) (bool, error) {
	v, ok, err := value(m, key)
	if !ok {
		return false, err
	}
	return v.(bool), nil
}

// Int is key's value in m as an int (0 when unset without default).
func Int(m map[string]string, key string) (int, error) {
	v, ok, err := value(m, key)
	if !ok {
		return 0, err
	}
	return v.(int), nil
}

// String is key's value in m, trimmed ("" when unset without default).
func String(m map[string]string, key string) (string, error) {
	v, ok, err := value(m, key)
	if !ok {
		return "", err
	}
	return v.(string), nil
}

// Duration is key's value in m (0 when unset without default).
func Duration(m map[string]string, key string) (time.Duration, error) {
	v, ok, err := value(m, key)
	if !ok {
		return 0, err
	}
	return v.(time.Duration), nil
}

// Enum is key's value in m in its declared spelling ("" when unset
// without default), whatever case SET used.
func Enum(m map[string]string, key string) (string, error) {
	v, ok, err := value(m, key)
	if !ok {
		return "", err
	}
	return v.(string), nil
}
