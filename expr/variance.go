package expr

// varianceFuncs are Calcite's SqlAvgAggFunctions besides AVG, which Flink
// 1.20's FlinkSqlOperatorTable lists: STDDEV_POP, STDDEV_SAMP, VAR_POP,
// VAR_SAMP, and STDDEV and VARIANCE (SqlStdOperatorTable's STDDEV_SAMP and
// VAR_SAMP under their own names). A call takes one numeric argument and
// is typed as AVG (ReturnTypes.AVG_AGG_FUNCTION, FlinkTypeSystem
// .deriveAvgAggType: the argument's type, DECIMAL(38, max(s, 6)) for a
// DECIMAL). The planner reduces every call to SUM and COUNT
// (plan/aggvariance.go); no runtime operator sees one.
func varianceFuncs() []*Func {
	var fs []*Func
	for _, n := range []string{"STDDEV_POP", "STDDEV_SAMP", "STDDEV", "VAR_POP", "VAR_SAMP", "VARIANCE"} {
		fs = append(fs, &Func{Name: n, Kind: Aggregate, Infer: inferNumericAgg})
	}
	return fs
}
