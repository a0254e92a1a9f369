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
