// Loads an `rcf export` dataset (docs/export.md) with DuckDB, as a warehouse user would, and
// prints one JSON object: per view, the rows DuckDB read and, for a partitioned view, the lanes it
// read back from the Hive directory names. tests/export_test.cc compares the counts with the
// SQLite views. Usage: node tests/duckdb/load_export.mjs EXPORT_DIR
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node load_export.mjs EXPORT_DIR');
  process.exit(2);
}
const schema = JSON.parse(readFileSync(join(dir, 'schema.json'), 'utf8'));
const ext = schema.format === 'csv' ? 'csv.gz' : 'ndjson.gz';

// schema.json's observed JSON types as DuckDB column types, so that an empty part file or a
// column that is NULL throughout still reads.
const duckType = { integer: 'BIGINT', number: 'DOUBLE', string: 'VARCHAR', null: 'VARCHAR', mixed: 'JSON' };
const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

function hasFiles(path) {
  if (!existsSync(path)) return false;
  return readdirSync(path, { recursive: true }).some((f) => String(f).endsWith(ext));
}

const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
const counts = {};
for (const view of schema.views) {
  const viewDir = join(dir, view.path);
  if (!hasFiles(viewDir)) {
    // A partitioned view with no rows has no partition directory, as in Hive.
    counts[view.name] = { rows: 0, lanes: [] };
    continue;
  }
  const columns = view.columns
    .filter((c) => !c.partition_key)
    .map((c) => `${sqlString(c.name)}: ${sqlString(duckType[c.json_type] ?? 'JSON')}`)
    .join(', ');
  const partitioned = view.partition_keys.length > 0;
  const glob = partitioned ? join(viewDir, '**', `*.${ext}`) : join(viewDir, `*.${ext}`);
  const source =
    `read_json(${sqlString(glob)}, format = 'newline_delimited', columns = {${columns}}` +
    (partitioned ? ', hive_partitioning = true, hive_types_autocast = false)' : ')');
  const rows = (await connection.runAndReadAll(`SELECT count(*) FROM ${source}`)).getRows();
  const entry = { rows: Number(rows[0][0]) };
  if (partitioned) {
    const lanes = await connection.runAndReadAll(
      `SELECT DISTINCT lane FROM ${source} ORDER BY lane`);
    entry.lanes = lanes.getRows().map((r) => r[0]);
  }
  counts[view.name] = entry;
}
console.log(JSON.stringify(counts));
