// The DuckDB side of `make bench-scale`'s read benchmark (issue 24): on one
// thread, DuckDB reads the given Parquet files (the data files of the
// latest snapshot of the table sqlrun wrote: the same bytes sqlrun reads)
// and runs one query over the table's user columns k, s1..s20:
//   all   COUNT(*), MAX(k) and MAX of every string column
//   three COUNT(*), MAX(k), MAX(s1), MAX(s2) (a key and 2 columns)
//   filter three's, over the rows WHERE s3 < '8' AND k > 0
//   rows   COUNT(*), MAX(k), MAX(concat(s1, s2)) over those rows
//   none  nothing (the process's start-up, subtracted by the script)
// scripts/bench-scale.sh measures the process (CPU, peak RSS) and prints
// the result row so that both engines' answers can be compared.
//
// Usage: node duckdb-read.mjs <all|three|filter|rows|none> <file.parquet>...
import { DuckDBInstance } from '@duckdb/node-api';

const [kind, ...files] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await inst.connect();
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const cols = kind === 'all' ? 20 : 2;
const aggs = kind === 'rows' ? ['COUNT(*) AS n', 'MAX(k) AS mk', 'MAX(concat(s1, s2)) AS m12']
  : ['COUNT(*) AS n', 'MAX(k) AS mk', ...Array.from({ length: cols }, (_, i) => `MAX(s${i + 1}) AS m${i + 1}`)];
if (kind !== 'none') {
  const where = kind === 'filter' || kind === 'rows' ? " WHERE s3 < '8' AND k > 0" : '';
  const r = await con.runAndReadAll(`SELECT ${aggs.join(', ')} FROM read_parquet([${files.map(lit).join(', ')}])${where}`);
  console.log(JSON.stringify(r.getRowObjectsJson()[0]));
}
