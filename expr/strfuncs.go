package expr

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sqlrun/sqlrun/sql"
)

// The string functions of Flink's FlinkSqlOperatorTable (and Calcite's
// SqlStdOperatorTable for NULLIF, POSITION, INITCAP), evaluated as Flink's
// StringCallGen, SqlFunctionUtils and BinaryStringDataUtil compute them.
// Positions and lengths count characters (code points), as
// BinaryStringData does.
func stringFuncs() []*Func {
	return []*Func{
		// NULLIF(a, b) is CASE WHEN a = b THEN NULL ELSE a END (Calcite's
		// SqlNullifFunction): a's type, nullable.
		{Name: "NULLIF", Infer: inferNullif, Eval: evalNullif},
		// POSITION(seek IN s [FROM from]) and LOCATE(seek, s [, from]):
		// SqlFunctionUtils.position, INTEGER.
		{Name: "POSITION", Infer: inferStrFunc("INT", []string{"S", "S", "I?"}), Eval: evalPosition},
		{Name: "LOCATE", Infer: inferStrFunc("INT", []string{"S", "S", "I?"}), Eval: evalPosition},
		// INITCAP keeps its operand's type (ReturnTypes.ARG0_NULLABLE).
		{Name: "INITCAP", Infer: inferSameString, Eval: evalStr1(initcap)},
		{Name: "REPLACE", Infer: inferStrFunc("STRING", []string{"S", "S", "S"}), Eval: evalReplace},
		{Name: "REPEAT", Infer: inferStrFunc("STRING", []string{"S", "I"}), Eval: evalRepeat},
		{Name: "LPAD", Infer: inferStrFunc("STRING!", []string{"S", "I", "S"}), Eval: evalPad},
		{Name: "RPAD", Infer: inferStrFunc("STRING!", []string{"S", "I", "S"}), Eval: evalPad},
		// LEFT and RIGHT are ARG0_VARCHAR_FORCE_NULLABLE.
		{Name: "LEFT", Infer: inferStrFunc("ARG0!", []string{"S", "I"}), Eval: evalLeftRight},
		{Name: "RIGHT", Infer: inferStrFunc("ARG0!", []string{"S", "I"}), Eval: evalLeftRight},
		{Name: "REVERSE", Infer: inferStrFunc("STRING!", []string{"S"}), Eval: evalStr1(reverseRunes)},
		{Name: "SPLIT_INDEX", Infer: inferStrFunc("STRING!", []string{"S", "SI", "I"}), Eval: evalSplitIndex},
		{Name: "CONCAT_WS", Infer: inferConcatWs, Eval: evalConcatWs},
		// Hex digests of the UTF-8 bytes (SqlFunctionUtils.hash), CHAR(n).
		{Name: "MD5", Infer: inferStrFunc("CHAR32", []string{"B"}), Eval: evalHash(md5.New)},
		{Name: "SHA1", Infer: inferStrFunc("CHAR40", []string{"B"}), Eval: evalHash(sha1.New)},
		{Name: "SHA224", Infer: inferStrFunc("CHAR56", []string{"B"}), Eval: evalHash(sha256.New224)},
		{Name: "SHA256", Infer: inferStrFunc("CHAR64", []string{"B"}), Eval: evalHash(sha256.New)},
		{Name: "SHA384", Infer: inferStrFunc("CHAR96", []string{"B"}), Eval: evalHash(sha512.New384)},
		{Name: "SHA512", Infer: inferStrFunc("CHAR128", []string{"B"}), Eval: evalHash(sha512.New)},
		{Name: "SHA2", Infer: inferStrFunc("VARCHAR128", []string{"B", "I"}), Eval: evalSha2},
		{Name: "TO_BASE64", Infer: inferStrFunc("STRING", []string{"B"}), Eval: evalToBase64},
		{Name: "FROM_BASE64", Infer: inferStrFunc("STRING", []string{"B"}), Eval: evalFromBase64},
		{Name: "ASCII", Infer: inferStrFunc("INT", []string{"S"}), Eval: evalASCII},
		{Name: "CHR", Infer: inferStrFunc("STRING!", []string{"I"}), Eval: evalChr},
		// OVERLAY(s PLACING r FROM start [FOR length]): Calcite's
		// SqlOverlayFunction, VARCHAR of the two lengths' sum.
		{Name: "OVERLAY", Infer: inferOverlay, Eval: evalOverlay},
		// The regular expression functions of FlinkSqlOperatorTable, with
		// Java's patterns (javaregex.go).
		{Name: "REGEXP", Infer: inferStrFunc("BOOLEAN", []string{"S", "S"}), Eval: evalRegexp},
		{Name: "REGEXP_REPLACE", Infer: inferStrFunc("STRING", []string{"S", "S", "S"}), Eval: evalRegexpReplace},
		{Name: "REGEXP_EXTRACT", Infer: inferStrFunc("STRING!", []string{"S", "S", "I?"}), Eval: evalRegexpExtract},
	}
}

