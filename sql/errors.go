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
)

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
