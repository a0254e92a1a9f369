package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"
)

// funcCase is one call of a function over evalTable's row: the SQL, its
// value and (for the first case of a function) its physical-plan form.
// Cases marked flink are the examples of Flink 1.20's function reference
// (docs/data/sql_functions.yml), with Flink's documented result (UNKNOWN
// is null).
type funcCase struct {
	sql, value, prefix string
	flink              bool
	// filter simplifies the expression as a filter condition first
	// (expr.SimplifyFilter), which is where SEARCH comes from.
	filter bool
	// refused is the error a query calling the function gets (one only
	// the planner calls).
	refused string
	// converted: the binder turns the call into other calls, as a
	// Calcite convertlet does (TIMESTAMPADD), so the plan has no call of
	// the function's name; prefix is what it prints.
	converted bool
}

// funcCases holds at least one case for every entry of expr's function
// table; TestFunctionTable fails for an entry without one. A value of "*"
// is not compared (the clock).
var funcCases = map[string][]funcCase{
	"+":         {{sql: "a + 1", value: "8", prefix: "+(a, 1)"}},
	"-":         {{sql: "a - b", value: "10", prefix: "-(a, b)"}, {sql: "-d", value: "-12.50"}},
	"*":         {{sql: "d * 2", value: "25.00", prefix: "*(d, 2)"}},
	"/":         {{sql: "a / 2", value: "3", prefix: "/(a, 2)"}},
	"MOD":       {{sql: "MOD(a, 4)", value: "3", prefix: "MOD(a, 4)"}, {sql: "b % 2", value: "-1"}},
	"HASH_CODE": {{sql: "HASH_CODE(a)", refused: "sqlrun does not support the function HASH_CODE in a query"}},
	"=": {{sql: "a = 7", value: "true", prefix: "=(a, 7)"},
		// ScalarOperatorGens.generateArrayComparison / generateMapComparison
		{sql: "ARRAY[a, 1] = ARRAY[7, 1]", value: "true"}, {sql: "ARRAY[a, 1] = ARRAY[7]", value: "false"},
		{sql: "MAP['k', a, 'l', 1] = MAP['l', 1, 'k', 7]", value: "true"}, {sql: "MAP['k', n] = MAP['k', n]", value: "false"}},
	"<>":                   {{sql: "a <> 7", value: "false", prefix: "<>(a, 7)"}},
	"<":                    {{sql: "b < a", value: "true", prefix: "<(b, a)"}},
	"<=":                   {{sql: "a <= 7", value: "true", prefix: "<=(a, 7)"}},
	">":                    {{sql: "d > 12.5", value: "false", prefix: ">(d, 12.5:DECIMAL(3, 1))"}},
	">=":                   {{sql: "d >= 12.5", value: "true", prefix: ">=(d, 12.5:DECIMAL(3, 1))"}},
	"IS DISTINCT FROM":     {{sql: "n IS DISTINCT FROM a", value: "true", prefix: "IS DISTINCT FROM(n, a)"}, {sql: "1 IS DISTINCT FROM NULL", value: "true", flink: true}, {sql: "NULL IS DISTINCT FROM NULL", value: "false", flink: true}},
	"IS NOT DISTINCT FROM": {{sql: "n IS NOT DISTINCT FROM n", value: "true", prefix: "IS NOT DISTINCT FROM(n, n)"}, {sql: "1 IS NOT DISTINCT FROM NULL", value: "false", flink: true}, {sql: "NULL IS NOT DISTINCT FROM NULL", value: "true", flink: true}},
	"AND":                  {{sql: "a > 1 AND n > 1", value: "null", prefix: "AND(>(a, 1), >(n, 1))"}},
	"OR": {{sql: "a > 1 OR n > 1", value: "true", prefix: "OR(>(a, 1), >(n, 1))"},
		// IN lists bind as ORs of =.
		{sql: "4 IN (1, 2, 3)", value: "false", flink: true}, {sql: "1 IN (1, 2, NULL)", value: "true", flink: true}, {sql: "4 IN (1, 2, NULL)", value: "null", flink: true},
		{sql: "4 NOT IN (1, 2, 3)", value: "true", flink: true}, {sql: "1 NOT IN (1, 2, NULL)", value: "false", flink: true}, {sql: "4 NOT IN (1, 2, NULL)", value: "null", flink: true}},
	// SEARCH comes from simplifying a filter condition (filter: true).
	"SEARCH": {{sql: "a IN (1, 7) OR a > 20", value: "true", prefix: "SEARCH(a, Sarg[1, 7, (20..+∞)])", filter: true},
		{sql: "a NOT IN (1, 7)", value: "false", filter: true}, {sql: "a BETWEEN 1 AND 7", value: "true", filter: true},
		{sql: "b < 0 OR b > 5", value: "true", filter: true}, {sql: "n = 1 OR n = 2", value: "null", filter: true},
		{sql: "s = 'a' OR s = 'Order-1001'", value: "true", filter: true}, {sql: "d <> 12.5 AND d <> 1", value: "false", filter: true}},
	"NOT":          {{sql: "NOT (s LIKE 'x%')", value: "true", prefix: "NOT(LIKE(s, 'x%'))"}, {sql: "NOT (a > 1)", value: "false"}},
	"IS NULL":      {{sql: "n IS NULL", value: "true", prefix: "IS NULL(n)"}, {sql: "(n > 1) IS UNKNOWN", value: "true"}},
	"IS NOT NULL":  {{sql: "n IS NOT NULL", value: "false", prefix: "IS NOT NULL(n)"}, {sql: "(n > 1) IS NOT UNKNOWN", value: "false"}},
	"IS TRUE":      {{sql: "(n > 1) IS TRUE", value: "false", prefix: "IS TRUE(>(n, 1))"}},
	"IS NOT TRUE":  {{sql: "(n > 1) IS NOT TRUE", value: "true", prefix: "IS NOT TRUE(>(n, 1))"}},
	"IS FALSE":     {{sql: "(a > 10) IS FALSE", value: "true", prefix: "IS FALSE(>(a, 10))"}},
	"IS NOT FALSE": {{sql: "(n > 1) IS NOT FALSE", value: "true", prefix: "IS NOT FALSE(>(n, 1))"}},
	"LIKE":         {{sql: "s LIKE 'Order-%'", value: "true", prefix: "LIKE(s, 'Order-%')"}, {sql: "s NOT LIKE 'Order-%'", value: "false"}},
	"ILIKE":        {{sql: "s ILIKE 'order%'", value: "true", prefix: "ILIKE(s, 'order%')"}},
	"SIMILAR TO": {{sql: "s SIMILAR TO 'Order-[0-9]+'", value: "true", prefix: "SIMILAR TO(s, 'Order-[0-9]+')"},
		{sql: "s NOT SIMILAR TO '%.1'", value: "false", prefix: "NOT(SIMILAR TO(s, '%.1'))"}},
	"CASE":             {{sql: "CASE WHEN a > 5 THEN 'big' ELSE 'small' END", value: "big", prefix: "CASE(>(a, 5), 'big':VARCHAR(5), 'small':VARCHAR(5))"}},
	"||":               {{sql: "s || '!'", value: "Order-1001!", prefix: "||(s, '!')"}},
	"CAST":             {{sql: "CAST(a AS STRING)", value: "7", prefix: "CAST(a AS VARCHAR(2147483647))"}},
	"TRY_CAST":         {{sql: "TRY_CAST(s AS INT)", value: "null", prefix: "TRY_CAST(s AS INTEGER)"}},
	"COALESCE":         {{sql: "COALESCE(n, a)", value: "7", prefix: "COALESCE(n, a)"}},
	"IFNULL":           {{sql: "IFNULL(n, a)", value: "7", prefix: "IFNULL(n, a)"}, {sql: "IFNULL(a, 0)", value: "7"}},
	"IF":               {{sql: "IF(a > 3, a, 3)", value: "7", prefix: "IF(>(a, 3), a, 3)"}, {sql: "IF(5 > 3, 5, 3)", value: "5", flink: true}},
	"CONCAT":           {{sql: "CONCAT(s, '-', s)", value: "Order-1001-Order-1001", prefix: "CONCAT(s, '-', s)"}, {sql: "CONCAT('AA', 'BB', 'CC')", value: "AABBCC", flink: true}},
	"UPPER":            {{sql: "UPPER(s)", value: "ORDER-1001", prefix: "UPPER(s)"}},
	"LOWER":            {{sql: "LOWER(s)", value: "order-1001", prefix: "LOWER(s)"}},
	"LTRIM":            {{sql: "LTRIM(s)", value: "Order-1001", prefix: "LTRIM(s)"}, {sql: "LTRIM(' This is a test String.')", value: "This is a test String.", flink: true}, {sql: "LTRIM(s, 'Odr')", value: "er-1001"}},
	"RTRIM":            {{sql: "RTRIM(s)", value: "Order-1001", prefix: "RTRIM(s)"}, {sql: "RTRIM('This is a test String. ')", value: "This is a test String.", flink: true}, {sql: "RTRIM(s, '10')", value: "Order-"}},
	"TRIM":             {{sql: "TRIM(LEADING 'O' FROM s)", value: "rder-1001", prefix: "TRIM(FLAG(LEADING), 'O', s)"}},
	"CHAR_LENGTH":      {{sql: "CHAR_LENGTH(s)", value: "10", prefix: "CHAR_LENGTH(s)"}},
	"CHARACTER_LENGTH": {{sql: "CHARACTER_LENGTH(s)", value: "10", prefix: "CHARACTER_LENGTH(s)"}},
	"SUBSTRING":        {{sql: "SUBSTRING(s, 7)", value: "1001", prefix: "SUBSTRING(s, 7)"}, {sql: "SUBSTR(s, 1, 5)", value: "Order"}},
	"ABS":              {{sql: "ABS(b)", value: "3", prefix: "ABS(b)"}},
	// FLOOR/CEIL(x TO unit): Flink's FloorCeilCallGen and
	// DateTimeUtils.julianDateFloor (ts is Tuesday 2024-01-02
	// 10:00:00.123; weeks start on Sunday).
	"FLOOR": {{sql: "FLOOR(d)", value: "12", prefix: "FLOOR(d)"},
		{sql: "FLOOR(ts TO MILLISECOND)", value: "2024-01-02T10:00:00.123"}, {sql: "FLOOR(ts TO SECOND)", value: "2024-01-02T10:00"},
		{sql: "FLOOR(ts TO MINUTE)", value: "2024-01-02T10:00"}, {sql: "FLOOR(ts TO HOUR)", value: "2024-01-02T10:00"},
		{sql: "FLOOR(ts TO DAY)", value: "2024-01-02T00:00"}, {sql: "FLOOR(ts TO WEEK)", value: "2023-12-31T00:00"},
		{sql: "FLOOR(ts TO MONTH)", value: "2024-01-01T00:00"}, {sql: "FLOOR(ts TO QUARTER)", value: "2024-01-01T00:00"},
		{sql: "FLOOR(ts TO YEAR)", value: "2024-01-01T00:00"}, {sql: "FLOOR(ts TO DECADE)", value: "2020-01-01T00:00"},
		{sql: "FLOOR(ts TO CENTURY)", value: "2001-01-01T00:00"}, {sql: "FLOOR(ts TO MILLENNIUM)", value: "2001-01-01T00:00"},
		{sql: "FLOOR(TIMESTAMP '1969-12-31 23:59:59.5' TO SECOND)", value: "1969-12-31T23:59:59"},
		{sql: "FLOOR(TO_TIMESTAMP_LTZ(90061, 0) TO HOUR)", value: "1970-01-02T01:00Z"},
		{sql: "FLOOR(dt TO MONTH)", value: "2024-01-01"}, {sql: "FLOOR(dt TO DAY)", value: "2024-01-02"}, {sql: "FLOOR(dt TO WEEK)", value: "2023-12-31"}},
	"CEIL": {{sql: "CEIL(d)", value: "13", prefix: "CEIL(d)"}, {sql: "CEILING(f)", value: "3.0"},
		{sql: "CEIL(ts TO SECOND)", value: "2024-01-02T10:00:01"}, {sql: "CEIL(ts TO MINUTE)", value: "2024-01-02T10:01"},
		{sql: "CEIL(ts TO HOUR)", value: "2024-01-02T11:00"}, {sql: "CEIL(ts TO DAY)", value: "2024-01-03T00:00"},
		{sql: "CEIL(ts TO WEEK)", value: "2024-01-07T00:00"}, {sql: "CEIL(ts TO MONTH)", value: "2024-02-01T00:00"},
		{sql: "CEIL(ts TO QUARTER)", value: "2024-04-01T00:00"}, {sql: "CEIL(ts TO YEAR)", value: "2025-01-01T00:00"},
		{sql: "CEIL(TIMESTAMP '2024-01-01 00:00:00' TO MINUTE)", value: "2024-01-01T00:00"},
		// julianDateFloor's ceil looks at the day only: the first day
		// of a year ceils to itself whatever its time (as Flink's).
		{sql: "CEIL(TIMESTAMP '2024-01-01 10:00:00' TO YEAR)", value: "2024-01-01T00:00"},
		{sql: "CEILING(dt TO MONTH)", value: "2024-02-01"}},
	"ROUND": {{sql: "ROUND(d, 1)", value: "12.5", prefix: "ROUND(d, 1)"}},
	"POWER": {{sql: "POWER(a, 2)", value: "49.0", prefix: "POWER(a, 2)"}, {sql: "POWER(d, 0.5)", value: "3.5355339059327378"},
		{sql: "POWER(2, -1)", value: "0.5"}, {sql: "POWER(n, 2)", value: "null"}},
	"CARDINALITY": {{sql: "CARDINALITY(ARRAY[a, b, 1])", value: "3", prefix: "CARDINALITY(ARRAY(a, b, 1))"}, {sql: "CARDINALITY(MAP['k', a])", value: "1"}},
	"ITEM": {{sql: "ARRAY[a, b][2]", value: "-3", prefix: "ITEM(ARRAY(a, b), 2)"}, {sql: "ARRAY[a][3]", value: "null"},
		{sql: "MAP['k', a]['k']", value: "7"}, {sql: "MAP['k', a]['x']", value: "null"}},
	"OVERLAY": {{sql: "OVERLAY(s PLACING 'X' FROM 2 FOR 3)", value: "OXr-1001", prefix: "OVERLAY(s, 'X', 2, 3)"},
		{sql: "OVERLAY('This is an old string' PLACING ' new' FROM 10 FOR 5)", value: "This is a new string", flink: true},
		{sql: "OVERLAY('xxxxxtest' PLACING 'xxxx' FROM 6)", value: "xxxxxxxxx", flink: true}},
	"REGEXP":         {{sql: "REGEXP(s, '[0-9]+')", value: "true", prefix: "REGEXP(s, '[0-9]+')"}, {sql: "REGEXP(s, '')", value: "false"}},
	"REGEXP_REPLACE": {{sql: "REGEXP_REPLACE(s, '[0-9]', '#')", value: "Order-####", prefix: "REGEXP_REPLACE(s, '[0-9]', '#')"}, {sql: "REGEXP_REPLACE('foobar', 'oo|ar', '')", value: "fb", flink: true}},
	"REGEXP_EXTRACT": {{sql: "REGEXP_EXTRACT(s, '([a-z]+)-(\\d+)', 2)", value: "1001", prefix: "REGEXP_EXTRACT(s, '([a-z]+)-(\\d+)', 2)"}, {sql: "REGEXP_EXTRACT('foothebar', 'foo(.*?)(bar)', 2)", value: "bar", flink: true}},
	"ELEMENT":        {{sql: "ELEMENT(ARRAY[s])", value: "Order-1001", prefix: "ELEMENT(ARRAY(s))"}, {sql: "ELEMENT(CAST(NULL AS ARRAY<INT>))", value: "null"}},
	// Array functions (ArrayAppendFunction ... ArraySliceFunction);
	// testdata/flinkfuncs/collection runs Flink's CollectionFunctionsITCase.
	"ARRAY_APPEND":   {{sql: "ARRAY_APPEND(ARRAY[a], 1)", value: "[7, 1]", prefix: "ARRAY_APPEND(ARRAY(a), 1)"}, {sql: "ARRAY_APPEND(ARRAY[a], n)", value: "[7, null]"}},
	"ARRAY_PREPEND":  {{sql: "ARRAY_PREPEND(ARRAY[a], 1)", value: "[1, 7]", prefix: "ARRAY_PREPEND(ARRAY(a), 1)"}},
	"ARRAY_CONTAINS": {{sql: "ARRAY_CONTAINS(ARRAY[a, n], 7)", value: "true", prefix: "ARRAY_CONTAINS(ARRAY(a, n), 7)"}, {sql: "ARRAY_CONTAINS(ARRAY[a, n], n)", value: "true"}, {sql: "ARRAY_CONTAINS(ARRAY[a], 1)", value: "false"}},
	"ARRAY_POSITION": {{sql: "ARRAY_POSITION(ARRAY[1, a, a], a)", value: "2", prefix: "ARRAY_POSITION(ARRAY(1, a, a), a)"}, {sql: "ARRAY_POSITION(ARRAY[a], 1)", value: "0"}, {sql: "ARRAY_POSITION(ARRAY[a], n)", value: "null"}},
	"ARRAY_REMOVE":   {{sql: "ARRAY_REMOVE(ARRAY[a, 1, a], a)", value: "[1]", prefix: "ARRAY_REMOVE(ARRAY(a, 1, a), a)"}},
	"ARRAY_DISTINCT": {{sql: "ARRAY_DISTINCT(ARRAY[a, n, a, n])", value: "[7, null]", prefix: "ARRAY_DISTINCT(ARRAY(a, n, a, n))"}},
	"ARRAY_REVERSE":  {{sql: "ARRAY_REVERSE(ARRAY[a, 1])", value: "[1, 7]", prefix: "ARRAY_REVERSE(ARRAY(a, 1))"}},
	"ARRAY_UNION":    {{sql: "ARRAY_UNION(ARRAY[a, 1], ARRAY[1, 2])", value: "[7, 1, 2]", prefix: "ARRAY_UNION(ARRAY(a, 1), ARRAY(1, 2))"}},
	"ARRAY_EXCEPT":   {{sql: "ARRAY_EXCEPT(ARRAY[a, 1, a], ARRAY[1])", value: "[7]", prefix: "ARRAY_EXCEPT(ARRAY(a, 1, a), ARRAY(1))"}},
	"ARRAY_CONCAT":   {{sql: "ARRAY_CONCAT(ARRAY[a], ARRAY[1], ARRAY[a])", value: "[7, 1, 7]", prefix: "ARRAY_CONCAT(ARRAY(a), ARRAY(1), ARRAY(a))"}},
	"ARRAY_MAX":      {{sql: "ARRAY_MAX(ARRAY[a, n, 1])", value: "7", prefix: "ARRAY_MAX(ARRAY(a, n, 1))"}, {sql: "ARRAY_MAX(ARRAY[n])", value: "null"}},
	"ARRAY_MIN":      {{sql: "ARRAY_MIN(ARRAY[a, n, 1])", value: "1", prefix: "ARRAY_MIN(ARRAY(a, n, 1))"}},
	"ARRAY_JOIN":     {{sql: "ARRAY_JOIN(ARRAY[s, 'x'], '+')", value: "Order-1001+x", prefix: "ARRAY_JOIN(ARRAY(s, 'x'), '+')"}, {sql: "ARRAY_JOIN(ARRAY[s, NULL, 'x'], '+')", value: "Order-1001+x"}, {sql: "ARRAY_JOIN(ARRAY[s, NULL], '+', '?')", value: "Order-1001+?"}},
	"ARRAY_SLICE":    {{sql: "ARRAY_SLICE(ARRAY[a, 1, 2], 2)", value: "[1, 2]", prefix: "ARRAY_SLICE(ARRAY(a, 1, 2), 2)"}, {sql: "ARRAY_SLICE(ARRAY[a, 1, 2], -2, -2)", value: "[1]"}},
	// Map functions (MapKeysFunction, MapValuesFunction, MapEntriesFunction, MapFromArraysFunction, MapUnionFunction).
	"SPLIT":           {{sql: "SPLIT('a,,b', ',')", value: "[a, , b]", prefix: "SPLIT('a,,b', ',')"}, {sql: "SPLIT('', ',')", value: "[]"}, {sql: "SPLIT(s, '')", value: "[O, r, d, e, r, -, 1, 0, 0, 1]"}},
	"MAP_KEYS":        {{sql: "MAP_KEYS(MAP['k', a, 'l', 1])", value: "[k, l]", prefix: "MAP_KEYS(MAP('k', a, 'l', 1))"}},
	"MAP_VALUES":      {{sql: "MAP_VALUES(MAP['k', a, 'l', 1])", value: "[7, 1]", prefix: "MAP_VALUES(MAP('k', a, 'l', 1))"}},
	"MAP_ENTRIES":     {{sql: "MAP_ENTRIES(MAP['k', a])", value: "[+I[k, 7]]", prefix: "MAP_ENTRIES(MAP('k', a))"}},
	"MAP_FROM_ARRAYS": {{sql: "MAP_FROM_ARRAYS(ARRAY['k', s], ARRAY[a, n])", value: "{k=7, Order-1001=null}", prefix: "MAP_FROM_ARRAYS(ARRAY('k', s), ARRAY(a, n))"}},
	// MapUnionFunction: the later map's entries first, then the earlier ones' other keys.
	"MAP_UNION": {{sql: "MAP_UNION(MAP['k', a, 'l', 1], MAP['l', 2, 'm', 3])", value: "{l=2, m=3, k=7}", prefix: "MAP_UNION(MAP('k', a, 'l', 1), MAP('l', 2, 'm', 3))"},
		{sql: "MAP_UNION(MAP['k', a], MAP['k', n])", value: "{k=null}"}, {sql: "MAP_UNION(MAP['k', a], CAST(NULL AS MAP<STRING, INT>))", value: "null"}},
	// String functions (StringCallGen, SqlFunctionUtils, BinaryStringDataUtil).
	"NULLIF":      {{sql: "NULLIF(a, 7)", value: "null", prefix: "NULLIF(a, 7)"}, {sql: "NULLIF(s, 'x')", value: "Order-1001"}, {sql: "NULLIF(n, 1)", value: "null"}},
	"POSITION":    {{sql: "POSITION('1' IN s)", value: "7", prefix: "POSITION('1', s)"}, {sql: "POSITION('' IN s)", value: "1"}, {sql: "POSITION('z' IN s)", value: "0"}},
	"LOCATE":      {{sql: "LOCATE('1', s, 8)", value: "10", prefix: "LOCATE('1', s, 8)"}, {sql: "LOCATE('1', s)", value: "7"}, {sql: "LOCATE('1', s, 11)", value: "0"}},
	"INITCAP":     {{sql: "INITCAP('hELLO wORLD-x1y')", value: "Hello World-X1y", prefix: "INITCAP('hELLO wORLD-x1y')"}},
	"REPLACE":     {{sql: "REPLACE(s, '0', 'o')", value: "Order-1oo1", prefix: "REPLACE(s, '0', 'o')"}, {sql: "REPLACE('ab', '', '-')", value: "-a-b-"}},
	"REPEAT":      {{sql: "REPEAT('ab', 3)", value: "ababab", prefix: "REPEAT('ab', 3)"}, {sql: "REPEAT('ab', -1)", value: ""}},
	"LPAD":        {{sql: "LPAD('hi', 5, 'xy')", value: "xyxhi", prefix: "LPAD('hi', 5, 'xy')"}, {sql: "LPAD('hello', 2, 'x')", value: "he"}, {sql: "LPAD('hi', -1, 'x')", value: "null"}, {sql: "LPAD('hi', 4, '')", value: "null"}},
	"RPAD":        {{sql: "RPAD('hi', 5, 'xy')", value: "hixyx", prefix: "RPAD('hi', 5, 'xy')"}, {sql: "RPAD('hello', 2, 'x')", value: "he"}},
	"LEFT":        {{sql: "LEFT(s, 5)", value: "Order", prefix: "LEFT(s, 5)"}, {sql: "LEFT(s, 0)", value: ""}, {sql: "LEFT(s, 50)", value: "Order-1001"}},
	"RIGHT":       {{sql: "RIGHT(s, 4)", value: "1001", prefix: "RIGHT(s, 4)"}, {sql: "RIGHT(s, -1)", value: ""}, {sql: "RIGHT(s, 50)", value: "Order-1001"}},
	"REVERSE":     {{sql: "REVERSE(s)", value: "1001-redrO", prefix: "REVERSE(s)"}},
	"SPLIT_INDEX": {{sql: "SPLIT_INDEX(s, '-', 1)", value: "1001", prefix: "SPLIT_INDEX(s, '-', 1)"}, {sql: "SPLIT_INDEX('a,,b,', ',', 3)", value: ""}, {sql: "SPLIT_INDEX('a,b', ',', 2)", value: "null"}, {sql: "SPLIT_INDEX('a b', '', 1)", value: "b"}, {sql: "SPLIT_INDEX('a-b', 45, 0)", value: "a"}},
	"CONCAT_WS":   {{sql: "CONCAT_WS('-', s, 'x')", value: "Order-1001-x", prefix: "CONCAT_WS('-', s, 'x')"}, {sql: "CONCAT_WS('-', 'a', CAST(NULL AS STRING), 'b')", value: "a-b"}, {sql: "CONCAT_WS(CAST(NULL AS STRING), 'a')", value: "null"}},
	"MD5":         {{sql: "MD5('test')", value: "098f6bcd4621d373cade4e832627b4f6", prefix: "MD5('test')"}},
	"SHA1":        {{sql: "SHA1('test')", value: "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3", prefix: "SHA1('test')"}},
	"SHA224":      {{sql: "SHA224('test')", value: "90a3ed9e32b2aaf4c61c410eb925426119e1a9dc53d4286ade99a809", prefix: "SHA224('test')"}},
	"SHA256":      {{sql: "SHA256('test')", value: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", prefix: "SHA256('test')"}},
	"SHA384":      {{sql: "SHA384('')", value: "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b", prefix: "SHA384('')"}},
	"SHA512":      {{sql: "SHA512('')", value: "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e", prefix: "SHA512('')"}},
	"SHA2":        {{sql: "SHA2('test', 1)", value: "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3", prefix: "SHA2('test', 1)"}},
	"TO_BASE64":   {{sql: "TO_BASE64('hello world')", value: "aGVsbG8gd29ybGQ=", prefix: "TO_BASE64('hello world')"}},
	"FROM_BASE64": {{sql: "FROM_BASE64('aGVsbG8gd29ybGQ=')", value: "hello world", prefix: "FROM_BASE64('aGVsbG8gd29ybGQ=')"}, {sql: "FROM_BASE64('aGVsbG8gd29ybGQ')", value: "hello world"},
		// A cut UTF-8 sequence (E4 BD) is one U+FFFD, as Java's new String.
		{sql: "FROM_BASE64('5L0=')", value: "\uFFFD"}},
	"ASCII": {{sql: "ASCII(s)", value: "79", prefix: "ASCII(s)"}, {sql: "ASCII('')", value: "0"}, {sql: "ASCII('é')", value: "-61"}},
	"CHR":   {{sql: "CHR(65)", value: "A", prefix: "CHR(65)"}, {sql: "CHR(321)", value: "A"}, {sql: "CHR(-1)", value: ""}},
	// More string and encoding functions (expr/strfuncs2.go); the
	// values of the cases not marked flink are Java 17's (java.net.URL,
	// URLEncoder, URLDecoder, String.getBytes, new String, HashMap).
	"INSTR": {{sql: "INSTR(s, '0')", value: "8", prefix: "INSTR(s, '0')"}, {sql: "INSTR(s, '0', 1, 2)", value: "9"}, {sql: "INSTR(s, '0', -1)", value: "9"},
		{sql: "INSTR(s, '0', 0)", value: "0"}, {sql: "INSTR(s, '', 3)", value: "1"}, {sql: "INSTR(s, 'x', n)", value: "null"}},
	"IS_DECIMAL": {{sql: "IS_DECIMAL(s)", value: "false", prefix: "IS_DECIMAL(s)"}, {sql: "IS_DECIMAL('1.5e3')", value: "true"}, {sql: "IS_DECIMAL(' 7 ')", value: "true"},
		{sql: "IS_DECIMAL('0x1p3')", value: "true"}, {sql: "IS_DECIMAL('1e')", value: "false"}, {sql: "IS_DECIMAL('')", value: "false"},
		// A number is tested by its boxed Java class: DecimalData is no
		// java.lang.Number the test knows; a NULL INT is a boxed default.
		{sql: "IS_DECIMAL(a)", value: "true"}, {sql: "IS_DECIMAL(f)", value: "true"}, {sql: "IS_DECIMAL(d)", value: "false"}, {sql: "IS_DECIMAL(n)", value: "true"}},
	"IS_DIGIT": {{sql: "IS_DIGIT(SUBSTRING(s, 7))", value: "true", prefix: "IS_DIGIT(SUBSTRING(s, 7))"}, {sql: "IS_DIGIT('١٢٣')", value: "true"}, {sql: "IS_DIGIT('-1')", value: "false"},
		{sql: "IS_DIGIT(CAST(NULL AS STRING))", value: "false"}, {sql: "IS_DIGIT(b)", value: "true"}, {sql: "IS_DIGIT(f)", value: "false"}},
	"IS_ALPHA": {{sql: "IS_ALPHA(s)", value: "false", prefix: "IS_ALPHA(s)"}, {sql: "IS_ALPHA('Ordér')", value: "true"}, {sql: "IS_ALPHA('')", value: "false"}, {sql: "IS_ALPHA(a)", value: "false"}},
	"STR_TO_MAP": {{sql: "STR_TO_MAP('b=1,a=2,c,a=3')", value: "{a=3, b=1, c=null}", prefix: "STR_TO_MAP('b=1,a=2,c,a=3')"},
		{sql: "STR_TO_MAP('zz=1,aa=2,mm=3,q=6,ab=16')", value: "{zz=1, aa=2, mm=3, q=6, ab=16}"},
		{sql: "STR_TO_MAP(s, '-', 'r')", value: "{O=der, 1001=null}"}, {sql: "STR_TO_MAP(',')", value: "{}"}, {sql: "STR_TO_MAP('a1b2', '\\d', 'x')", value: "{a=null, b=null}"}},
	"PARSE_URL": {{sql: "PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'HOST')", value: "facebook.com", prefix: "PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'HOST')", flink: true},
		{sql: "PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'QUERY', 'k1')", value: "v1", flink: true},
		{sql: "PARSE_URL('HTTP://h:8080/a?b?c#d#e', 'QUERY')", value: "b?c"}, {sql: "PARSE_URL('http://h:8080/a?b?c#d#e', 'REF')", value: "d#e"},
		{sql: "PARSE_URL('http://h:8080/a', 'AUTHORITY')", value: "h:8080"}, {sql: "PARSE_URL('http://h:x/a', 'HOST')", value: "null"},
		{sql: "PARSE_URL('mailto:a@b.com?subject=hi', 'PATH')", value: "a@b.com"}, {sql: "PARSE_URL('http://h/a', 'host')", value: "null"},
		{sql: "PARSE_URL(s, 'HOST')", value: "null"}, {sql: "PARSE_URL('jar:file:/a.jar!/b', 'PATH')", refused: "sqlrun does not parse jar: URLs"}},
	"URL_ENCODE": {{sql: "URL_ENCODE('a b/é')", value: "a+b%2F%C3%A9", prefix: "URL_ENCODE('a b/é')"}},
	"URL_DECODE": {{sql: "url_decode('a+b%2F%C3%A9')", value: "a b/é", prefix: "url_decode('a+b%2F%C3%A9')"}, {sql: "URL_DECODE('%E4%BD')", value: "\uFFFD"},
		{sql: "URL_DECODE('100%')", value: "null"}},
	"ENCODE": {{sql: "ENCODE('aé', 'UTF-16')", value: "x'feff006100e9'", prefix: "ENCODE('aé', 'UTF-16')"}, {sql: "ENCODE('aé中', 'US-ASCII')", value: "x'613f3f'"},
		{sql: "ENCODE(s, 'GBK')", refused: "sqlrun encodes only the character sets"}},
	"DECODE": {{sql: "DECODE(ENCODE(s, 'UTF-16LE'), 'utf-16le')", value: "Order-1001", prefix: "DECODE(ENCODE(s, 'UTF-16LE'), 'utf-16le')"}, {sql: "DECODE(X'FFFE6100', 'UTF-16')", value: "a"},
		{sql: "DECODE(X'D8000061', 'UTF-16BE')", value: "\uFFFD"}, {sql: "DECODE(X'E4BD41', 'UTF-8')", value: "\uFFFDA"}, {sql: "DECODE(X'E9', 'latin1')", value: "é"}},
	"BIN": {{sql: "BIN(a)", value: "111", prefix: "BIN(a)"}, {sql: "BIN(4)", value: "100", flink: true}, {sql: "BIN(12)", value: "1100", flink: true},
		{sql: "BIN(b)", value: "1111111111111111111111111111111111111111111111111111111111111101"}, {sql: "BIN(n)", value: "null"}},
	"HEX": {{sql: "HEX(b)", value: "FFFFFFFFFFFFFFFD", prefix: "HEX(b)"}, {sql: "HEX(20)", value: "14", flink: true}, {sql: "HEX(100)", value: "64", flink: true},
		{sql: "HEX('hello,world')", value: "68656C6C6F2C776F726C64", flink: true}},
	// Mathematical functions: java.lang.Math on doubles (SqlFunctionUtils).
	"SQRT":    {{sql: "SQRT(d)", value: "3.5355339059327378", prefix: "SQRT(d)"}, {sql: "SQRT(-1)", value: "NaN"}, {sql: "SQRT(n)", value: "null"}},
	"LN":      {{sql: "LN(a)", value: "1.9459101490553132", prefix: "LN(a)"}, {sql: "LN(0)", value: "-Infinity"}},
	"LOG10":   {{sql: "LOG10(1000)", value: "3.0", prefix: "LOG10(1000)"}},
	"LOG2":    {{sql: "LOG2(8)", value: "3.0", prefix: "LOG2(8)"}},
	"LOG":     {{sql: "LOG(a)", value: "1.9459101490553132", prefix: "LOG(a)"}, {sql: "LOG(2, 1024)", value: "10.0"}},
	"EXP":     {{sql: "EXP(f)", value: "12.182493960703473", prefix: "EXP(f)"}},
	"SIN":     {{sql: "SIN(f)", value: "0.5984721441039564", prefix: "SIN(f)"}},
	"COS":     {{sql: "COS(f)", value: "-0.8011436155469337", prefix: "COS(f)"}},
	"TAN":     {{sql: "TAN(f)", value: "-0.7470222972386603", prefix: "TAN(f)"}},
	"COT":     {{sql: "COT(f)", value: "-1.3386481283041514", prefix: "COT(f)"}},
	"ASIN":    {{sql: "ASIN(0.5)", value: "0.5235987755982989", prefix: "ASIN(0.5:DECIMAL(1, 1))"}},
	"ACOS":    {{sql: "ACOS(0.5)", value: "1.0471975511965979", prefix: "ACOS(0.5:DECIMAL(1, 1))"}, {sql: "ACOS(2)", value: "NaN"}, {sql: "ACOS(-1)", value: "3.141592653589793"}},
	"ATAN":    {{sql: "ATAN(0.5)", value: "0.4636476090008061", prefix: "ATAN(0.5:DECIMAL(1, 1))"}},
	"ATAN2":   {{sql: "ATAN2(b, a)", value: "-0.4048917862850834", prefix: "ATAN2(b, a)"}},
	"SINH":    {{sql: "SINH(f)", value: "6.0502044810397875", prefix: "SINH(f)"}},
	"COSH":    {{sql: "COSH(f)", value: "6.132289479663686", prefix: "COSH(f)"}},
	"TANH":    {{sql: "TANH(f)", value: "0.9866142981514303", prefix: "TANH(f)"}},
	"DEGREES": {{sql: "DEGREES(0.5)", value: "28.64788975654116", prefix: "DEGREES(0.5:DECIMAL(1, 1))"}},
	"RADIANS": {{sql: "RADIANS(0.5)", value: "0.008726646259971648", prefix: "RADIANS(0.5:DECIMAL(1, 1))"}},
	"SIGN":    {{sql: "SIGN(b)", value: "-1", prefix: "SIGN(b)"}, {sql: "SIGN(d)", value: "1.00"}, {sql: "SIGN(f)", value: "1.0"}, {sql: "SIGN(n)", value: "null"}},
	"PI":      {{sql: "PI()", value: "3.141592653589793", prefix: "PI()"}},
	"E":       {{sql: "E()", value: "2.718281828459045", prefix: "E()"}},
	"TRUNCATE": {{sql: "TRUNCATE(d, 1)", value: "12.5", prefix: "TRUNCATE(d, 1)"}, {sql: "TRUNCATE(f)", value: "2.0"}, {sql: "TRUNCATE(b, -1)", value: "0"},
		{sql: "TRUNCATE(1234, -2)", value: "1200"}, {sql: "TRUNCATE(-2.57, 1)", value: "-2.5"}},
	"CURRENT_TIMESTAMP":     {{sql: "CURRENT_TIMESTAMP", value: "*", prefix: "CURRENT_TIMESTAMP()"}},
	"NOW":                   {{sql: "NOW()", value: "*", prefix: "NOW()"}},
	"CURRENT_ROW_TIMESTAMP": {{sql: "CURRENT_ROW_TIMESTAMP()", value: "*", prefix: "CURRENT_ROW_TIMESTAMP()"}},
	"PROCTIME":              {{sql: "PROCTIME()", value: "*", prefix: "PROCTIME()"}},
	"PROCTIME_MATERIALIZE":  {{sql: "PROCTIME_MATERIALIZE(ts)", value: "2024-01-02T10:00:00.123", prefix: "PROCTIME_MATERIALIZE(ts)"}},
	// Calcite's internal Reinterpret: a query cannot call it, as in Flink.
	"Reinterpret":    {{sql: "Reinterpret(ts)", refused: "No match found for function signature REINTERPRET(<TIMESTAMP>)"}},
	"LOCALTIMESTAMP": {{sql: "LOCALTIMESTAMP", value: "*", prefix: "LOCALTIMESTAMP()"}},
	"CURRENT_DATE":   {{sql: "CURRENT_DATE", value: "*", prefix: "CURRENT_DATE()"}},
	"LOCALTIME":      {{sql: "LOCALTIME", value: "*", prefix: "LOCALTIME()"}},
	"CURRENT_TIME":   {{sql: "CURRENT_TIME", value: "*", prefix: "CURRENT_TIME()"}},
	"DATE_FORMAT":    {{sql: "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm')", value: "2024-01-02 10:00", prefix: "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm')"}},
	"TO_TIMESTAMP":   {{sql: "TO_TIMESTAMP(s)", value: "null", prefix: "TO_TIMESTAMP(s)"}, {sql: "TO_TIMESTAMP('2024-01-02 10:00:00')", value: "2024-01-02T10:00"}},
	// MiscFunctionsITCase's TYPE_OF spec; the serializable forms are
	// LogicalType.asSerializableString's.
	"TYPEOF": {{sql: "TYPEOF(a)", value: "INT NOT NULL", prefix: "TYPEOF(a)"}, {sql: "TYPEOF(NULL)", value: "NULL"},
		{sql: "TYPEOF(s)", value: "STRING"}, {sql: "TYPEOF(s, TRUE)", value: "VARCHAR(2147483647)"}, {sql: "TYPEOF(s, FALSE)", value: "STRING"},
		{sql: "TYPEOF(CAST(ts AS TIMESTAMP_LTZ(3)), TRUE)", value: "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
		{sql: "TYPEOF(CAST(ts AS TIMESTAMP_LTZ(3)))", value: "TIMESTAMP_LTZ(3)"},
		{sql: "TYPEOF(r, TRUE)", value: "ROW<`x` INT NOT NULL, `y` VARCHAR(2147483647)>"},
		{sql: "TYPEOF(ARRAY[s], TRUE)", value: "ARRAY<VARCHAR(2147483647)> NOT NULL"},
		{sql: "TYPEOF('', TRUE)", value: "null"}, {sql: "TYPEOF('')", value: "CHAR(0) NOT NULL"},
		{sql: "TYPEOF(a, a > 1)", refused: "SQL validation failed. Invalid function call:\nTYPEOF(INT NOT NULL, BOOLEAN NOT NULL)"}},
	// TemporalTypesTest.testToTimestampLtz / testBoundaryForToTimestampLtz.
	"TO_TIMESTAMP_LTZ": {{sql: "TO_TIMESTAMP_LTZ(a, 0)", value: "1970-01-01T00:00:07Z", prefix: "TO_TIMESTAMP_LTZ(a, 0)"},
		{sql: "TO_TIMESTAMP_LTZ(-100, 0)", value: "1969-12-31T23:58:20Z"}, {sql: "TO_TIMESTAMP_LTZ(253402300799999, 3)", value: "9999-12-31T23:59:59.999Z"},
		{sql: "TO_TIMESTAMP_LTZ(253402300800000, 3)", value: "null"}},
	// Flink's documented examples (sql_functions.yml), in UTC.
	"FROM_UNIXTIME": {{sql: "FROM_UNIXTIME(a)", value: "1970-01-01 00:00:07", prefix: "FROM_UNIXTIME(a)"},
		{sql: "FROM_UNIXTIME(44)", value: "1970-01-01 00:00:44", flink: true}, {sql: "FROM_UNIXTIME(86400 * 366, 'yyyy/MM/dd')", value: "1971/01/02"},
		{sql: "FROM_UNIXTIME(n)", value: "null"}},
	"UNIX_TIMESTAMP": {{sql: "UNIX_TIMESTAMP()", value: "*", prefix: "UNIX_TIMESTAMP()"},
		{sql: "UNIX_TIMESTAMP('1970-01-01 00:00:44')", value: "44"}, {sql: "UNIX_TIMESTAMP('1970-01-01 00:00:44.999')", value: "44"}, {sql: "UNIX_TIMESTAMP('1971/01/02', 'yyyy/MM/dd')", value: "31622400"},
		// "If the date time string can not be parsed, the default value
		// Long.MIN_VALUE(-9223372036854775808) will be returned."
		{sql: "UNIX_TIMESTAMP(s)", value: "-9223372036854775808", flink: true}},
	// EXTRACT and the date-part functions (Calcite's SqlDatePartFunction
	// rewrites YEAR(x) to EXTRACT(YEAR FROM x)), as Flink's
	// ExtractCallGen and DateTimeUtils.unixDateExtract compute them;
	// cases marked flink are sql_functions.yml's examples.
	"EXTRACT": {{sql: "EXTRACT(DAY FROM ts)", value: "2", prefix: "EXTRACT(FLAG(DAY), ts)"},
		{sql: "EXTRACT(DAY FROM DATE '2006-06-05')", value: "5", flink: true},
		// ExtractCallGen over an interval's milliseconds or months.
		{sql: "EXTRACT(HOUR FROM INTERVAL '1 10:17:36.789' DAY TO SECOND(3))", value: "10"},
		{sql: "EXTRACT(MILLISECOND FROM -INTERVAL '1 10:17:36.789' DAY TO SECOND(3))", value: "-789"},
		{sql: "EXTRACT(YEAR FROM INTERVAL '2-7' YEAR TO MONTH)", value: "2"}, {sql: "EXTRACT(MONTH FROM INTERVAL '2-7' YEAR TO MONTH)", value: "7"},
		{sql: "EXTRACT(QUARTER FROM INTERVAL '2-7' YEAR TO MONTH)", value: "3"},
		{sql: "YEAR(DATE '1994-09-27')", value: "1994", flink: true}, {sql: "QUARTER(DATE '1994-09-27')", value: "3", flink: true},
		{sql: "MONTH(DATE '1994-09-27')", value: "9", flink: true}, {sql: "WEEK(DATE '1994-09-27')", value: "39", flink: true},
		{sql: "DAYOFYEAR(DATE '1994-09-27')", value: "270", flink: true}, {sql: "DAYOFMONTH(DATE '1994-09-27')", value: "27", flink: true},
		{sql: "DAYOFWEEK(DATE '1994-09-27')", value: "3", flink: true},
		{sql: "HOUR(TIMESTAMP '1994-09-27 13:14:15')", value: "13", flink: true}, {sql: "MINUTE(TIMESTAMP '1994-09-27 13:14:15')", value: "14", flink: true},
		{sql: "SECOND(TIMESTAMP '1994-09-27 13:14:15')", value: "15", flink: true},
		{sql: "YEAR(ts)", value: "2024"}, {sql: "EXTRACT(QUARTER FROM ts)", value: "1"}, {sql: "EXTRACT(WEEK FROM dt)", value: "1"},
		{sql: "EXTRACT(WEEK FROM DATE '2021-01-01')", value: "53"}, {sql: "DAYOFWEEK(ts)", value: "3"},
		{sql: "EXTRACT(MICROSECOND FROM ts)", value: "123000"},
		{sql: "HOUR(TIME '13:14:15')", value: "13"}, {sql: "YEAR(CAST(NULL AS DATE))", value: "null"},
		// ExtractCallGen divides the milliseconds as Java does: before
		// 1970 the day rounds toward 1970 and the hour reads negative.
		{sql: "EXTRACT(DAY FROM TIMESTAMP '1969-12-31 23:00:00')", value: "1"}, {sql: "HOUR(TIMESTAMP '1969-12-31 23:00:00')", value: "-1"}},
	// TIMESTAMPADD is ts + INTERVAL * n (Calcite's TimestampAddConvertlet,
	// which the binder applies; months through DateTimeUtils.addMonths).
	// Calcite's DIVIDE_INTEGER, of TIMESTAMPDIFF's conversion.
	"/INT": {{sql: "TIMESTAMPDIFF(SECOND, TIMESTAMP '2024-01-01 00:00:00', ts)", value: "122400", prefix: "CAST(/INT(Reinterpret(-(ts, 2024-01-01 00:00:00:TIMESTAMP(0))), 1000) AS INTEGER)", converted: true},
		{sql: "TIMESTAMPDIFF(WEEK, ts, TIMESTAMP '2023-01-01 00:00:00')", value: "-52"}},
	"TIMESTAMPADD": {{sql: "TIMESTAMPADD(DAY, 1, ts)", value: "2024-01-03T10:00:00.123", prefix: "+(ts, *(86400000:INTERVAL DAY, 1))", converted: true},
		{sql: "TIMESTAMPADD(WEEK, 1, DATE '2003-01-02')", value: "2003-01-09", flink: true},
		{sql: "TIMESTAMPADD(HOUR, -11, ts)", value: "2024-01-01T23:00:00.123"}, {sql: "TIMESTAMPADD(MONTH, 1, TIMESTAMP '2024-01-31 10:00:00')", value: "2024-02-29T10:00"},
		{sql: "TIMESTAMPADD(QUARTER, -1, dt)", value: "2023-10-02"}, {sql: "TIMESTAMPADD(YEAR, 1, DATE '2024-02-29')", value: "2025-02-28"},
		{sql: "TIMESTAMPADD(SECOND, n, ts)", value: "null"}},
	// TIMESTAMPDIFF is CAST((b - a) unit AS INTEGER) (Calcite's
	// TimestampDiffConvertlet, which the binder applies, and
	// RexBuilder.makeCastIntervalToExact; months through
	// DateTimeUtils.subtractMonths).
	"TIMESTAMPDIFF": {{sql: "TIMESTAMPDIFF(HOUR, ts, TIMESTAMPADD(DAY, 1, ts))", value: "24", prefix: "CAST(/INT(Reinterpret(-(+(ts, *(86400000:INTERVAL DAY, 1)), ts)), 3600000) AS INTEGER)", converted: true},
		{sql: "TIMESTAMPDIFF(DAY, dt, ts)", value: "0"}, {sql: "TIMESTAMPDIFF(HOUR, dt, ts)", value: "10"},
		{sql: "TIMESTAMPDIFF(WEEK, DATE '2023-12-18', ts)", value: "2"},
		{sql: "TIMESTAMPDIFF(HOUR, TIMESTAMP '2024-01-01 00:00:00', ts)", value: "34"},
		{sql: "TIMESTAMPDIFF(DAY, TIMESTAMP '2003-01-02 10:00:00', TIMESTAMP '2003-01-03 10:00:00')", value: "1", flink: true},
		{sql: "TIMESTAMPDIFF(DAY, TIMESTAMP '2003-01-03 10:00:00', TIMESTAMP '2003-01-02 09:00:00')", value: "-1"},
		{sql: "TIMESTAMPDIFF(MONTH, TIMESTAMP '2024-01-31 10:00:00', TIMESTAMP '2024-02-29 09:00:00')", value: "0"},
		{sql: "TIMESTAMPDIFF(MONTH, TIMESTAMP '2024-01-31 10:00:00', TIMESTAMP '2024-02-29 10:00:00')", value: "1"},
		{sql: "TIMESTAMPDIFF(YEAR, DATE '2000-03-01', dt)", value: "23"}, {sql: "TIMESTAMPDIFF(QUARTER, dt, DATE '2023-01-01')", value: "-4"},
		{sql: "TIMESTAMPDIFF(WEEK, DATE '2023-12-18', dt)", value: "2"}, {sql: "TIMESTAMPDIFF(SECOND, ts, ts)", value: "0"},
		{sql: "TIMESTAMPDIFF(MINUTE, ts, CAST(NULL AS TIMESTAMP(3)))", value: "null"}},
	// TO_DATE(s) is DateTimeUtils.parseDate, NULL for what is no date.
	"TO_DATE": {{sql: "TO_DATE('2024-03-10')", value: "2024-03-10", prefix: "TO_DATE('2024-03-10')"},
		{sql: "TO_DATE('2024-03-10 10:11:12')", value: "2024-03-10"}, {sql: "TO_DATE('2024-02-30')", value: "null"},
		{sql: "TO_DATE(s)", value: "null"}, {sql: "TO_DATE('10/03/2024', 'dd/MM/yyyy')", value: "2024-03-10"},
		{sql: "TO_DATE('x', 'dd/MM/yyyy')", value: "null"}},
	// Aggregates bind here; the runtime's aggregate operators compute them.
	"ARRAY": {{sql: "ARRAY[a, b, 1]", value: "[7, -3, 1]", prefix: "ARRAY(a, b, 1)"}, {sql: "ARRAY[d, 1]", value: "[12.50, 1.00]"}},
	"DOT":   {{sql: "r.x", value: "1", prefix: "r.x"}, {sql: "t.r.y", value: "y1"}, {sql: "rn.x", value: "null"}},
	"ROW":   {{sql: "ROW(a, s)", value: "+I[7, Order-1001]", prefix: "ROW(a, s)"}},
	// Calcite's SqlMapValueConstructor: the keys' and the values' common
	// types (INT and BIGINT values of CalcTest.testPrimitiveMapType).
	"MAP": {{sql: "MAP[s, a, 'k', b]", value: "{Order-1001=7, k=-3}", prefix: "MAP(s, a, 'k', b)"},
		{sql: "MAP['a', 0.12, 'b', 0.5]", value: "{a=0.12, b=0.50}"}, {sql: "MAP[a, n]", value: "{7=null}"}},
	// SQL/JSON functions (expr/jsonfuncs.go); the flink cases are the
	// examples of Flink 1.20's reference.
	"IS JSON VALUE": {{sql: "'1' IS JSON", value: "true", prefix: "IS JSON VALUE('1')", flink: true},
		{sql: "'[]' IS JSON", value: "true", flink: true}, {sql: "'{}' IS JSON", value: "true", flink: true},
		{sql: `'"abc"' IS JSON`, value: "true", flink: true}, {sql: "'abc' IS JSON", value: "false", flink: true},
		{sql: "NULL IS JSON", value: "false", flink: true}, {sql: "s IS JSON VALUE", value: "false"}},
	"IS JSON SCALAR": {{sql: "'1' IS JSON SCALAR", value: "true", prefix: "IS JSON SCALAR('1')", flink: true},
		{sql: "'{}' IS JSON SCALAR", value: "false", flink: true}},
	"IS JSON ARRAY": {{sql: "'1' IS JSON ARRAY", value: "false", prefix: "IS JSON ARRAY('1')", flink: true},
		{sql: "'{}' IS JSON ARRAY", value: "false", flink: true}, {sql: "'[1]' IS JSON ARRAY", value: "true"}},
	"IS JSON OBJECT": {{sql: "'1' IS JSON OBJECT", value: "false", prefix: "IS JSON OBJECT('1')", flink: true},
		{sql: "'{}' IS JSON OBJECT", value: "true", flink: true}},
	"IS NOT JSON VALUE":  {{sql: "s IS NOT JSON", value: "true", prefix: "IS NOT JSON VALUE(s)"}, {sql: "NULL IS NOT JSON", value: "true"}},
	"IS NOT JSON SCALAR": {{sql: "'{}' IS NOT JSON SCALAR", value: "true", prefix: "IS NOT JSON SCALAR('{}')"}},
	"IS NOT JSON ARRAY":  {{sql: "'[]' IS NOT JSON ARRAY", value: "false", prefix: "IS NOT JSON ARRAY('[]')"}},
	"IS NOT JSON OBJECT": {{sql: "'[]' IS NOT JSON OBJECT", value: "true", prefix: "IS NOT JSON OBJECT('[]')"}},
	"JSON_EXISTS": {{sql: `JSON_EXISTS('{"a": true}', '$.a')`, value: "true", prefix: `JSON_EXISTS('{"a": true}', '$.a')`, flink: true},
		{sql: `JSON_EXISTS('{"a": true}', '$.b')`, value: "false", flink: true},
		{sql: `JSON_EXISTS('{"a": [{ "b": 1 }]}', '$.a[0].b')`, value: "true", flink: true},
		{sql: `JSON_EXISTS('{"a": true}', 'strict $.b' TRUE ON ERROR)`, value: "true", flink: true},
		{sql: `JSON_EXISTS('{"a": true}', 'strict $.b' FALSE ON ERROR)`, value: "false", flink: true},
		{sql: `JSON_EXISTS('{"a": true}', 'strict $.b' UNKNOWN ON ERROR)`, value: "null"},
		{sql: `JSON_EXISTS('{"a": true}', 'lax $.b' ERROR ON ERROR)`, value: "false"},
		{sql: `JSON_EXISTS(CAST(NULL AS STRING), 'lax $')`, value: "null"}},
	"JSON_STRING": {{sql: "JSON_STRING(1)", value: "1", prefix: "JSON_STRING(1)", flink: true},
		{sql: "JSON_STRING(CAST(NULL AS INT))", value: "null", flink: true}, {sql: "JSON_STRING(TRUE)", value: "true", flink: true},
		{sql: "JSON_STRING('Hello, World!')", value: `"Hello, World!"`, flink: true},
		{sql: "JSON_STRING(ARRAY[1, 2])", value: "[1,2]", flink: true},
		{sql: "JSON_STRING(r)", value: `{"x":1,"y":"y1"}`}, {sql: "JSON_STRING(d)", value: "12.50"},
		{sql: "JSON_STRING(ts)", value: `"2024-01-02T10:00:00.123"`}, {sql: "JSON_STRING(MAP['b', 1, 'a', 2])", value: `{"a":2,"b":1}`},
		{sql: "JSON_STRING(dt)", refused: "Type 'DATE' is not scalar or cannot be converted into JSON."},
		{sql: "JSON_STRING(MAP[1, 2])", refused: "The key type must be a character string."}},
	"JSON_VALUE": {{sql: `JSON_VALUE('{"a": true}', '$.a')`, value: "true", prefix: `JSON_VALUE('{"a": true}', '$.a')`, flink: true},
		{sql: `JSON_VALUE('{"a": true}', '$.a' RETURNING BOOLEAN)`, value: "true", flink: true},
		{sql: `JSON_VALUE('{"a": true}', 'lax $.b' DEFAULT FALSE ON EMPTY)`, value: "false", flink: true},
		{sql: `JSON_VALUE('{"a": true}', 'strict $.b' DEFAULT FALSE ON ERROR)`, value: "false", flink: true},
		{sql: `JSON_VALUE('{"a.b": [0.998,0.996]}','$.["a.b"][0]' RETURNING DOUBLE)`, value: "0.998", flink: true},
		{sql: `JSON_VALUE('{"contains blank": "right"}', 'strict $.[''contains blank'']' NULL ON EMPTY DEFAULT 'wrong' ON ERROR)`, value: "right", flink: true},
		{sql: `JSON_VALUE('{"a": [1]}', '$.a')`, value: "null"}, {sql: `JSON_VALUE('{"a": "x"}', '$.a' RETURNING INT DEFAULT a ON ERROR)`, value: "7"}},
	"JSON_QUERY": {{sql: `JSON_QUERY('{ "a": { "b": 1 } }', '$.a')`, value: `{"b":1}`, prefix: `JSON_QUERY('{ "a": { "b": 1 } }', '$.a', FLAG(WITHOUT_ARRAY), FLAG(NULL), FLAG(NULL))`, flink: true},
		{sql: "JSON_QUERY('[1, 2]', '$')", value: "[1,2]", flink: true},
		{sql: "JSON_QUERY(CAST(NULL AS STRING), '$')", value: "null", flink: true},
		{sql: `JSON_QUERY('{"a":[{"c":"c1"},{"c":"c2"}]}', 'lax $.a[*].c')`, value: `["c1","c2"]`, flink: true},
		{sql: `JSON_QUERY('{"a":[{"c":"c1"},{"c":"c2"}]}', 'lax $.a[*].c' RETURNING ARRAY<STRING>)`, value: "[c1, c2]", flink: true},
		{sql: "JSON_QUERY('{}', '$' WITH CONDITIONAL ARRAY WRAPPER)", value: "[{}]", flink: true},
		{sql: "JSON_QUERY('[1, 2]', '$' WITH CONDITIONAL ARRAY WRAPPER)", value: "[1,2]", flink: true},
		{sql: "JSON_QUERY('[1, 2]', '$' WITH UNCONDITIONAL ARRAY WRAPPER)", value: "[[1,2]]", flink: true},
		{sql: "JSON_QUERY(1, '$')", value: "null", flink: true},
		{sql: "JSON_QUERY(1, '$' WITH CONDITIONAL ARRAY WRAPPER)", value: "[1]", flink: true},
		{sql: "JSON_QUERY('{}', 'lax $.invalid' EMPTY OBJECT ON EMPTY)", value: "{}", flink: true},
		{sql: "JSON_QUERY('{}', 'strict $.invalid' EMPTY ARRAY ON ERROR)", value: "[]", flink: true}},
	"JSON_OBJECT": {{sql: "JSON_OBJECT()", value: "{}", prefix: "JSON_OBJECT(FLAG(NULL_ON_NULL))", flink: true},
		{sql: "JSON_OBJECT('K1' VALUE 'V1', 'K2' VALUE 'V2')", value: `{"K1":"V1","K2":"V2"}`, flink: true},
		{sql: "JSON_OBJECT(KEY 'K1' VALUE CAST(NULL AS STRING) NULL ON NULL)", value: `{"K1":null}`, flink: true},
		{sql: "JSON_OBJECT(KEY 'K1' VALUE CAST(NULL AS STRING) ABSENT ON NULL)", value: "{}", flink: true},
		{sql: "JSON_OBJECT(KEY 'K1' VALUE JSON_OBJECT(KEY 'K2' VALUE 'V'))", value: `{"K1":{"K2":"V"}}`, flink: true},
		{sql: "JSON_OBJECT('z' VALUE a, 'y' VALUE n, 'x' VALUE s)", value: `{"x":"Order-1001","y":null,"z":7}`}},
	"JSON_ARRAY": {{sql: "JSON_ARRAY()", value: "[]", prefix: "JSON_ARRAY(FLAG(ABSENT_ON_NULL))", flink: true},
		{sql: "JSON_ARRAY(1, '2')", value: `[1,"2"]`, flink: true},
		{sql: "JSON_ARRAY(CAST(NULL AS STRING) NULL ON NULL)", value: "[null]", flink: true},
		{sql: "JSON_ARRAY(CAST(NULL AS STRING) ABSENT ON NULL)", value: "[]", flink: true},
		{sql: "JSON_ARRAY(JSON_ARRAY(1))", value: "[[1]]", flink: true}, {sql: "JSON_ARRAY(a, n, f)", value: "[7,2.5]"}},
	"COUNT":       {{sql: "COUNT(a)"}},
	"SUM":         {{sql: "SUM(d)"}},
	"SUM0":        {{sql: "SUM0(a)"}},
	"AVG":         {{sql: "AVG(a)"}},
	"MIN":         {{sql: "MIN(s)"}},
	"MAX":         {{sql: "MAX(s)"}},
	"FIRST_VALUE": {{sql: "FIRST_VALUE(s)"}},
	"LAST_VALUE":  {{sql: "LAST_VALUE(s)"}},
	"LISTAGG":     {{sql: "LISTAGG(s)"}, {sql: "LISTAGG(s, '-')"}},
	// The variance family binds as written; the planner reduces it to
	// SUM and COUNT (testdata/session/variance_collect runs it).
	"STDDEV_POP":  {{sql: "STDDEV_POP(a)"}},
	"STDDEV_SAMP": {{sql: "STDDEV_SAMP(d)"}},
	"STDDEV":      {{sql: "STDDEV(f)"}},
	"VAR_POP":     {{sql: "VAR_POP(b)"}},
	"VAR_SAMP":    {{sql: "VAR_SAMP(a)"}},
	"VARIANCE":    {{sql: "VARIANCE(d)"}},
	// COLLECT binds and plans (a MULTISET); the runtime refuses it.
	"COLLECT": {{sql: "COLLECT(s)"}},
	// The binder names them by their ON NULL clause.
	"JSON_OBJECTAGG": {{sql: "JSON_OBJECTAGG(s VALUE a)"}, {sql: "JSON_OBJECTAGG(KEY s VALUE a ABSENT ON NULL)"}},
	"JSON_ARRAYAGG":  {{sql: "JSON_ARRAYAGG(a)"}, {sql: "JSON_ARRAYAGG(s NULL ON NULL)"}},
}

// TestFunctionTable walks expr's function table: every entry binds from
// SQL, evaluates over evalRow and prints in the physical plan's form;
// aggregates bind. Cases marked flink compare with Flink's documented
// results.
func TestFunctionTable(t *testing.T) {
	names := evalTable.Schema.Names()
	for _, f := range expr.Funcs() {
		cases := funcCases[f.Name]
		if len(cases) == 0 {
			t.Errorf("%s: no case in funcCases", f.Name)
			continue
		}
		for i, c := range cases {
			if f.Kind == expr.Aggregate {
				stmt, err := parser.Parse("SELECT " + c.sql + " FROM t")
				if err != nil {
					t.Fatal(err)
				}
				b := &binder{env: evalEnv{evalTable}, config: map[string]string{}, streaming: true}
				if _, err := b.bindQuery(stmt.(*ast.Query).Body); err != nil {
					t.Errorf("%s: %v", c.sql, err)
				}
				continue
			}
			e, v, err := bindAndEval(c.sql, c.filter)
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.refused) {
					t.Errorf("%s: got %v, want the error %q", c.sql, err, c.refused)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", c.sql, err)
				continue
			}
			if c.value != "*" && v != c.value {
				src := ""
				if c.flink {
					src = " (Flink's documented result)"
				}
				t.Errorf("%s = %s, want %s%s", c.sql, v, c.value, src)
			}
			if i > 0 {
				continue
			}
			if got := FormatExpr(e, names, FormatPrefix); got != c.prefix {
				t.Errorf("%s prints %s, want %s", c.sql, got, c.prefix)
			}
			// DOT prints without its name (r.x): the call's Op says it.
			if call, ok := e.(*expr.Call); !c.converted && !(ok && call.Op == f.Name) && !strings.Contains(FormatExpr(e, names, FormatPrefix), f.Name) {
				t.Errorf("%s does not call %s", c.sql, f.Name)
			}
			if got := expr.Deterministic(e); got == f.Dynamic {
				t.Errorf("%s: Deterministic = %v, want %v", c.sql, got, !f.Dynamic)
			}
		}
	}
	for name := range funcCases {
		if _, ok := expr.Op(name); !ok {
			t.Errorf("funcCases has %s, which the table lacks", name)
		}
	}
}

func bindAndEval(s string, filter bool) (Expr, string, error) {
	stmt, err := parser.Parse("SELECT " + s + " FROM t")
	if err != nil {
		return nil, "", err
	}
	b := &binder{env: evalEnv{evalTable}, config: map[string]string{}, streaming: true}
	r, err := b.bindQuery(stmt.(*ast.Query).Body)
	if err != nil {
		return nil, "", err
	}
	proj, ok := r.(*LogicalProject)
	if !ok {
		return nil, "", fmt.Errorf("unexpected plan %s", r.Name())
	}
	e := proj.Exprs[0]
	if filter {
		e = expr.SimplifyFilter(e)
	}
	ev, err := Compile(e)
	if err != nil {
		return nil, "", err
	}
	v, err := ev(evalRow)
	if err != nil {
		return nil, "", err
	}
	if v == nil {
		return e, "null", nil
	}
	return e, sql.FormatValue(v, e.Type()), nil
}
