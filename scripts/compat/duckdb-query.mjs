// Runs SQL in DuckDB for the differential query test (exec/diffq_test.go):
// reads a JSON file {"setup": [statements], "queries": [queries]} and
// prints one JSON array with, per query, {"rows": [[...], ...]} (values as
// DuckDB's JSON conversion gives them: numbers, strings for BIGINT, HUGEINT
// and DECIMAL, booleans, null) or {"error": "..."}.
//
// Usage: node duckdb-query.mjs <input.json>
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
for (const s of input.setup) {
  await con.run(s);
}
const out = [];
for (const q of input.queries) {
  try {
    const r = await con.runAndReadAll(q);
    out.push({ rows: r.getRowsJson() });
  } catch (e) {
    out.push({ error: String(e.message ?? e) });
  }
}
process.stdout.write(JSON.stringify(out));
