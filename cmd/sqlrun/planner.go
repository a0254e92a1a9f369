package main

import "github.com/sqlrun/sqlrun/exec"

// planner returns the planner the binary uses (exec.PlanPlanner: plan/ and
// exec/compile). It is a variable so tests can run jobs with a planner of
// their own.
var planner = func() exec.Planner { return exec.DefaultPlanner }
