package exec

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors/paimon"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// procedure is one of Paimon's Flink procedures: its parameters in
// positional order (named arguments use these names) and its body.
type procedure struct {
	params []string
	run    func(s *Session, path string, args map[string]string) (string, error)
}

// procedures are the Paimon procedures sqlrun runs, in Paimon 1.4's
// parameter order. Each returns the text of its one-row `result` table.
var procedures = map[string]procedure{
	"compact": {
		params: []string{"table", "partitions", "order_strategy", "order_by", "options", "where", "partition_idle_time", "compact_strategy"},
		run: func(s *Session, path string, a map[string]string) (string, error) {
			for _, k := range []string{"order_strategy", "order_by", "where", "partition_idle_time"} {
				if a[k] != "" && !(k == "order_strategy" && strings.EqualFold(a[k], "none")) {
					return "", sql.Errorf(sql.UnsupportedOperation, "sqlrun's sys.compact does not support '%s' yet.", k)
				}
			}
			// Paimon's CompactAction: without compact_strategy a batch
			// compaction is full and a streaming one minor; 'full' is
			// refused in streaming mode.
			streaming := s.Config.Streaming()
			req := paimon.CompactRequest{Full: !streaming}
			switch strings.ToLower(a["compact_strategy"]) {
			case "":
			case "minor":
				req.Full = false
			case "full":
				if streaming {
					return "", sql.Errorf(sql.IllegalArgumentException,
						"The full compact strategy is only supported in batch mode. Please add -Dexecution.runtime-mode=BATCH.")
				}
				req.Full = true
			default:
				return "", sql.Errorf(sql.IllegalArgumentException,
					"The compact strategy only supports 'full' or 'minor', but '%s' is configured.", a["compact_strategy"])
			}
			var err error
			if req.Partitions, err = paimon.ParsePartitions(a["partitions"]); err != nil {
				return "", err
			}
			if a["options"] != "" {
				if req.Options, err = paimon.ParseKV(a["options"]); err != nil {
					return "", err
				}
			}
			if _, err := paimon.Compact(path, req); err != nil {
				return "", err
			}
			return "Success", nil
		},
	},
	"expire_snapshots": {
		params: []string{"table", "retain_max", "retain_min", "older_than", "max_deletes"},
		run: func(s *Session, path string, a map[string]string) (string, error) {
			var req paimon.ExpireRequest
			var err error
			if req.RetainMax, err = intArg(a, "retain_max"); err != nil {
				return "", err
			}
			if req.RetainMin, err = intArg(a, "retain_min"); err != nil {
				return "", err
			}
			if v := a["older_than"]; v != "" {
				t, err := time.ParseInLocation("2006-01-02 15:04:05", v, time.Local)
				if err != nil {
					return "", sql.Errorf(sql.IllegalArgumentException, "Cannot parse older_than '%s' as a timestamp 'yyyy-MM-dd HH:mm:ss'.", v)
				}
				req.OlderThan = t
			}
			n, err := paimon.ExpireSnapshots(path, req, s.Now())
			if err != nil {
				return "", err
			}
			return strconv.Itoa(n), nil
		},
	},
	"create_tag": {
		params: []string{"table", "tag", "snapshot_id", "time_retained"},
		run: func(s *Session, path string, a map[string]string) (string, error) {
			id, err := intArg(a, "snapshot_id")
			if err != nil {
				return "", err
			}
			if err := paimon.CreateTag(path, a["tag"], int64(id), s.Now()); err != nil {
				return "", err
			}
			return "Success", nil
		},
	},
	"delete_tag": {
		params: []string{"table", "tag"},
		run: func(s *Session, path string, a map[string]string) (string, error) {
			tags := strings.Split(a["tag"], ",")
			for i, t := range tags {
				// Every name is checked before any tag is deleted.
				tags[i] = strings.TrimSpace(t)
				if err := fs.CheckName(fs.KindTag, tags[i]); err != nil {
					return "", err
				}
			}
			for _, t := range tags {
				if err := paimon.DeleteTag(path, t); err != nil {
					return "", err
				}
			}
			return "Success", nil
		},
	},
}

