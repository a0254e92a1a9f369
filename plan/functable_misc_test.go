package plan

// The cases of the functions of expr/miscfuncs.go, kept apart from
// functable_test.go's map so that parallel additions merge cleanly.
func init() {
	add := func(name string, cs ...funcCase) { funcCases[name] = append(funcCases[name], cs...) }
	// GreatestLeastFunctionsITCase: the common type, NULL if any argument is.
	add("GREATEST", funcCase{sql: "GREATEST(a, d, b)", value: "12.50", prefix: "GREATEST(a, d, b)"},
		funcCase{sql: "GREATEST(a, n)", value: "null"}, funcCase{sql: "GREATEST(s, 'Z')", value: "Z"},
		funcCase{sql: "GREATEST(ts, TIMESTAMP '2030-01-01 00:00:00')", value: "2030-01-01T00:00"},
		funcCase{sql: "GREATEST(a, s)", refused: "Invalid function call:\nGREATEST(INT NOT NULL, STRING)"})
	add("LEAST", funcCase{sql: "LEAST(a, d, b)", value: "-3.00", prefix: "LEAST(a, d, b)"},
		funcCase{sql: "LEAST(n, a)", value: "null"}, funcCase{sql: "LEAST(s, 'Z')", value: "Order-1001"})
	// java.util.Random(1).nextDouble(), new Random(1).nextInt(10).
	add("RAND", funcCase{sql: "RAND()", value: "*", prefix: "RAND()"}, funcCase{sql: "RAND(1)", value: "0.7308781907032909"},
		funcCase{sql: "RAND(a)", value: "0.7306990420600421"}, funcCase{sql: "RAND(n)", value: "null"},
		funcCase{sql: "RAND('x')", refused: "Cannot apply 'RAND' to arguments of type 'RAND(<CHAR>)'"})
	add("RAND_INTEGER", funcCase{sql: "RAND_INTEGER(10)", value: "*", prefix: "RAND_INTEGER(10)"},
		funcCase{sql: "RAND_INTEGER(1, 10)", value: "5"}, funcCase{sql: "RAND_INTEGER(a, 100)", value: "36"})
	add("UUID", funcCase{sql: "UUID()", value: "*", prefix: "UUID()"}, funcCase{sql: "CHAR_LENGTH(UUID())", value: "36"},
		funcCase{sql: "SUBSTRING(UUID(), 15, 1)", value: "4"})
	// TemporalTypesTest.testConvertTZ and the function reference's example.
	add("CONVERT_TZ", funcCase{sql: "CONVERT_TZ('2018-03-14 11:00:00', 'UTC', 'Asia/Shanghai')", value: "2018-03-14 19:00:00", prefix: "CONVERT_TZ('2018-03-14 11:00:00', 'UTC', 'Asia/Shanghai')"},
		funcCase{sql: "CONVERT_TZ('1970-01-01 00:00:00', 'UTC', 'America/Los_Angeles')", value: "1969-12-31 16:00:00", flink: true},
		funcCase{sql: "CONVERT_TZ('invalid value', 'UTC', 'Asia/Shanghai')", value: "null"},
		funcCase{sql: "CONVERT_TZ('2018-03-14 11:00:00', 'GMT+08:00', 'PST')", value: "2018-03-13 20:00:00"},
		funcCase{sql: "CONVERT_TZ('2018-03-14 11:00:00', 'no/such-zone', 'EST')", value: "2018-03-14 06:00:00"},
		funcCase{sql: "CONVERT_TZ(s, 'UTC', 'UTC')", value: "null"})
	add("CURRENT_DATABASE", funcCase{sql: "CURRENT_DATABASE()", value: "default_database", prefix: "CURRENT_DATABASE()"})
	// evalTable's ts is no rowtime attribute (session goldens run it:
	// testdata/session/current_watermark).
	add("CURRENT_WATERMARK", funcCase{sql: "CURRENT_WATERMARK(ts)", refused: "Invalid function call:\nCURRENT_WATERMARK(TIMESTAMP(3))"},
		funcCase{sql: "CURRENT_WATERMARK(a)", refused: "Invalid function call:\nCURRENT_WATERMARK(INT NOT NULL)"})
}
