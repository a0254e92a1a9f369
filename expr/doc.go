// Package expr holds sqlrun's typed scalar expressions, Calcite's RexNode:
// field references, literals and calls, their type rules (Flink's
// LogicalTypeMerging and Calcite's implicit casts), the three forms EXPLAIN
// prints them in, and their evaluation (Compile turns an expression into a
// closure over a row's values; CAST follows Flink's casting rules).
//
// It sits below both the planner (plan binds the parser's AST into these
// expressions and prints them) and the job compiler (exec/compile runs
// them), and imports only the shared vocabulary in sql: the runtime never
// sees the parser's AST.
package expr
