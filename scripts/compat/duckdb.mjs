// Reads Parquet files with DuckDB (an independent Parquet reader) and
// prints, per file, what it sees: the schema elements (parquet_schema), the
// column chunks' types, encodings and statistics (parquet_metadata), the
// row count, and per top-level primitive column the min and max of its
// values next to the footer's statistics. The Go compatibility test
// (connectors/paimon/compat) checks these against parquet-java's and
// Paimon's rules.
//
// Usage: node duckdb.mjs <file.parquet>...   (one JSON object per line)
import { DuckDBInstance } from '@duckdb/node-api';

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const ident = (s) => '"' + s.replaceAll('"', '""') + '"';

for (const f of process.argv.slice(2)) {
  const out = { file: f };
  try {
    out.schema = await q(`SELECT name, type, type_length, repetition_type, num_children, converted_type, scale, precision, field_id, logical_type FROM parquet_schema(${lit(f)})`);
    out.chunks = await q(`SELECT row_group_id, path_in_schema, type, encodings, compression, num_values, stats_min_value, stats_max_value, stats_null_count FROM parquet_metadata(${lit(f)})`);
    out.rows = (await q(`SELECT count(*) AS n FROM read_parquet(${lit(f)})`))[0].n;
    out.minmax = {};
    const top = out.schema.filter((e, i) => i > 0 && e.type !== null && !e.name.includes('.'));
    const cols = await q(`DESCRIBE SELECT * FROM read_parquet(${lit(f)})`);
    for (const c of cols) {
      const t = c.column_type;
      if (/^(STRUCT|MAP)|\[\]$/.test(t) || t === 'BOOLEAN' || t === 'BLOB') continue;
      const n = ident(c.column_name);
      const r = (await q(`SELECT CAST(min(${n}) AS VARCHAR) AS min, CAST(max(${n}) AS VARCHAR) AS max,
        count(*) FILTER (WHERE ${n} IS NULL) AS nulls FROM read_parquet(${lit(f)})`))[0];
      r.type = t;
      if (/^(DECIMAL|INTEGER|BIGINT|SMALLINT|TINYINT|DOUBLE|FLOAT)/.test(t)) {
        // A filter DuckDB pushes into the scan, where the footer's
        // statistics may skip a row group, against the same count taken
        // without pushdown (an aggregate's FILTER reads every value).
        r.pushedNegative = (await q(`SELECT count(*) AS n FROM read_parquet(${lit(f)}) WHERE ${n} < 0`))[0].n;
        r.scannedNegative = (await q(`SELECT count(*) FILTER (WHERE ${n} < 0) AS n FROM read_parquet(${lit(f)})`))[0].n;
      }
      out.minmax[c.column_name] = r;
    }
    out.values = await q(`SELECT * FROM read_parquet(${lit(f)}, file_row_number = true) ORDER BY file_row_number`);
  } catch (e) {
    out.error = String(e && e.message || e);
  }
  console.log(JSON.stringify(out));
}
