package expr

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sqlrun/sqlrun/sql"
)

// More string and encoding functions of Flink 1.20's FlinkSqlOperatorTable
// (INSTR, IS_DECIMAL, IS_DIGIT, IS_ALPHA, STR_TO_MAP, PARSE_URL, ENCODE,
// DECODE, BIN, HEX) and of its BuiltInFunctionDefinitions (URL_ENCODE,
// URL_DECODE), evaluated as StringCallGen and SqlFunctionUtils compute
// them. Characters are code points, as everywhere in sqlrun
// (docs/differences.md); Java's UTF-16 units matter only outside the
// Basic Multilingual Plane.
func stringFuncs2() []*Func {
	return []*Func{
		// INSTR(s, sub [, start [, nth]]): SqlFunctionUtils.instr, INTEGER.
		{Name: "INSTR", Infer: inferStrFunc("INT", []string{"S", "S", "I?", "I?"}), Eval: evalInstr},
		// IS_DECIMAL / IS_DIGIT / IS_ALPHA take a character string or a
		// number and are BOOLEAN NOT NULL (ReturnTypes.BOOLEAN).
		{Name: "IS_DECIMAL", Infer: inferIsKind, Eval: evalIsKind},
		{Name: "IS_DIGIT", Infer: inferIsKind, Eval: evalIsKind},
		{Name: "IS_ALPHA", Infer: inferIsKind, Eval: evalIsKind},
		// STR_TO_MAP(s [, pairDelimiter, keyValueDelimiter]):
		// FlinkReturnTypes.STR_MAP_NULLABLE, MAP<STRING, STRING>.
		{Name: "STR_TO_MAP", Infer: inferStrToMap, Eval: evalStrToMap},
		// PARSE_URL(url, part [, key]): VARCHAR_FORCE_NULLABLE.
		{Name: "PARSE_URL", Infer: inferStrFunc("STRING!", []string{"S", "S", "S?"}), Eval: evalParseURL},
		// URL_ENCODE / URL_DECODE are new-stack functions (UrlEncodeFunction,
		// UrlDecodeFunction): STRING, NULL where Java fails.
		{Name: "URL_ENCODE", Infer: inferURLCodec, Eval: evalURLEncode, AsWritten: true},
		{Name: "URL_DECODE", Infer: inferURLCodec, Eval: evalURLDecode, AsWritten: true},
		// ENCODE(s, charset) is binary (FORCE_NULLABLE), DECODE(b, charset)
		// VARCHAR_FORCE_NULLABLE: String.getBytes and new String.
		{Name: "ENCODE", Infer: inferEncode, Eval: evalEncode},
		{Name: "DECODE", Infer: inferDecode, Eval: evalDecode},
		// BIN(integer) and HEX(integer or string): VARCHAR, nullable as
		// the operand.
		{Name: "BIN", Infer: inferBinHex, Eval: evalBin},
		{Name: "HEX", Infer: inferBinHex, Eval: evalHex},
	}
}

// evalInstr is SqlFunctionUtils.instr: the position of the nth
// occurrence of sub searching forward from start, or backward from the
// -start-th character from the end for a negative start; 0 when there
// is none or start is 0. A non-positive nth fails the query, as Java's
// IllegalArgumentException does.
func evalInstr(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		s, sub := []rune(vs[0].(string)), []rune(vs[1].(string))
		start, nth := int64(1), int64(1)
		if len(vs) > 2 {
			start, _ = ToInt(vs[2])
		}
		if len(vs) > 3 {
			nth, _ = ToInt(vs[3])
		}
		if nth <= 0 {
			return nil, sql.Errorf(sql.RuntimeException, "java.lang.IllegalArgumentException: nthAppearance must be positive!")
		}
		return int32(instr(s, sub, start, nth)), nil
	}), nil
}

func instr(s, sub []rune, start, nth int64) int64 {
	switch {
	case start == 0:
		return 0
	case start > 0:
		from, index := start, int64(0)
		for range nth {
			index = runeIndex(s, sub, from-1) + 1
			if index == 0 {
				return 0
			}
			from = index + 1
		}
		return index
	}
	pos := instr(reversed(s), reversed(sub), -start, nth)
	if pos == 0 {
		return 0
	}
	return int64(len(s)) + 2 - pos - int64(len(sub))
}

