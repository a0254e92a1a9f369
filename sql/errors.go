package sql

import (
	"errors"
	"fmt"
)

// ExceptionClass names the Flink (Java) exception a failure corresponds to.
// The shell prints the root cause as the Flink SQL client does:
// "org.apache.flink.table.api.ValidationException: <message>", so users who
// search for the message find Flink's documentation and issues.
type ExceptionClass string

// The classes sqlrun reports.
const (
	SqlParserException       ExceptionClass = "org.apache.flink.table.api.SqlParserException"
	ValidationException      ExceptionClass = "org.apache.flink.table.api.ValidationException"
	TableException           ExceptionClass = "org.apache.flink.table.api.TableException"
	CatalogException         ExceptionClass = "org.apache.flink.table.catalog.exceptions.CatalogException"
	IllegalStateException    ExceptionClass = "java.lang.IllegalStateException"
	IllegalArgumentException ExceptionClass = "java.lang.IllegalArgumentException"
	UnsupportedOperation     ExceptionClass = "java.lang.UnsupportedOperationException"
	IOException              ExceptionClass = "java.io.IOException"
	RuntimeException         ExceptionClass = "java.lang.RuntimeException"
	AssertionError           ExceptionClass = "java.lang.AssertionError"
	NullPointerException     ExceptionClass = "java.lang.NullPointerException"
	FlinkRuntimeException    ExceptionClass = "org.apache.flink.util.FlinkRuntimeException"

	// The planner's code generator (ScalarOperatorGens), which fails when
	// a job is translated, after EXPLAIN has planned it.
	CodeGenException ExceptionClass = "org.apache.flink.table.planner.codegen.CodeGenException"
	// A Scala match over cases the code generator does not list.
	ScalaMatchError ExceptionClass = "scala.MatchError"

	// Calcite's validator (unknown columns, functions, type mismatches).
	SqlValidatorException ExceptionClass = "org.apache.calcite.sql.validate.SqlValidatorException"

	// The catalog's (Flink's org.apache.flink.table.catalog.exceptions).
	TableAlreadyExistException    ExceptionClass = "org.apache.flink.table.catalog.exceptions.TableAlreadyExistException"
	TableNotExistException        ExceptionClass = "org.apache.flink.table.catalog.exceptions.TableNotExistException"
	DatabaseAlreadyExistException ExceptionClass = "org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException"
	DatabaseNotExistException     ExceptionClass = "org.apache.flink.table.catalog.exceptions.DatabaseNotExistException"
	DatabaseNotEmptyException     ExceptionClass = "org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException"

	// The SQL client's and the job registry's.
	SqlExecutionException     ExceptionClass = "org.apache.flink.table.client.gateway.SqlExecutionException"
	FlinkJobNotFoundException ExceptionClass = "org.apache.flink.runtime.messages.FlinkJobNotFoundException"

	// Paimon's: reading a snapshot that expiration removed.
	OutOfRangeException ExceptionClass = "org.apache.paimon.utils.OutOfRangeException"
)

// ErrCorrupt is the one marker of bytes that do not decode: keyed state, a
// BinaryRow, a data file, a deletion vector's bitmap. Each package names its
// corruption with Corrupt, so errors.Is(err, ErrCorrupt) holds for all of
// them while their messages stay their own.
var ErrCorrupt = errors.New("corrupt data")

// Corrupt returns an error with message msg that matches ErrCorrupt.
func Corrupt(msg string) error { return corruptError(msg) }

type corruptError string

func (e corruptError) Error() string        { return string(e) }
func (e corruptError) Is(target error) bool { return target == ErrCorrupt }

// Error is a user-facing failure with its Flink exception class. It wraps an
// optional cause so callers can still use errors.Is / errors.As.
type Error struct {
	Class ExceptionClass
	Msg   string
	Err   error
}

// Errorf builds an *Error with a formatted message. A %w verb wraps a cause.
func Errorf(class ExceptionClass, format string, args ...any) *Error {
	e := fmt.Errorf(format, args...)
	return &Error{Class: class, Msg: e.Error(), Err: errors.Unwrap(e)}
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// RootCause returns the deepest *Error in err's chain, which is what the
// shell reports, or nil when there is none.
func RootCause(err error) *Error {
	var last *Error
	for err != nil {
		if e, ok := err.(*Error); ok {
			last = e
		}
		err = errors.Unwrap(err)
	}
	return last
}
