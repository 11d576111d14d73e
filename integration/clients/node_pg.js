// node_pg.js: runs queries through node-postgres (pg 8) and prints the
// results as JSON, so a test can compare airlock with a direct connection.
//   node node_pg.js URL < jobs.json
// jobs.json: [{"text": "...", "values": [...] or null}, ...]
// Output: one JSON array, one entry per job: {fields, rows} or {error: {code, message}}.
'use strict';
const { Client } = require('pg');

async function main() {
  const url = process.argv[2];
  const jobs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const client = new Client({ connectionString: url });
  await client.connect();
  const out = [];
  for (const job of jobs) {
    try {
      const r = await client.query({ text: job.text, values: job.values || undefined,
                                     name: job.name || undefined, rowMode: 'array' });
      out.push({ command: r.command, fields: r.fields.map(f => [f.name, f.dataTypeID]),
                 rows: r.rows.map(row => row.map(v => (v instanceof Date ? v.toISOString() : v))) });
    } catch (e) {
      out.push({ error: { code: e.code, message: e.message } });
    }
  }
  await client.end();
  process.stdout.write(JSON.stringify(out));
}

main().catch(e => { console.error(e); process.exit(1); });