// runeIndex is BinaryStringData.indexOf: the first position at or after
// from (0 below 0) where sub starts, -1 if none; an empty sub is at 0.
func runeIndex(s, sub []rune, from int64) int64 {
	if len(sub) == 0 {
		return 0
	}
	for i := max(from, 0); i+int64(len(sub)) <= int64(len(s)); i++ {
		if string(s[i:i+int64(len(sub))]) == string(sub) {
			return i
		}
	}
	return -1
}

func reversed(r []rune) []rune {
	out := make([]rune, len(r))
	for i, c := range r {
		out[len(r)-1-i] = c
	}
	return out
}

func inferIsKind(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, sql.DataType{}, err
	}
	if t := args[0].Type(); !t.IsString() && !t.IsNumeric() && t.Root != sql.TypeNull {
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf("Cannot apply '%s' to arguments of type '%s(<%s>)'. Supported form(s): '%s(<CHARACTER>)'\n'%s(<NUMERIC>)'",
			name, name, CalciteTypeName(t), name, name)}
	}
	return args, sql.Boolean().NotNull(), nil
}

// evalIsKind is StringCallGen's IS_DECIMAL, IS_DIGIT and IS_ALPHA: a
// character string is tested (FALSE for NULL or empty): IS_DECIMAL
// whether Long.parseLong or Double.parseDouble takes it, IS_DIGIT whether
// every character is a decimal digit (StringUtils.isNumeric), IS_ALPHA
// whether every one is a letter (StringUtils.isAlpha). A number is passed
// boxed, its NULL as the primitive's default, so the answer is its type's:
// IS_DECIMAL is TRUE for integers and approximate numbers (FALSE for
// DECIMAL, whose DecimalData is no java.lang.Number the test knows),
// IS_DIGIT for integers only, IS_ALPHA never.
func evalIsKind(c *Call, args []Eval) (Eval, error) {
	t := c.Args[0].Type()
	if t.IsNumeric() {
		var v bool
		switch c.Op {
		case "IS_DECIMAL":
			v = isIntegerType(t) || t.Root == sql.TypeFloat || t.Root == sql.TypeDouble
		case "IS_DIGIT":
			v = isIntegerType(t)
		}
		return func([]any) (any, error) { return v, nil }, nil
	}
	op := c.Op
	return func(row []any) (any, error) {
		v, err := args[0](row)
		if err != nil || v == nil {
			return false, err
		}
		s := v.(string)
		if s == "" {
			return false, nil
		}
		switch op {
		case "IS_DECIMAL":
			_, okLong := javaParseLong(s, 10)
			return okLong || javaParsesDouble(s), nil
		case "IS_DIGIT":
			return allBMP(s, unicode.IsDigit), nil
		}
		return allBMP(s, unicode.IsLetter), nil
	}, nil
}

// allBMP applies a Character test to every character; Java tests a
// character outside the Basic Multilingual Plane as two surrogates, which
// are neither digits nor letters.
func allBMP(s string, f func(rune) bool) bool {
	for _, r := range s {
		if r > 0xFFFF || !f(r) {
			return false
		}
	}
	return true
}

// javaDigit is Character.digit(r, radix) for radix 10 or 16: a decimal
// digit of any script, or (radix 16) an ASCII or fullwidth Latin letter
// a-f; -1 otherwise.
func javaDigit(r rune, radix int) int {
	switch {
	case r >= '0' && r <= '9':
		return int(r - '0')
	case radix == 16 && r >= 'a' && r <= 'f':
		return int(r-'a') + 10
	case radix == 16 && r >= 'A' && r <= 'F':
		return int(r-'A') + 10
	case radix == 16 && r >= 0xFF41 && r <= 0xFF46:
		return int(r-0xFF41) + 10
	case radix == 16 && r >= 0xFF21 && r <= 0xFF26:
		return int(r-0xFF21) + 10
	case r > 0x7F && r <= 0xFFFF && unicode.IsDigit(r):
		// Decimal digits come in runs of ten from zero.
		v := 0
		for v < 9 && unicode.IsDigit(r-rune(v)-1) {
			v++
		}
		return v
	}
	return -1
}

