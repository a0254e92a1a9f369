package warehouse

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors/paimon"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/sql"
)

var _ catalog.Procedures = (*Catalog)(nil)

// Procedure returns one of the Paimon procedures sqlrun runs (Paimon's
// Flink procedures, in Paimon 1.4's parameter order); each returns the
// text of its one-row `result` table (catalog.Procedures).
func (c *Catalog) Procedure(name string) (catalog.Procedure, bool) {
	p, ok := procedures[name]
	return p, ok
}

var procedures = map[string]catalog.Procedure{
	"compact": {
		Params: []string{"table", "partitions", "order_strategy", "order_by", "options", "where", "partition_idle_time", "compact_strategy"},
		Call: func(ctx catalog.ProcedureContext, a map[string]string) (string, error) {
			path, err := tableDir(ctx, a["table"])
			if err != nil {
				return "", err
			}
			for _, k := range []string{"order_strategy", "order_by", "where", "partition_idle_time"} {
				if a[k] != "" && !(k == "order_strategy" && strings.EqualFold(a[k], "none")) {
					return "", sql.Errorf(sql.UnsupportedOperation, "sqlrun's sys.compact does not support '%s' yet.", k)
				}
			}
			// Paimon's CompactAction: without compact_strategy a batch
			// compaction is full and a streaming one minor; 'full' is
			// refused in streaming mode.
			req := paimon.CompactRequest{Full: !ctx.Streaming, Streaming: ctx.Streaming}
			switch strings.ToLower(a["compact_strategy"]) {
			case "":
			case "minor":
				req.Full = false
			case "full":
				if ctx.Streaming {
					return "", sql.Errorf(sql.IllegalArgumentException,
						"The full compact strategy is only supported in batch mode. Please add -Dexecution.runtime-mode=BATCH.")
				}
				req.Full = true
			default:
				return "", sql.Errorf(sql.IllegalArgumentException,
					"The compact strategy only supports 'full' or 'minor', but '%s' is configured.", a["compact_strategy"])
			}
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
		Params: []string{"table", "retain_max", "retain_min", "older_than", "max_deletes"},
		Call: func(ctx catalog.ProcedureContext, a map[string]string) (string, error) {
			path, err := tableDir(ctx, a["table"])
			if err != nil {
				return "", err
			}
			var req paimon.ExpireRequest
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
			n, err := paimon.ExpireSnapshots(path, req, ctx.Now)
			if err != nil {
				return "", err
			}
			return strconv.Itoa(n), nil
		},
	},
	// ExpirePartitionsProcedure: ROW<expired_partitions STRING>, one row
	// per partition dropped or "No expired partitions.".
	"expire_partitions": {
		Params: []string{"table", "expiration_time", "timestamp_formatter", "timestamp_pattern", "expire_strategy", "max_expires", "options"},
		Column: "expired_partitions",
		CallRows: func(ctx catalog.ProcedureContext, a map[string]string) ([]string, error) {
			path, err := tableDir(ctx, a["table"])
			if err != nil {
				return nil, err
			}
			req := paimon.ExpirePartitionsRequest{ExpirationTime: a["expiration_time"], TimestampFormatter: a["timestamp_formatter"],
				TimestampPattern: a["timestamp_pattern"], ExpireStrategy: a["expire_strategy"]}
			if a["max_expires"] != "" {
				n, err := intArg(a, "max_expires")
				if err != nil {
					return nil, err
				}
				req.MaxExpires = &n
			}
			if a["options"] != "" {
				if req.Options, err = paimon.ParseKV(a["options"]); err != nil {
					return nil, err
				}
			}
			expired, err := paimon.ExpirePartitions(path, req, ctx.Now)
			if err != nil {
				return nil, err
			}
			if len(expired) == 0 {
				return []string{"No expired partitions."}, nil
			}
			return expired, nil
		},
	},
	"create_tag": {
		Params: []string{"table", "tag", "snapshot_id", "time_retained"},
		Call: func(ctx catalog.ProcedureContext, a map[string]string) (string, error) {
			path, err := tableDir(ctx, a["table"])
			if err != nil {
				return "", err
			}
			id, err := intArg(a, "snapshot_id")
			if err != nil {
				return "", err
			}
			if v := strings.TrimSpace(a["time_retained"]); v != "" {
				// Paimon stores it in the tag (tagTimeRetained) and its
				// commits expire the tag after it (TagTimeExpire), which
				// sqlrun's do not: refused rather than ignored.
				return "", sql.Errorf(sql.UnsupportedOperation, "time_retained of sys.create_tag is not supported by sqlrun yet (given '%s'): sqlrun does not expire tags by time", v)
			}
			if err := paimon.CreateTag(path, a["tag"], int64(id)); err != nil {
				return "", err
			}
			return "Success", nil
		},
	},
	"delete_tag": {
		Params: []string{"table", "tag"},
		Call: func(ctx catalog.ProcedureContext, a map[string]string) (string, error) {
			path, err := tableDir(ctx, a["table"])
			if err != nil {
				return "", err
			}
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

// tableDir resolves a procedure's 'database.table' (or 'table' in the
// current database) to the Paimon table's directory.
func tableDir(ctx catalog.ProcedureContext, name string) (string, error) {
	t, err := ctx.Table(name)
	if err != nil {
		return "", err
	}
	if t.Connector != paimon.Identifier {
		return "", sql.Errorf(sql.ValidationException, "Table %s is not a Paimon table; Paimon procedures work on Paimon tables only.", t.ID)
	}
	if t.Path == "" {
		return "", fmt.Errorf("table %s: %w", t.ID, paimon.ErrNoPath)
	}
	return t.Path, nil
}
