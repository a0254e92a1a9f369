package dialect

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlrun/sqlrun/sql"
)

// Connection is a JDBC URL turned into what go-sql-driver needs.
type Connection struct {
	// Config is the driver configuration, password included. Never print
	// it: use String.
	Config *mysql.Config
	// Database is the database named in the URL path ("" when none).
	Database string
}

// RedactURL returns the URL as users wrote it with any password replaced
// by ******: the form errors and logs may show. It works on the raw text,
// so it also hides passwords in URLs that do not parse or lack "jdbc:".
func RedactURL(jdbcURL string) string {
	s := passwordParam.ReplaceAllString(jdbcURL, "${1}******")
	return userInfo.ReplaceAllString(s, "${1}${2}******@")
}

var (
	// password=..., up to the next parameter separator.
	passwordParam = regexp.MustCompile(`(?i)(password\s*=)[^&;]*`)
	// The credentials before the host, user:secret@ after // (or
	// Oracle's thin:user/secret@), hidden whole. ParseURL takes everything
	// up to the first '/' as the authority, so an '@' after a '?' in it is
	// hidden too: better a masked parameter than a shown password.
	// The userinfo ends at the authority's last '@' (RFC 3986), so every
	// '@' before the first '/' is taken in.
	userInfo = regexp.MustCompile(`(//)[^/]*@|(thin:)[^@/?]+(?:/[^@/?]*)?@`)
)

// ignoredParams are Connector/J parameters that only tune Connector/J
// itself; the Go driver has no equivalent and needs none (statements are
// already batched as rewriteBatchedStatements would, and strings always
// travel as utf8mb4).
var ignoredParams = map[string]bool{
	"rewritebatchedstatements": true, "useunicode": true, "useserverprepstmts": true,
	"cacheprepstmts": true, "prepstmtcachesize": true, "prepstmtcachesqllimit": true,
	"allowpublickeyretrieval": true, "autoreconnect": true, "zerodatetimebehavior": true,
	"usejdbccomplianttimezoneshift": true, "uselegacydatetimecode": true, "servertimezone": true,
	"connectiontimezone": true, "forceconnectiontimetosession": true, "preserveinstants": true,
	"tinyint1isbit": true, "usecursorfetch": true, "allowmultiqueries": true,
	"useaffectedrows": true, "cachecallablestmts": true, "cacheserverconfiguration": true,
	"elidesetautocommits": true, "maintaintimestats": true, "uselocalsessionstate": true,
	"usecompression": true, "failoverreadonly": true, "verifyservercertificate": true,
}