// javaParseLong is Long.parseLong(s, radix): an optional sign and at
// least one digit (Character.digit), within the range of a long.
func javaParseLong(s string, radix int) (int64, bool) {
	r := []rune(s)
	neg := false
	if len(r) > 0 && (r[0] == '-' || r[0] == '+') {
		neg = r[0] == '-'
		r = r[1:]
	}
	if len(r) == 0 {
		return 0, false
	}
	var n uint64
	for _, c := range r {
		d := javaDigit(c, radix)
		if d < 0 {
			return 0, false
		}
		n = n*uint64(radix) + uint64(d)
		if n > 1<<63 {
			return 0, false
		}
	}
	if !neg && n == 1<<63 {
		return 0, false
	}
	if neg {
		return -int64(n), true
	}
	return int64(n), true
}

var (
	javaDecimalFloat = regexp.MustCompile(`^[+-]?(NaN|Infinity|(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[fFdD]?))$`)
	javaHexFloat     = regexp.MustCompile(`^[+-]?0[xX]([0-9a-fA-F]+\.?|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[fFdD]?$`)
)

// javaParsesDouble is whether Double.parseDouble takes s
// (FloatingDecimal.readJavaFormatString): the text without the characters
// up to ' ' around it is NaN, Infinity, a decimal or a hexadecimal
// floating point literal, signed or not, with an optional type suffix.
func javaParsesDouble(s string) bool {
	t := strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	return javaDecimalFloat.MatchString(t) || javaHexFloat.MatchString(t)
}

func inferStrToMap(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) != 1 && len(args) != 3 {
		return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("Invalid number of arguments to function '%s'. Was expecting 1 arguments", name)}
	}
	for _, a := range args {
		if t := a.Type(); !t.IsString() && t.Root != sql.TypeNull {
			return nil, sql.DataType{}, operandTypesError(name, args, "STRING")
		}
	}
	return args, sql.MapOf(sql.String(), sql.String()), nil
}

// evalStrToMap is SqlFunctionUtils.strToMap: the text split by the pair
// delimiter and each pair by the key-value delimiter, both Java regular
// expressions (String.split: trailing empty pairs dropped; a pair without
// the delimiter maps to NULL; a later duplicate key replaces the value);
// an empty text is an empty map. The entries are in the order Java's
// HashMap iterates them, which is how Flink's MapConverter builds the map.
func evalStrToMap(c *Call, args []Eval) (Eval, error) {
	var lits [2]*javaRegex
	for i := range lits {
		if len(c.Args) == 3 {
			re, err := regexArg(c, i+1)
			if err != nil {
				return nil, err
			}
			lits[i] = re
		}
	}
	return strict(args, func(vs []any) (any, error) {
		s := vs[0].(string)
		pd, kd := ",", "="
		if len(vs) == 3 {
			pd, kd = vs[1].(string), vs[2].(string)
		}
		m := &sql.Map{}
		if s == "" {
			return m, nil
		}
		pairs, err := javaSplit(c.Op, lits[0], pd, s, 0)
		if err != nil {
			return nil, err
		}
		h := newJavaHashMap(len(pairs))
		for _, p := range pairs {
			kv, err := javaSplit(c.Op, lits[1], kd, p, 2)
			if err != nil {
				return nil, err
			}
			if len(kv) < 2 {
				h.put(p, nil)
			} else {
				h.put(kv[0], kv[1])
			}
		}
		return h.toMap(), nil
	}), nil
}

// javaSplit is String.split(regex, limit) (Pattern.split): the pieces
// between Java's successive matches; a zero-width match at the start
// makes no leading empty piece; limit > 0 keeps at most limit pieces, the
// last the rest of the text; limit 0 drops trailing empty pieces.
func javaSplit(fn string, lit *javaRegex, p, s string, limit int) ([]string, error) {
	re, invalid, err := matcher(fn, lit, p, s)
	if err != nil {
		return nil, err
	}
	if invalid {
		_, err := regexp.Compile(p)
		return nil, sql.Errorf(sql.RuntimeException, "java.util.regex.PatternSyntaxException: %s: %v", p, err)
	}
	ms, err := re.findAll(s)
	if err != nil {
		return nil, regexErr(fn, &JavaRegexError{Pattern: p, Construct: err.Error()})
	}
	var out []string
	index := 0
	for _, m := range ms {
		switch {
		case limit <= 0 || len(out) < limit-1:
			if index == 0 && m[0] == 0 && m[1] == 0 {
				continue
			}
			out = append(out, s[index:m[0]])
			index = m[1]
		case len(out) == limit-1:
			out = append(out, s[index:])
			index = m[1]
		}
	}
	if index == 0 {
		return []string{s}, nil
	}
	if limit <= 0 || len(out) < limit {
		out = append(out, s[index:])
	}
	if limit == 0 {
		for len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
	}
	return out, nil
}