// inferStrFunc checks operands by letter (S a character string, B a
// character or binary string, I an integer, SI either; a trailing ? makes
// it and what follows optional) and returns the named type: INT, BOOLEAN, STRING,
// CHARn, VARCHARn or ARG0 (VARCHAR of the first operand's length), nullable
// when an operand is, or always when the name ends in !
// (VARCHAR_FORCE_NULLABLE).
func inferStrFunc(ret string, ops []string) func(string, []Expr) ([]Expr, sql.DataType, error) {
	return func(name string, args []Expr) ([]Expr, sql.DataType, error) {
		lo := len(ops)
		for i, o := range ops {
			if strings.HasSuffix(o, "?") {
				lo = i
				break
			}
		}
		if len(args) < lo || len(args) > len(ops) {
			return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("Invalid number of arguments to function '%s'. Was expecting %d arguments", name, lo)}
		}
		for i, a := range args {
			t := a.Type()
			if t.Root == sql.TypeNull {
				continue
			}
			o := strings.TrimSuffix(ops[i], "?")
			ok := (strings.Contains(o, "S") && t.IsString()) || (o == "B" && (t.IsString() || t.Root == sql.TypeBinary || t.Root == sql.TypeVarBinary)) ||
				(strings.Contains(o, "I") && isIntegerType(t))
			if !ok {
				return nil, sql.DataType{}, operandTypesError(name, args, familyNames(ops[:len(args)]))
			}
		}
		nullable := anyNullable(args)
		if strings.HasSuffix(ret, "!") {
			nullable, ret = true, strings.TrimSuffix(ret, "!")
		}
		var t sql.DataType
		switch {
		case ret == "INT":
			t = sql.Int()
		case ret == "BOOLEAN":
			t = sql.Boolean()
		case ret == "STRING":
			t = sql.String()
		case ret == "ARG0":
			t = sql.VarChar(max(args[0].Type().Length, 1))
			if args[0].Type().Root == sql.TypeNull {
				t = sql.String()
			}
		case strings.HasPrefix(ret, "CHAR"):
			var n int
			fmt.Sscan(ret[4:], &n)
			t = sql.Char(n)
		default:
			var n int
			fmt.Sscan(ret[7:], &n)
			t = sql.VarChar(n)
		}
		return args, t.WithNullable(nullable), nil
	}
}

// familyNames is what Calcite's message lists for the operand letters.
func familyNames(ops []string) string {
	var b strings.Builder
	for i, o := range ops {
		if i > 0 {
			b.WriteString(">, <")
		}
		switch strings.TrimSuffix(o, "?") {
		case "S":
			b.WriteString("CHARACTER")
		case "B":
			b.WriteString("STRING")
		case "I":
			b.WriteString("INTEGER")
		default:
			b.WriteString("ANY")
		}
	}
	return b.String()
}

func inferNullif(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, sql.DataType{}, err
	}
	if _, ok := CommonType(args[0].Type(), args[1].Type()); !ok {
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf("Cannot apply 'NULLIF' to arguments of type 'NULLIF(<%s>, <%s>)'. Supported form(s): 'NULLIF(<COMPARABLE_TYPE>, <COMPARABLE_TYPE>)'",
			signatureType(args[0].Type()), signatureType(args[1].Type()))}
	}
	t := args[0].Type()
	if t.Root == sql.TypeNull {
		t = args[1].Type()
	}
	return args, t.WithNullable(true), nil
}

func evalNullif(c *Call, args []Eval) (Eval, error) {
	eq, err := evalCompare(&Call{Op: "=", Args: c.Args, T: sql.Boolean()}, args)
	if err != nil {
		return nil, err
	}
	return func(row []any) (any, error) {
		x, err := args[0](row)
		if err != nil || x == nil {
			return nil, err
		}
		same, err := eq(row)
		if err != nil {
			return nil, err
		}
		if same == true {
			return nil, nil
		}
		return x, nil
	}, nil
}

func evalStr1(f func(string) string) func(*Call, []Eval) (Eval, error) {
	return func(_ *Call, args []Eval) (Eval, error) {
		return strict(args, func(vs []any) (any, error) { return f(vs[0].(string)), nil }), nil
	}
}

// evalPosition is SqlFunctionUtils.position: BinaryStringData.indexOf(seek,
// from - 1) + 1, where an empty seek is found at 0 whatever from, and a
// from below 1 searches from the start.
func evalPosition(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		seek, s := vs[0].(string), vs[1].(string)
		from := int64(1)
		if len(vs) > 2 {
			from, _ = ToInt(vs[2])
		}
		if seek == "" {
			return int32(1), nil
		}
		r := []rune(s)
		start := int(max(min(from-1, int64(len(r))), 0))
		if i := strings.Index(string(r[start:]), seek); i >= 0 {
			return int32(start + utf8.RuneCountInString(string(r[start:])[:i]) + 1), nil
		}
		return int32(0), nil
	}), nil
}

