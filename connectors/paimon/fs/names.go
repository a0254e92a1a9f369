package fs

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/sqlrun/sqlrun/sql"
)

// This file is the one place where a name that came from a user — a
// database, table, tag, branch or consumer name — becomes a path. Every
// such name must be exactly one path element below its parent: a name with
// '/' (or one that is "." or "..") would let `CREATE TABLE `../../t`` write
// outside the warehouse or `CALL sys.delete_tag('t', '../../other/...')`
// delete another table's files. Paimon Java joins these names into Hadoop
// Paths without checking them; sqlrun refuses them with
// IllegalArgumentException (Paimon's checkArgument) before any file is
// touched. Partition values never need this: binrow.EscapePathName escapes
// '/' (as Paimon's PartitionPathUtils does), so "k=<value>" is always one
// element.

// Name kinds, as they appear in messages ("Table name '...' ...").
const (
	KindDatabase = "Database"
	KindTable    = "Table"
	KindTag      = "Tag"
	KindBranch   = "Branch"
	KindConsumer = "Consumer id"
)

// Paimon's directory layout names.
const (
	// DatabaseSuffix is the directory suffix of a database (<db>.db).
	DatabaseSuffix = ".db"
	tagDir         = "tag"
	tagPrefix      = "tag-"
	branchDir      = "branch"
	branchPrefix   = "branch-"
	consumerDir    = "consumer"
	consumerPrefix = "consumer-"
	// MainBranch is Paimon's default branch, the table directory itself.
	MainBranch = "main"
)

// CheckName refuses a name that is not exactly one path element: blank
// (Paimon's "<Kind> name '<name>' is blank."), containing '/', '\' or a
// control character, or "." / "..".
func CheckName(kind, name string) error {
	if strings.TrimSpace(name) == "" {
		return sql.Errorf(sql.IllegalArgumentException, "%s name '%s' is blank.", kind, name)
	}
	if name == "." || name == ".." {
		return nameErr(kind, name, "is not a valid name: '.' and '..' are not allowed")
	}
	if strings.ContainsAny(name, `/\`) {
		return nameErr(kind, name, "must not contain '/' or '\\': a name is one directory entry and cannot point to another directory")
	}
	if strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return nameErr(kind, name, "must not contain control characters")
	}
	return nil
}

func nameErr(kind, name, why string) error {
	return sql.Errorf(sql.IllegalArgumentException, "%s name '%s' %s.", kind, quoteControl(name), why)
}

// quoteControl shows control characters of a refused name escaped (\n,
// \x00) so the message cannot reshape the terminal or the log.
func quoteControl(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// Child is parent/name for a name that passes CheckName.
func Child(parent, kind, name string) (string, error) {
	if err := CheckName(kind, name); err != nil {
		return "", err
	}
	return Join(parent, name), nil
}

// DatabasePath is <warehouse>/<db>.db (Paimon's newDatabasePath).
func DatabasePath(warehouse, db string) (string, error) {
	if err := CheckName(KindDatabase, db); err != nil {
		return "", err
	}
	return Join(warehouse, db+DatabaseSuffix), nil
}

// TablePath is <warehouse>/<db>.db/<table>.
func TablePath(warehouse, db, table string) (string, error) {
	dir, err := DatabasePath(warehouse, db)
	if err != nil {
		return "", err
	}
	return Child(dir, KindTable, table)
}

// TagPath is <table>/tag/tag-<name>.
func TagPath(table, name string) (string, error) {
	if err := CheckName(KindTag, name); err != nil {
		return "", err
	}
	return Join(table, tagDir, tagPrefix+name), nil
}

// ConsumerPath is <table>/consumer/consumer-<id>.
func ConsumerPath(table, id string) (string, error) {
	if err := CheckName(KindConsumer, id); err != nil {
		return "", err
	}
	return Join(table, consumerDir, consumerPrefix+id), nil
}

// CheckBranchName applies Paimon's BranchManager.validateBranch rules
// (not "main", not blank, not all digits) and CheckName's.
func CheckBranchName(name string) error {
	if name == MainBranch {
		return sql.Errorf(sql.IllegalArgumentException, "Branch name '%s' is the default branch and cannot be used.", MainBranch)
	}
	if err := CheckName(KindBranch, name); err != nil {
		return err
	}
	if strings.IndexFunc(name, func(r rune) bool { return r < '0' || r > '9' }) < 0 {
		return sql.Errorf(sql.IllegalArgumentException, "Branch name cannot be pure numeric string but is '%s'.", name)
	}
	return nil
}

// BranchPath is the directory of a branch: the table itself for "main",
// else <table>/branch/branch-<name> (Paimon's BranchManager.branchPath).
func BranchPath(table, name string) (string, error) {
	if name == MainBranch {
		return table, nil
	}
	if err := CheckBranchName(name); err != nil {
		return "", err
	}
	return Join(table, branchDir, branchPrefix+name), nil
}