// javaHashMap keeps entries as java.util.HashMap(n) would hold them, to
// list them in its iteration order: by bucket (the spread String.hashCode
// masked by the table's size, which doubles past 3/4 full), then in
// insertion order within a bucket. (A bucket Java turns into a tree, 8
// colliding keys in a table of 64 or more, is listed in insertion order.)
type javaHashMap struct {
	keys      []string
	values    []any
	index     map[string]int
	size      int
	capa      int
	threshold int
}

func newJavaHashMap(n int) *javaHashMap {
	capa := 1
	for capa < n {
		capa <<= 1
	}
	return &javaHashMap{index: map[string]int{}, capa: capa, threshold: capa * 3 / 4}
}

func (h *javaHashMap) put(k string, v any) {
	if i, ok := h.index[k]; ok {
		h.values[i] = v
		return
	}
	h.index[k] = len(h.keys)
	h.keys = append(h.keys, k)
	h.values = append(h.values, v)
	h.size++
	if h.size > h.threshold {
		h.capa <<= 1
		h.threshold = h.capa * 3 / 4
	}
}

func (h *javaHashMap) toMap() *sql.Map {
	type entry struct {
		bucket, seq int
	}
	order := make([]entry, len(h.keys))
	for i, k := range h.keys {
		hc := javaStringHash(k)
		order[i] = entry{int((hc ^ (hc >> 16)) & uint32(h.capa-1)), i}
	}
	// A stable insertion sort by bucket keeps insertion order within one.
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && order[j].bucket < order[j-1].bucket; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	m := &sql.Map{Keys: make([]any, len(order)), Values: make([]any, len(order))}
	for i, e := range order {
		m.Keys[i], m.Values[i] = h.keys[e.seq], h.values[e.seq]
	}
	return m
}

// javaStringHash is String.hashCode over the UTF-16 units.
func javaStringHash(s string) uint32 {
	var h uint32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + uint32(u)
	}
	return h
}

// evalParseURL is SqlFunctionUtils.parseUrl: the part (HOST, PATH, QUERY,
// REF, PROTOCOL, FILE, AUTHORITY or USERINFO, as written) of the URL
// java.net.URL makes of the text, NULL for a text it refuses, another
// part name or a part the URL lacks; with a key, the value of the first
// key=value of the QUERY.
func evalParseURL(c *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		u, err := parseJavaURL(vs[0].(string))
		if err != nil || u == nil {
			return nil, err
		}
		part := vs[1].(string)
		if len(vs) > 2 {
			if part != "QUERY" || u.query == nil {
				return nil, nil
			}
			// Pattern.compile("(&|^)" + Pattern.quote(key) + "=([^&]*)").
			re, err := regexp.Compile("(?:&|^)" + regexp.QuoteMeta(vs[2].(string)) + "=([^&]*)")
			if err != nil {
				return nil, err
			}
			if m := re.FindStringSubmatch(*u.query); m != nil {
				return m[1], nil
			}
			return nil, nil
		}
		var v *string
		switch part {
		case "HOST":
			v = &u.host
		case "PATH":
			v = &u.path
		case "QUERY":
			v = u.query
		case "REF":
			v = u.ref
		case "PROTOCOL":
			v = &u.protocol
		case "FILE":
			f := u.path
			if u.query != nil {
				f += "?" + *u.query
			}
			v = &f
		case "AUTHORITY":
			v = u.authority
		case "USERINFO":
			v = u.userInfo
		}
		if v == nil {
			return nil, nil
		}
		return *v, nil
	}), nil
}

// javaURL holds the parts of a java.net.URL; nil pointers are Java's
// nulls.
type javaURL struct {
	protocol, host, path string
	query, ref           *string
	authority, userInfo  *string
}

