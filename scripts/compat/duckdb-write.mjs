// The DuckDB side of `make bench-scale`'s write benchmark (issue 24): on one
// thread, DuckDB makes n rows of the Paimon write benchmarks' shape (k INT
// random over the int range, s1..s20 random 10-character lowercase hex
// strings, as Flink's datagen and Paimon's TableBenchmark make them) and
// writes them to one Parquet file with zstd (level 1 unless given), as they
// come (no sort: DuckDB's streaming write). scripts/bench-scale.sh measures
// the process (CPU, peak RSS) and the file's size.
//
// Usage: node duckdb-write.mjs <rows> <out.parquet> [zstd-level]
import { DuckDBInstance } from '@duckdb/node-api';

const [n, out, level = '1'] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await inst.connect();
const cols = Array.from({ length: 20 }, (_, i) => `substr(md5(random()::VARCHAR), 1, 10) AS s${i + 1}`);
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
await con.run(`COPY (SELECT (floor(random() * 4294967296) - 2147483648)::INTEGER AS k, ${cols.join(', ')}
  FROM range(${Number(n)})) TO ${lit(out)} (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL ${Number(level)})`);
