package systable

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

func optStr(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func optI64(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// snapshotRows lists every existing snapshot, ascending.
func snapshotRows(t *table.Table) ([][]any, error) {
	ids, err := t.Snapshots.ListIDs()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for _, id := range ids {
		s, err := t.Snapshots.Read(id)
		if errors.Is(err, snapshot.ErrNotFound) { // expired meanwhile
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, []any{s.ID, s.SchemaID, s.CommitUser, s.CommitIdentifier, string(s.CommitKind),
			localTimestamp(s.TimeMillis), s.BaseManifestList, s.DeltaManifestList, optStr(s.ChangelogManifestList),
			optI64(s.TotalRecordCount), optI64(s.DeltaRecordCount), optI64(s.ChangelogRecordCount), optI64(s.Watermark)})
	}
	return out, nil
}

// schemaRows lists every schema version with its fields, keys and options
// as flat JSON.
func schemaRows(t *table.Table) ([][]any, error) {
	ids, err := t.Schemas.ListIDs()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for _, id := range ids {
		s, err := t.Schemas.Read(id)
		if err != nil {
			return nil, err
		}
		raw, err := s.Marshal()
		if err != nil {
			return nil, err
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, err
		}
		var fields bytes.Buffer
		if err := json.Compact(&fields, obj["fields"]); err != nil {
			return nil, err
		}
		pk, err := flatJSON(nonNil(s.PartitionKeys))
		if err != nil {
			return nil, err
		}
		pks, err := flatJSON(nonNil(s.PrimaryKeys))
		if err != nil {
			return nil, err
		}
		opts, err := flatJSON(s.Options)
		if err != nil {
			return nil, err
		}
		out = append(out, []any{s.ID, fields.String(), pk, pks, opts, optStr(s.Comment), localTimestamp(s.TimeMillis)})
	}
	return out, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// optionRows are the latest schema's options (what was set, not defaults).
func optionRows(t *table.Table) ([][]any, error) {
	s, err := t.Schemas.Latest()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for _, k := range sortedKeys(s.Options) {
		out = append(out, []any{k, s.Options[k]})
	}
	return out, nil
}

// consumerRows lists consumer files, by id.
func consumerRows(t *table.Table) ([][]any, error) {
	cs, err := t.Snapshots.Consumers()
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(cs))
	for id := range cs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([][]any, len(ids))
	for i, id := range ids {
		out[i] = []any{id, cs[id].NextSnapshot}
	}
	return out, nil
}

// partitionString is Paimon's cast of a partition row to STRING: "{v1, v2}".
func partitionString(t *table.Table, part []byte) (any, error) {
	if len(part) == 0 {
		return nil, nil
	}
	vals, err := t.PartitionValues(part)
	if err != nil {
		return nil, err
	}
	types := partTypes(t)
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = sql.FormatValue(v, types[i])
	}
	return "{" + strings.Join(parts, ", ") + "}", nil
}

func partTypes(t *table.Table) []sql.DataType {
	var out []sql.DataType
	for _, p := range t.Schema.PartitionKeys {
		out = append(out, t.Schema.Fields[t.Schema.FieldIndex(p)].Type)
	}
	return out
}

// manifestRows lists the manifests of the latest snapshot (base + delta).
func manifestRows(t *table.Table) ([][]any, error) {
	s, err := t.Snapshots.Latest()
	if err != nil || s == nil {
		return nil, err
	}
	var out [][]any
	for _, list := range []string{s.BaseManifestList, s.DeltaManifestList} {
		metas, err := t.Manifests.ReadManifestList(list)
		if err != nil {
			return nil, err
		}
		for _, m := range metas {
			var minP, maxP any
			if len(t.Schema.PartitionKeys) > 0 {
				if minP, err = partitionString(t, m.PartitionStats.MinValues); err != nil {
					return nil, err
				}
				if maxP, err = partitionString(t, m.PartitionStats.MaxValues); err != nil {
					return nil, err
				}
			} else {
				minP, maxP = "{}", "{}"
			}
			out = append(out, []any{m.FileName, m.FileSize, m.NumAddedFiles, m.NumDeletedFiles, m.SchemaID, minP, maxP,
				optI64(m.MinRowID), optI64(m.MaxRowID)})
		}
	}
	return out, nil
}

// fileRows lists the live data files of the latest snapshot by partition,
// bucket and level, with keys and value stats rendered as Paimon does:
// min_key "[1001]", null_value_counts "{amount=0, order_id=0}".
func fileRows(t *table.Table) ([][]any, error) {
	s, err := t.Snapshots.Latest()
	if err != nil || s == nil {
		return nil, err
	}
	live, err := t.Manifests.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
	if err != nil {
		return nil, err
	}
	manifest.SortEntries(live)
	var out [][]any
	for i := range live {
		e := &live[i]
		fsch, err := t.Schemas.Read(e.File.SchemaID)
		if err != nil {
			return nil, err
		}
		path, err := t.FilePath(e)
		if err != nil {
			return nil, err
		}
		part, err := partitionString(t, e.Partition)
		if err != nil {
			return nil, err
		}
		if len(t.Schema.PartitionKeys) == 0 {
			part = "{}"
		}
		minK, maxK, err := keyStrings(fsch, e)
		if err != nil {
			return nil, err
		}
		nulls, mins, maxs, err := statStrings(fsch, e)
		if err != nil {
			return nil, err
		}
		var ct any
		if e.File.CreationTime != nil {
			ct = sql.TimestampData{Millis: *e.File.CreationTime}
		}
		var src any
		if e.File.FileSource != nil {
			src = map[manifest.FileSource]string{manifest.SourceAppend: "APPEND", manifest.SourceCompact: "COMPACT"}[*e.File.FileSource]
		}
		var wc any
		if e.File.WriteCols != nil {
			a := make([]any, len(e.File.WriteCols))
			for j, c := range e.File.WriteCols {
				a[j] = c
			}
			wc = a
		}
		out = append(out, []any{part, e.Bucket, path, format.FormatOf(e.File.FileName), e.File.SchemaID, e.File.Level,
			e.File.RowCount, e.File.FileSize, minK, maxK, nulls, mins, maxs, e.File.MinSequenceNumber, e.File.MaxSequenceNumber,
			ct, optI64(e.File.DeleteRowCount), src, optI64(e.File.FirstRowID), wc})
	}
	return out, nil
}

// keyStrings renders min/max keys as Java's Arrays.toString of the
// trimmed primary key; null for append files (empty key rows).
func keyStrings(s *schema.TableSchema, e *manifest.ManifestEntry) (any, any, error) {
	if len(s.PrimaryKeys) == 0 {
		return nil, nil, nil
	}
	keys, err := s.Project(s.TrimmedPrimaryKeys())
	if err != nil {
		return nil, nil, err
	}
	types := format.FieldTypes(keys)
	render := func(b []byte) (any, error) {
		if n, err := binrow.SerializedArity(b); err != nil || n == 0 {
			return nil, err
		}
		vals, err := binrow.Deserialize(types, b)
		if err != nil {
			return nil, err
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = sql.FormatValue(v, types[i])
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	}
	minK, err := render(e.File.MinKey)
	if err != nil {
		return nil, nil, fmt.Errorf("file %s min key: %w", e.File.FileName, err)
	}
	maxK, err := render(e.File.MaxKey)
	if err != nil {
		return nil, nil, fmt.Errorf("file %s max key: %w", e.File.FileName, err)
	}
	return minK, maxK, nil
}

// statStrings renders value stats as Java's TreeMap toString over the
// covered columns ("{amount=80.00, order_id=1001}"); columns without stats
// are omitted, so a file written without value stats shows "{}".
func statStrings(s *schema.TableSchema, e *manifest.ManifestEntry) (nulls, mins, maxs string, err error) {
	fields := s.Fields
	if e.File.ValueStatsCols != nil {
		if fields, err = s.Project(e.File.ValueStatsCols); err != nil {
			return "", "", "", err
		}
	}
	st := e.File.ValueStats
	n, _ := binrow.SerializedArity(st.MinValues)
	if n != len(fields) {
		return "{}", "{}", "{}", nil
	}
	types := format.FieldTypes(fields)
	minV, err := binrow.Deserialize(types, st.MinValues)
	if err != nil {
		return "", "", "", fmt.Errorf("file %s stats: %w", e.File.FileName, err)
	}
	maxV, err := binrow.Deserialize(types, st.MaxValues)
	if err != nil {
		return "", "", "", fmt.Errorf("file %s stats: %w", e.File.FileName, err)
	}
	idx := make([]int, len(fields))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return fields[idx[a]].Name < fields[idx[b]].Name })
	var nb, lb, hb []string
	for _, i := range idx {
		name := fields[i].Name
		nc := "null"
		if i < len(st.NullCounts) && st.NullCounts[i] != nil {
			nc = fmt.Sprint(*st.NullCounts[i])
		}
		nb = append(nb, name+"="+nc)
		lb = append(lb, name+"="+sql.FormatValue(minV[i], types[i]))
		hb = append(hb, name+"="+sql.FormatValue(maxV[i], types[i]))
	}
	wrap := func(p []string) string { return "{" + strings.Join(p, ", ") + "}" }
	return wrap(nb), wrap(lb), wrap(hb), nil
}