// parseJavaURL is new java.net.URL(spec) for the protocols Java 17
// handles: nil (no error) where Java throws MalformedURLException,
// an error for the jar, jrt and jmod protocols, whose handlers sqlrun
// does not follow.
func parseJavaURL(spec string) (*javaURL, error) {
	start, limit := 0, len(spec)
	for limit > 0 && spec[limit-1] <= ' ' {
		limit--
	}
	for start < limit && spec[start] <= ' ' {
		start++
	}
	if limit-start >= 4 && strings.EqualFold(spec[start:start+4], "url:") {
		start += 4
	}
	protocol := ""
	if start < len(spec) && spec[start] != '#' {
		for i := start; i < limit && spec[i] != '/'; i++ {
			if spec[i] == ':' {
				s := strings.ToLower(spec[start:i])
				if validJavaProtocol(s) {
					protocol = s
					start = i + 1
				}
				break
			}
		}
	}
	switch protocol {
	case "http", "https", "ftp", "file", "mailto":
	case "jar", "jrt", "jmod":
		return nil, sql.Errorf(sql.UnsupportedOperation, "PARSE_URL: sqlrun does not parse %s: URLs as java.net.URL does: %q", protocol, spec)
	default:
		return nil, nil // no protocol, or one Java has no handler for
	}
	u := &javaURL{protocol: protocol}
	if i := strings.IndexByte(spec[start:], '#'); i >= 0 {
		ref := spec[start+i+1 : limit]
		u.ref = &ref
		limit = start + i
	}
	if protocol == "mailto" {
		return parseMailto(u, spec, start, limit)
	}
	if !parseHierarchical(u, spec, start, limit) {
		return nil, nil
	}
	return u, nil
}

// validJavaProtocol is URL.isValidProtocol: a letter, then letters,
// digits, '.', '+' or '-'.
func validJavaProtocol(s string) bool {
	for i, r := range s {
		ok := unicode.IsLetter(r)
		if i > 0 {
			ok = ok || unicode.IsDigit(r) || r == '.' || r == '+' || r == '-'
		}
		if !ok {
			return false
		}
	}
	return s != ""
}

// parseMailto is the mailto handler's parseURL: the rest is the file
// (path, and query after its last '?'), which must not be blank; no host,
// and no ref (its setURL clears it).
func parseMailto(u *javaURL, spec string, start, limit int) (*javaURL, error) {
	file := ""
	if start < limit {
		file = spec[start:limit]
	}
	if strings.Trim(file, " ") == "" {
		return nil, nil
	}
	u.ref = nil
	u.path = file
	if q := strings.LastIndexByte(file, '?'); q >= 0 {
		query := file[q+1:]
		u.query, u.path = &query, file[:q]
	}
	return u, nil
}

// parseHierarchical is URLStreamHandler.parseURL without a context URL:
// the query from the first '?', the authority after "//" up to the next
// '/' or '?', split into user info, host and port, and the path; false
// where Java throws.
func parseHierarchical(u *javaURL, spec string, start, limit int) bool {
	if start < limit {
		if q := strings.IndexByte(spec, '?'); q >= 0 && q < limit {
			query := spec[q+1 : limit]
			u.query = &query
			limit = q
			spec = spec[:q]
		}
	}
	var path *string
	unc := start <= limit-4 && spec[start:start+4] == "////"
	if !unc && start <= limit-2 && spec[start:start+2] == "//" {
		start += 2
		i := strings.IndexByte(spec[start:], '/')
		if i < 0 || start+i > limit {
			i = limit
		} else {
			i += start
		}
		authority := spec[start:i]
		u.authority = &authority
		host := authority
		hostOK := true
		if at := strings.IndexByte(authority, '@'); at >= 0 {
			if at != strings.LastIndexByte(authority, '@') {
				hostOK = false
			} else {
				ui := authority[:at]
				u.userInfo = &ui
				host = authority[at+1:]
			}
		}
		if hostOK {
			if strings.HasPrefix(host, "[") {
				end := strings.IndexByte(host, ']')
				if end <= 2 || !ipv6Literal(host[1:end]) {
					return false
				}
				if rest := host[end+1:]; rest != "" {
					if rest[0] != ':' {
						return false
					}
					if len(rest) > 1 && !javaPort(rest[1:]) {
						return false
					}
				}
				host = host[:end+1]
			} else if c := strings.IndexByte(host, ':'); c >= 0 {
				if c+1 < len(host) && !javaPort(host[c+1:]) {
					return false
				}
				host = host[:c]
			}
		} else {
			host = ""
		}
		u.host = host
		start = i
		if authority != "" {
			empty := ""
			path = &empty
		}
	}
	if start < limit {
		p := spec[start:limit]
		if spec[start] != '/' && u.authority != nil {
			p = "/" + p
		}
		path = &p
	}
	if path != nil {
		u.path = *path
	}
	return true
}