func intArg(a map[string]string, k string) (int, error) {
	v := a[k]
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, sql.Errorf(sql.ValidationException, "Procedure argument '%s' must be an integer, got '%s'.", k, v)
	}
	return n, nil
}

// call runs CALL sys.<procedure>(...) against a table of the current
// Paimon catalog and prints its result as
// Flink prints a procedure's result: a one-column `result` table.
// Procedures run synchronously, as Paimon's do with table.dml-sync.
func (s *Session) call(st *ast.Call, out io.Writer) error {
	p := st.Procedure
	proc, ok := procedures[strings.ToLower(p.Table)]
	// Procedures belong to the catalog (Paimon's catalog has them, the
	// in-memory default_catalog has none), as in Flink.
	cur, err := s.Catalogs.Catalog(s.Catalogs.CurrentCatalog())
	dc, isPaimon := cur.(catalog.DefaultConnector)
	isPaimon = err == nil && isPaimon && dc.DefaultConnector() == paimon.Identifier
	if !ok || !isPaimon || !strings.EqualFold(p.Database, "sys") || p.Catalog != "" {
		return sql.Errorf(sql.ValidationException, "Procedure %s does not exist.", p.String())
	}
	args := map[string]string{}
	for i, e := range st.Args {
		name := ""
		if st.ArgNames != nil {
			name = strings.Trim(st.ArgNames[i], "`")
		}
		if name == "" {
			if i >= len(proc.params) {
				return sql.Errorf(sql.ValidationException, "No match found for function signature %s: too many arguments.", p.String())
			}
			name = proc.params[i]
		} else if !contains(proc.params, name) {
			return sql.Errorf(sql.ValidationException, "Procedure %s has no parameter '%s' (parameters: %s).", p.String(), name, strings.Join(proc.params, ", "))
		}
		v, err := literalArg(e)
		if err != nil {
			return fmt.Errorf("procedure %s argument %s: %w", p.String(), name, err)
		}
		args[name] = v
	}
	if args["table"] == "" {
		return sql.Errorf(sql.ValidationException, "Procedure %s needs the 'table' argument ('database.table').", p.String())
	}
	path, err := s.procedureTablePath(args["table"])
	if err != nil {
		return err
	}
	res, err := proc.run(s, path, args)
	if err != nil {
		return err
	}
	Box(out, []string{"result"}, [][]string{{res}}, 0)
	return nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// literalArg is a procedure argument's value: procedures take literals.
func literalArg(e ast.Expr) (string, error) {
	switch x := e.(type) {
	case *ast.Literal:
		if x.Value == nil {
			return "", nil
		}
		if s, ok := x.Value.(string); ok {
			return s, nil
		}
		return fmt.Sprint(x.Value), nil
	case *ast.Unary:
		v, err := literalArg(x.X)
		if err != nil {
			return "", err
		}
		if x.Op == "-" {
			return "-" + v, nil
		}
		return v, nil
	}
	return "", sql.Errorf(sql.ValidationException, "Procedure arguments must be literals, got %s.", e)
}

// procedureTablePath resolves a procedure's 'database.table' (or 'table'
// in the current database) to the Paimon table's directory.
func (s *Session) procedureTablePath(name string) (string, error) {
	n := ast.ObjectName{Table: name}
	if db, t, ok := strings.Cut(name, "."); ok {
		n = ast.ObjectName{Database: db, Table: t}
	}
	env := sessionEnv{s}
	id, t, err := env.LookupTable(n)
	if err != nil {
		return "", err
	}
	conn := t.Options["connector"]
	if conn == "" {
		conn = env.DefaultConnector(id)
	}
	if conn != paimon.Identifier {
		return "", sql.Errorf(sql.ValidationException, "Table %s is not a Paimon table; Paimon procedures work on Paimon tables only.", id)
	}
	path := t.Options["path"]
	if path == "" {
		path = env.TablePath(id)
	}
	if path == "" {
		return "", fmt.Errorf("table %s: %w", id, paimon.ErrNoPath)
	}
	return path, nil
}