// initcap is Calcite's SqlFunctions.initcap: an ASCII letter after a
// character that is no ASCII letter or digit is upper-cased, every other
// ASCII letter lower-cased; other characters stay.
func initcap(s string) string {
	var b strings.Builder
	start := true
	for _, c := range s {
		isDigit, isUpper, isLower := c >= '0' && c <= '9', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z'
		switch {
		case start && isLower:
			c -= 32
			start = false
		case start && (isDigit || isUpper):
			start = false
		case !start && isUpper:
			c += 32
		case !start && !isDigit && !isLower:
			start = true
		}
		b.WriteRune(c)
	}
	return b.String()
}

// evalReplace is Java's String.replace: an empty target inserts the
// replacement around every character.
func evalReplace(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		return strings.ReplaceAll(vs[0].(string), vs[1].(string), vs[2].(string)), nil
	}), nil
}

// evalRepeat is EncodingUtils.repeat: a count below 1 gives an empty string.
func evalRepeat(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		n, _ := ToInt(vs[1])
		s := vs[0].(string)
		if n <= 0 || s == "" {
			return "", nil
		}
		if int64(len(s))*n > 1<<31 {
			return nil, sql.Errorf(sql.RuntimeException, "java.lang.OutOfMemoryError: REPEAT of %d characters %d times", utf8.RuneCountInString(s), n)
		}
		return strings.Repeat(s, int(n)), nil
	}), nil
}

// evalPad is SqlFunctionUtils.lpad / rpad: NULL for a negative length or
// an empty pad, the string cut to the length when longer.
func evalPad(c *Call, args []Eval) (Eval, error) {
	left := c.Op == "LPAD"
	return strict(args, func(vs []any) (any, error) {
		base, pad := []rune(vs[0].(string)), []rune(vs[2].(string))
		n, _ := ToInt(vs[1])
		if n < 0 || len(pad) == 0 {
			return nil, nil
		}
		if n > 1<<31-1 {
			return nil, sql.Errorf(sql.RuntimeException, "java.lang.OutOfMemoryError: %s to %d characters", c.Op, n)
		}
		out := make([]rune, n)
		if left {
			pos := max(int(n)-len(base), 0)
			for i := 0; i < pos; i++ {
				out[i] = pad[i%len(pad)]
			}
			copy(out[pos:], base)
		} else {
			k := copy(out, base)
			for i := k; i < int(n); i++ {
				out[i] = pad[(i-k)%len(pad)]
			}
		}
		return string(out), nil
	}), nil
}

// evalLeftRight is StringCallGen.generateLeft / generateRight: an empty string for a
// length below 1, else the first (last) characters.
func evalLeftRight(c *Call, args []Eval) (Eval, error) {
	left := c.Op == "LEFT"
	return strict(args, func(vs []any) (any, error) {
		r := []rune(vs[0].(string))
		n, _ := ToInt(vs[1])
		switch {
		case n <= 0:
			return "", nil
		case n >= int64(len(r)):
			return string(r), nil
		case left:
			return string(r[:n]), nil
		}
		return string(r[int64(len(r))-n:]), nil
	}), nil
}

