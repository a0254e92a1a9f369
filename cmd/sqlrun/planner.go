package main

import "github.com/sqlrun/sqlrun/exec"

// planner returns the planner the binary uses. Until plan/ and
// exec/compile are linked in, it is exec.DefaultPlanner (which fails
// planning statements with a clear message).
func planner() exec.Planner { return exec.DefaultPlanner }