// ParseURL turns jdbc:mysql://host[:port][/database][?params] into a
// go-sql-driver configuration. Parameters that matter are translated
// (user, password, useSSL / sslMode, characterEncoding, connectTimeout,
// socketTimeout, sessionVariables); Connector/J-only tuning knobs are
// accepted and ignored; anything else is rejected by name, so a typo does
// not silently change behaviour. username/password options override the
// URL's. Errors never contain the password.
func ParseURL(jdbcURL, username, password string, hasCredentials bool) (*Connection, error) {
	shown := RedactURL(jdbcURL)
	rest, ok := strings.CutPrefix(jdbcURL, "jdbc:mysql://")
	if !ok {
		return nil, sql.Errorf(sql.ValidationException,
			"Could not find any jdbc dialect factory that can handle url '%s' that implements 'org.apache.flink.connector.jdbc.dialect.JdbcDialectFactory' in the classpath.\n\nAvailable factories are:\n\norg.apache.flink.connector.jdbc.databases.mysql.dialect.MySqlDialectFactory",
			shown)
	}
	u, err := url.Parse("mysql://" + rest)
	if err != nil {
		return nil, sql.Errorf(sql.ValidationException, "Invalid JDBC url '%s'.", shown)
	}
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = "localhost"
	}
	if port == "" {
		port = "3306"
	}
	if strings.Contains(host, ",") {
		return nil, sql.Errorf(sql.ValidationException, "Invalid JDBC url '%s': multiple hosts are not supported.", shown)
	}
	cfg.Addr = net.JoinHostPort(host, port)
	db := strings.TrimPrefix(u.Path, "/")
	if strings.Contains(db, "/") {
		return nil, sql.Errorf(sql.ValidationException, "Invalid JDBC url '%s': bad database name.", shown)
	}
	cfg.DBName = db
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	// The writer sends literals itself; the source uses plain queries. Both
	// want the text protocol without server-side prepares.
	cfg.InterpolateParams = true
	cfg.ParseTime = false
	cfg.MaxAllowedPacket = 0 // ask the server, as Connector/J does
	cfg.Timeout = 60 * time.Second
	params := map[string]string{}
	keys := make([]string, 0)
	// JDBC URLs are not form-encoded: '+' is a plus (time_zone='+00:00'),
	// so the query is split by hand and only %XX is decoded.
	for _, kv := range strings.Split(u.RawQuery, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if dk, err := url.PathUnescape(k); err == nil {
			k = dk
		}
		if dv, err := url.PathUnescape(v); err == nil {
			v = dv
		}
		if _, dup := params[k]; !dup {
			keys = append(keys, k)
		}
		params[k] = v
	}
	sort.Strings(keys)
	bad := func(k, why string) error {
		v := params[k]
		if strings.Contains(strings.ToLower(k), "password") {
			v = "******"
		}
		if strings.Contains(k+v, "@") {
			// user:secret@host written after the '?': not a parameter
			// to echo.
			k, v = "******", "******"
		}
		// The parameter is shown as the URL is: redacted the same way, so
		// a "password=" inside another parameter's value stays hidden.
		return sql.Errorf(sql.ValidationException, "Unsupported JDBC url parameter '%s' in '%s': %s", RedactURL(k+"="+v), shown, why)
	}
	for _, k := range keys {
		v := params[k]
		lk := strings.ToLower(k)
		switch {
		case lk == "user":
			cfg.User = v
		case lk == "password":
			cfg.Passwd = v
		case lk == "usessl":
			switch strings.ToLower(v) {
			case "true":
				cfg.TLSConfig = "preferred"
			case "false":
				cfg.TLSConfig = "false"
			default:
				return nil, bad(k, "expected true or false")
			}
		case lk == "requiressl":
			if strings.EqualFold(v, "true") {
				cfg.TLSConfig = "skip-verify"
			}
		case lk == "sslmode":
			switch strings.ToUpper(v) {
			case "DISABLED":
				cfg.TLSConfig = "false"
			case "PREFERRED":
				cfg.TLSConfig = "preferred"
			case "REQUIRED":
				cfg.TLSConfig = "skip-verify"
			case "VERIFY_CA", "VERIFY_IDENTITY":
				cfg.TLSConfig = "true"
			default:
				return nil, bad(k, "expected DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY")
			}
		case lk == "characterencoding":
			switch strings.ToLower(strings.ReplaceAll(v, "-", "")) {
			case "utf8", "utf8mb4":
			default:
				return nil, bad(k, "only UTF-8 is supported (sqlrun always talks utf8mb4)")
			}
		case lk == "connecttimeout":
			ms, err := strconv.Atoi(v)
			if err != nil || ms < 0 {
				return nil, bad(k, "expected milliseconds")
			}
			if ms > 0 {
				cfg.Timeout = time.Duration(ms) * time.Millisecond
			}
		case lk == "sockettimeout":
			ms, err := strconv.Atoi(v)
			if err != nil || ms < 0 {
				return nil, bad(k, "expected milliseconds")
			}
			cfg.ReadTimeout = time.Duration(ms) * time.Millisecond
			cfg.WriteTimeout = cfg.ReadTimeout
		case lk == "sessionvariables":
			if cfg.Params == nil {
				cfg.Params = map[string]string{}
			}
			for _, kv := range splitUnquoted(v) {
				name, val, ok := strings.Cut(kv, "=")
				if !ok || strings.TrimSpace(name) == "" {
					return nil, bad(k, "expected name=value[,name=value]")
				}
				cfg.Params[strings.TrimSpace(name)] = strings.TrimSpace(val)
			}
		case ignoredParams[lk] || ignoredParams[k]:
		default:
			return nil, bad(k, "unknown to sqlrun's MySQL driver (supported: user, password, useSSL, sslMode, requireSSL, characterEncoding, connectTimeout, socketTimeout, sessionVariables, and Connector/J tuning options, which are ignored)")
		}
	}
	if hasCredentials {
		cfg.User, cfg.Passwd = username, password
	}
	return &Connection{Config: cfg, Database: db}, nil
}

// String describes the connection without secrets: user@host:port/db.
func (c *Connection) String() string {
	return fmt.Sprintf("%s@%s/%s", c.Config.User, c.Config.Addr, c.Database)
}

// splitUnquoted splits Connector/J's sessionVariables list on commas that
// are not inside single or double quotes, so sql_mode='A,B' stays whole.
func splitUnquoted(s string) []string {
	var out []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == ',':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