// javaPort is whether Integer.parseInt takes the port and it is at least
// -1.
func javaPort(s string) bool {
	n, ok := javaParseLong(s, 10)
	return ok && n >= -1 && n <= 1<<31-1
}

// ipv6Literal approximates IPAddressUtil.isIPv6LiteralAddress: an IPv6
// address, with an optional %scope.
func ipv6Literal(s string) bool {
	if i := strings.IndexByte(s, '%'); i >= 0 {
		s = s[:i]
	}
	return strings.Contains(s, ":") && net.ParseIP(s) != nil
}

func inferURLCodec(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) != 1 {
		return nil, sql.DataType{}, noMatch(name, args)
	}
	if t := args[0].Type(); !t.IsString() && t.Root != sql.TypeNull {
		return nil, sql.DataType{}, invalidCall(name, args, name+"(<CHARACTER_STRING>)")
	}
	return args, sql.String(), nil
}

// evalURLEncode is URLEncoder.encode(s, UTF-8): letters, digits and
// ".-*_" stay, a blank is '+', every other byte of the UTF-8 encoding is
// %XY.
func evalURLEncode(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		s := vs[0].(string)
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(".-*_", c) >= 0:
				b.WriteByte(c)
			case c == ' ':
				b.WriteByte('+')
			default:
				fmt.Fprintf(&b, "%%%02X", c)
			}
		}
		return b.String(), nil
	}), nil
}

// evalURLDecode is URLDecoder.decode(s, UTF-8): '+' is a blank, each run
// of %XY escapes is bytes read as UTF-8; NULL where Java throws (an escape
// that is no hexadecimal number, a negative one, or one cut short).
// Integer.parseInt reads the two characters, so a sign or a digit of
// another script passes as it does.
func evalURLDecode(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		r := []rune(vs[0].(string))
		var b strings.Builder
		for i := 0; i < len(r); {
			switch r[i] {
			case '+':
				b.WriteByte(' ')
				i++
			case '%':
				var bs []byte
				for i+2 < len(r) && r[i] == '%' {
					v, ok := javaParseLong(string(r[i+1:i+3]), 16)
					if !ok || v < 0 {
						return nil, nil
					}
					bs = append(bs, byte(v))
					i += 3
				}
				if i < len(r) && r[i] == '%' {
					return nil, nil
				}
				b.WriteString(javaDecodeUTF8(bs))
			default:
				b.WriteRune(r[i])
				i++
			}
		}
		return b.String(), nil
	}), nil
}

// javaDecodeUTF8 is new String(bytes, UTF_8) as Java 17 decodes it: a
// malformed sequence becomes one U+FFFD per maximal invalid part (a lead
// byte and the continuation bytes that still fit it), and an encoded
// surrogate one U+FFFD for its three bytes.
func javaDecodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	cont := func(i int, lo, hi byte) bool { return i < len(b) && b[i] >= lo && b[i] <= hi }
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c < 0x80:
			sb.WriteByte(c)
			i++
			continue
		case c >= 0xC2 && c <= 0xDF:
			if cont(i+1, 0x80, 0xBF) {
				sb.Write(b[i : i+2])
				i += 2
				continue
			}
			i++
		case c >= 0xE0 && c <= 0xEF:
			lo := byte(0x80)
			if c == 0xE0 {
				lo = 0xA0
			}
			switch {
			case !cont(i+1, lo, 0xBF):
				i++
			case !cont(i+2, 0x80, 0xBF):
				i += 2
			default:
				// ED A0..BF xx encodes a surrogate: one U+FFFD, as Java.
				if c != 0xED || b[i+1] < 0xA0 {
					sb.Write(b[i : i+3])
					i += 3
					continue
				}
				i += 3
			}
		case c >= 0xF0 && c <= 0xF4:
			lo, hi := byte(0x80), byte(0xBF)
			if c == 0xF0 {
				lo = 0x90
			} else if c == 0xF4 {
				hi = 0x8F
			}
			switch {
			case !cont(i+1, lo, hi):
				i++
			case !cont(i+2, 0x80, 0xBF):
				i += 2
			case !cont(i+3, 0x80, 0xBF):
				i += 3
			default:
				sb.Write(b[i : i+4])
				i += 4
				continue
			}
		default:
			i++
		}
		sb.WriteRune(utf8.RuneError)
	}
	return sb.String()
}

