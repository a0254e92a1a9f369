package plan

import "github.com/sqlrun/sqlrun/sql"

// CheckTranslation refuses what Flink 1.20 refuses when it turns the
// optimized physical plan into a job: first while it builds the ExecNode
// graph (ExecNode constructors, bottom-up: StreamExecWindowJoin's
// validate), then while it translates the ExecNodes to transformations
// (translateToPlanInternal, each node before its inputs:
// StreamExecWindowRank). Flink's EXPLAIN does both
// (PlannerBase.getExplainGraphs), so EXPLAIN fails where running fails;
// a plan-only test (Flink's verifyRelPlan) does neither.
func (pl *Plan) CheckTranslation() error {
	for _, r := range pl.Physical {
		if err := checkExecNodes(r); err != nil {
			return err
		}
	}
	for _, r := range pl.Physical {
		if err := checkTranslate(r); err != nil {
			return err
		}
	}
	return nil
}

// checkExecNodes is the ExecNode constructors' validation, inputs first.
func checkExecNodes(n Node) error {
	for _, in := range n.Inputs() {
		if err := checkExecNodes(in); err != nil {
			return err
		}
	}
	if j, ok := n.(*WindowJoin); ok && j.Window.ProcTime {
		// StreamExecWindowJoin.validate (WindowJoinTest
		// testUnsupportedWindowTVF_*OnProctime).
		return sql.Errorf(sql.TableException, "Processing time Window Join is not supported yet.")
	}
	return nil
}

// checkTranslate is translateToPlanInternal's validation, a node before
// its inputs.
func checkTranslate(n Node) error {
	if err := checkSlices(n); err != nil {
		return err
	}
	if s, ok := n.(*Sort); ok && s.Stream {
		// StreamExecSort.translateToPlanInternal without
		// __table.exec.sort.non-temporal.enabled__ (an internal testing
		// option sqlrun does not offer).
		return sql.Errorf(sql.TableException, "Sort on a non-time-attribute field is not supported.")
	}
	if r, ok := n.(*WindowRank); ok {
		// StreamExecWindowRank.translateToPlanInternal: the rank type, then
		// the windowing.
		if r.Func != "ROW_NUMBER" {
			return sql.Errorf(sql.TableException,
				"%s() function is not supported on Window TopN currently, only ROW_NUMBER() is supported.", r.Func)
		}
		if r.Window.ProcTime {
			return sql.Errorf(sql.TableException, "Processing time Window TopN is not supported yet.")
		}
	}
	for _, in := range n.Inputs() {
		if err := checkTranslate(in); err != nil {
			return err
		}
	}
	return nil
}

// checkSlices is SliceAssigners.hopping / cumulative's validation, which
// Flink runs when it translates a window operator
// (StreamExecWindowAggregateBase.createSliceAssigner in
// translateToPlanInternal): a plan-only test prints the plan
// (WindowAggregateTest.testCumulate_GroupingSets: 1 h in 25 min steps),
// EXPLAIN and running refuse it.
func checkSlices(n Node) error {
	var w Windowing
	switch x := n.(type) {
	case *WindowAggregate:
		w = x.Window
	case *WindowRank:
		w = x.Window
	case *WindowDeduplicate:
		w = x.Window
	case *WindowJoin:
		w = x.Window
	case *WindowTableFunction:
		w = x.Window
	default:
		return nil
	}
	if w.Func == "HOP" && w.Slide > 0 && w.Size%w.Slide != 0 {
		return sql.Errorf(sql.TableException,
			"HOP table function based aggregate requires size must be an integral multiple of slide, but got size %d ms and slide %d ms", w.Size, w.Slide)
	}
	if w.Func == "CUMULATE" && w.Step > 0 && w.Size%w.Step != 0 {
		return sql.Errorf(sql.TableException,
			"CUMULATE table function based aggregate requires maxSize must be an integral multiple of step, but got maxSize %d ms and step %d ms", w.Size, w.Step)
	}
	return nil
}