// reverseRunes is BinaryStringDataUtil.reverse: the characters (code
// points) in reverse order.
func reverseRunes(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// evalSplitIndex is SqlFunctionUtils.splitIndex: the index-th (from 0)
// piece of Commons Lang's StringUtils.splitByWholeSeparatorPreserveAllTokens
// (an empty separator splits at whitespace; an empty string has no
// pieces), NULL past the end or for a negative index. A separator given as
// a character code takes codes 1 to 255.
func evalSplitIndex(c *Call, args []Eval) (Eval, error) {
	byCode := isIntegerType(c.Args[1].Type())
	return strict(args, func(vs []any) (any, error) {
		s := vs[0].(string)
		idx, _ := ToInt(vs[2])
		var sep string
		if byCode {
			code, _ := ToInt(vs[1])
			if code < 1 || code > 255 {
				return nil, nil
			}
			sep = string(rune(code))
		} else {
			sep = vs[1].(string)
		}
		if idx < 0 || s == "" {
			return nil, nil
		}
		var parts []string
		if sep == "" {
			parts = splitWhitespace(s)
		} else {
			parts = strings.Split(s, sep)
		}
		if idx >= int64(len(parts)) {
			return nil, nil
		}
		return parts[idx], nil
	}), nil
}

// splitWhitespace is StringUtils.splitWorker with a null separator and
// preserveAllTokens: a piece between every two whitespace characters
// (Character.isWhitespace), a trailing one after a final whitespace.
func splitWhitespace(s string) []string {
	var parts []string
	start, match, lastMatch := 0, false, false
	for i, c := range s {
		if javaWhitespace(c) {
			lastMatch = true
			parts = append(parts, s[start:i])
			match = false
			start = i + utf8.RuneLen(c)
			continue
		}
		lastMatch, match = false, true
	}
	if match || lastMatch {
		parts = append(parts, s[start:])
	}
	return parts
}

// javaWhitespace is Character.isWhitespace: Unicode space separators but
// the no-break ones, and the ASCII controls \t \n \v \f \r and 0x1C-0x1F.
func javaWhitespace(c rune) bool {
	switch c {
	case '\t', '\n', '\v', '\f', '\r', 0x1C, 0x1D, 0x1E, 0x1F:
		return true
	case 0x00A0, 0x2007, 0x202F:
		return false
	}
	return unicode.In(c, unicode.Zs, unicode.Zl, unicode.Zp)
}

// inferConcatWs: CONCAT_WS(sep, s...) takes strings and returns STRING,
// nullable when an operand is.
func inferConcatWs(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) == 0 {
		return nil, sql.DataType{}, arity(name, args, 1, 1<<30)
	}
	for i := range args {
		if err := wantString(name, args, i); err != nil {
			return nil, sql.DataType{}, err
		}
	}
	return args, sql.String().WithNullable(anyNullable(args)), nil
}

// evalConcatWs is BinaryStringDataUtil.concatWs: NULL for a NULL
// separator; NULL strings are skipped (an empty string when all are).
func evalConcatWs(_ *Call, args []Eval) (Eval, error) {
	return func(row []any) (any, error) {
		sep, err := args[0](row)
		if err != nil || sep == nil {
			return nil, err
		}
		var parts []string
		for _, a := range args[1:] {
			v, err := a(row)
			if err != nil {
				return nil, err
			}
			if v != nil {
				parts = append(parts, v.(string))
			}
		}
		return strings.Join(parts, sep.(string)), nil
	}, nil
}

func bytesOf(v any) []byte {
	if b, ok := v.([]byte); ok {
		return b
	}
	return []byte(v.(string))
}

func evalHash(h func() hash.Hash) func(*Call, []Eval) (Eval, error) {
	return func(_ *Call, args []Eval) (Eval, error) {
		return strict(args, func(vs []any) (any, error) {
			d := h()
			d.Write(bytesOf(vs[0]))
			return hex.EncodeToString(d.Sum(nil)), nil
		}), nil
	}
}

// evalSha2 is MessageDigest.getInstance("SHA-" + bits): 224, 256, 384,
// 512, and 1 (which names SHA-1); Java knows no other.
func evalSha2(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		bits, _ := ToInt(vs[1])
		var d hash.Hash
		switch bits {
		case 1:
			d = sha1.New()
		case 224:
			d = sha256.New224()
		case 256:
			d = sha256.New()
		case 384:
			d = sha512.New384()
		case 512:
			d = sha512.New()
		default:
			return nil, sql.Errorf(sql.RuntimeException, "java.security.NoSuchAlgorithmException: SHA-%d MessageDigest not available", bits)
		}
		d.Write(bytesOf(vs[0]))
		return hex.EncodeToString(d.Sum(nil)), nil
	}), nil
}

func evalToBase64(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		return base64.StdEncoding.EncodeToString(bytesOf(vs[0])), nil
	}), nil
}

// evalFromBase64 is java.util.Base64.getDecoder().decode, read as UTF-8
// (javaDecodeUTF8):
// the padding may be left out; anything else not Base64 fails.
func evalFromBase64(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		s := string(bytesOf(vs[0]))
		enc := base64.RawStdEncoding
		if strings.HasSuffix(s, "=") {
			enc = base64.StdEncoding
		}
		b, err := enc.DecodeString(s)
		if err != nil {
			return nil, sql.Errorf(sql.RuntimeException, "java.lang.IllegalArgumentException: FROM_BASE64 of %q: %v", s, err)
		}
		return javaDecodeUTF8(b), nil
	}), nil
}

// evalASCII is StringCallGen.generateAscii: the first byte of the UTF-8
// encoding as a signed Java byte, 0 for an empty string.
func evalASCII(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		s := vs[0].(string)
		if s == "" {
			return int32(0), nil
		}
		return int32(int8(s[0])), nil
	}), nil
}

// evalChr is SqlFunctionUtils.chr: an empty string below 0, else the character of the
// code's low byte.
func evalChr(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		n, _ := ToInt(vs[0])
		if n < 0 {
			return "", nil
		}
		return string(rune(n & 0xFF)), nil
	}), nil
}