func inferEncode(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, sql.DataType{}, err
	}
	for _, a := range args {
		if t := a.Type(); !t.IsString() && t.Root != sql.TypeNull {
			return nil, sql.DataType{}, operandTypesError(name, args, "STRING")
		}
	}
	// Flink types it ReturnTypes.explicit(BINARY), BINARY(1), yet holds
	// every byte; sqlrun types it BYTES, which holds them too.
	return args, sql.VarBinary(sql.MaxLength), nil
}

func inferDecode(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, sql.DataType{}, err
	}
	t0, t1 := args[0].Type(), args[1].Type()
	if !t0.IsBinary() && t0.Root != sql.TypeNull || !t1.IsString() && t1.Root != sql.TypeNull {
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf("Cannot apply '%s' to arguments of type '%s(<%s>, <%s>)'. Supported form(s): '%s(<BINARY>, <STRING>)'",
			name, name, CalciteTypeName(t0), CalciteTypeName(t1), name)}
	}
	return args, sql.String(), nil
}

// javaCharset names the character sets sqlrun encodes and decodes as Java
// does: Flink's documented six (US-ASCII, ISO-8859-1, UTF-8, UTF-16BE,
// UTF-16LE, UTF-16), under Java's names and aliases, case ignored.
func javaCharset(fn, name string) (string, error) {
	switch strings.ToUpper(name) {
	case "US-ASCII", "ASCII", "US", "ISO646-US", "ISO_646.IRV:1991", "ISO-IR-6", "ANSI_X3.4-1968", "ANSI_X3.4-1986", "CP367", "IBM367", "CSASCII", "DEFAULT", "646", "ASCII7":
		return "US-ASCII", nil
	case "ISO-8859-1", "ISO8859-1", "ISO8859_1", "ISO_8859-1", "ISO_8859_1", "ISO_8859-1:1987", "8859_1", "LATIN1", "L1", "IBM819", "IBM-819", "CP819", "819", "CSISOLATIN1", "ISO-IR-100":
		return "ISO-8859-1", nil
	case "UTF-8", "UTF8", "UNICODE-1-1-UTF-8":
		return "UTF-8", nil
	case "UTF-16BE", "UTF_16BE", "X-UTF-16BE", "ISO-10646-UCS-2", "UNICODEBIGUNMARKED":
		return "UTF-16BE", nil
	case "UTF-16LE", "UTF_16LE", "X-UTF-16LE", "UNICODELITTLEUNMARKED":
		return "UTF-16LE", nil
	case "UTF-16", "UTF_16", "UTF16", "UNICODE", "UNICODEBIG":
		return "UTF-16", nil
	}
	return "", sql.Errorf(sql.RuntimeException, "%s: sqlrun encodes only the character sets US-ASCII, ISO-8859-1, UTF-8, UTF-16BE, UTF-16LE and UTF-16 (Flink's documented ones), not '%s'", fn, name)
}

// evalEncode is String.getBytes(charset): a character the set lacks is
// '?' (a character outside the Basic Multilingual Plane one '?'); UTF-16
// starts with the byte order mark FE FF.
func evalEncode(c *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		s := vs[0].(string)
		cs, err := javaCharset(c.Op, vs[1].(string))
		if err != nil {
			return nil, err
		}
		var out []byte
		switch cs {
		case "UTF-8":
			return []byte(s), nil
		case "US-ASCII", "ISO-8859-1":
			top := rune(0x7F)
			if cs == "ISO-8859-1" {
				top = 0xFF
			}
			for _, r := range s {
				if r > top {
					r = '?'
				}
				out = append(out, byte(r))
			}
		default:
			units := utf16.Encode([]rune(s))
			if cs == "UTF-16" && len(units) > 0 {
				out = append(out, 0xFE, 0xFF)
			}
			for _, u := range units {
				if cs == "UTF-16LE" {
					out = append(out, byte(u), byte(u>>8))
				} else {
					out = append(out, byte(u>>8), byte(u))
				}
			}
		}
		if out == nil {
			out = []byte{}
		}
		return out, nil
	}), nil
}

// evalDecode is new String(bytes, charset): a byte US-ASCII lacks, a
// malformed UTF-8 sequence, a lone surrogate or a last odd byte of UTF-16
// is U+FFFD; UTF-16 reads a byte order mark (FE FF or FF FE) and drops
// it, big-endian without one.
func evalDecode(c *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		b := vs[0].([]byte)
		cs, err := javaCharset(c.Op, vs[1].(string))
		if err != nil {
			return nil, err
		}
		switch cs {
		case "UTF-8":
			return javaDecodeUTF8(b), nil
		case "US-ASCII", "ISO-8859-1":
			rs := make([]rune, len(b))
			for i, x := range b {
				rs[i] = rune(x)
				if cs == "US-ASCII" && x > 0x7F {
					rs[i] = utf8.RuneError
				}
			}
			return string(rs), nil
		}
		little := cs == "UTF-16LE"
		if cs == "UTF-16" && len(b) >= 2 {
			switch {
			case b[0] == 0xFE && b[1] == 0xFF:
				b = b[2:]
			case b[0] == 0xFF && b[1] == 0xFE:
				b, little = b[2:], true
			}
		}
		return javaDecodeUTF16(b, little), nil
	}), nil
}

// javaDecodeUTF16 is Java's UTF-16 decoding of units in either byte
// order: a high surrogate and the unit after it that is no low surrogate
// are one U+FFFD together, as is a lone low surrogate, and so is what is
// left at the end that makes no character (an odd byte, a high surrogate).
func javaDecodeUTF16(b []byte, little bool) string {
	unit := func(i int) rune {
		if little {
			return rune(b[i]) | rune(b[i+1])<<8
		}
		return rune(b[i])<<8 | rune(b[i+1])
	}
	var sb strings.Builder
	for i := 0; i < len(b); {
		if i+1 >= len(b) {
			sb.WriteRune(utf8.RuneError)
			break
		}
		c := unit(i)
		switch {
		case c >= 0xDC00 && c <= 0xDFFF:
			sb.WriteRune(utf8.RuneError)
			i += 2
		case c >= 0xD800 && c <= 0xDBFF:
			if i+3 >= len(b) {
				sb.WriteRune(utf8.RuneError)
				return sb.String()
			}
			if c2 := unit(i + 2); c2 >= 0xDC00 && c2 <= 0xDFFF {
				sb.WriteRune(utf16.DecodeRune(c, c2))
			} else {
				sb.WriteRune(utf8.RuneError)
			}
			i += 4
		default:
			sb.WriteRune(c)
			i += 2
		}
	}
	return sb.String()
}

func inferBinHex(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, sql.DataType{}, err
	}
	t := args[0].Type()
	ok := isIntegerType(t) || t.Root == sql.TypeNull || name == "HEX" && t.IsString()
	if !ok {
		forms := fmt.Sprintf("'%s(<INTEGER>)'", name)
		if name == "HEX" {
			forms += "\n'HEX(<STRING>)'"
		}
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf("Cannot apply '%s' to arguments of type '%s(<%s>)'. Supported form(s): %s",
			name, name, CalciteTypeName(t), forms)}
	}
	return args, sql.String().WithNullable(t.Nullable), nil
}

// evalBin is Long.toBinaryString of the integer widened to a long: a
// negative number is its 64-bit two's complement.
func evalBin(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		n, _ := ToInt(vs[0])
		return strconv.FormatUint(uint64(n), 2), nil
	}), nil
}

// evalHex is SqlFunctionUtils.hex: Long.toHexString of an integer (64-bit
// two's complement) or the hexadecimal of a string's UTF-8 bytes, upper
// case.
func evalHex(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		if s, ok := vs[0].(string); ok {
			return strings.ToUpper(fmt.Sprintf("%x", s)), nil
		}
		n, _ := ToInt(vs[0])
		return strings.ToUpper(strconv.FormatUint(uint64(n), 16)), nil
	}), nil
}
