// node_mysql2.js: runs statements through mysql2 (3.x) and prints the
// results as JSON, so a test can compare airlock with a direct connection.
//   node node_mysql2.js HOST PORT USER PASSWORD DATABASE [CA_FILE] < jobs.json
// With CA_FILE, over TLS, the server's certificate checked against it (the
// demo's databases take their backend accounts over TLS only).
// jobs.json: [{"sql": "...", "values": [...] or null, "execute": false}, ...]
// query() formats values into the text on the client side; execute() uses
// the server-side prepared statement protocol.
// Output: one JSON array, one entry per job: {fields, rows}, {affected} for a
// statement without a result set, or {error: {errno, message}}.
'use strict';
const mysql = require('mysql2/promise');

function plain(v) {
  if (v instanceof Date) return v.toISOString();
  if (Buffer.isBuffer(v)) return 'hex:' + v.toString('hex');
  return v;
}

async function main() {
  const [host, port, user, password, database, ca] = process.argv.slice(2);
  const fs = require('fs');
  const jobs = JSON.parse(fs.readFileSync(0, 'utf8'));
  const conn = await mysql.createConnection({ host, port: Number(port), user, password, database,
                                              rowsAsArray: true, dateStrings: false, timezone: 'Z',
                                              ssl: ca ? { ca: fs.readFileSync(ca) } : undefined });
  const out = [];
  for (const job of jobs) {
    try {
      const run = job.execute ? conn.execute.bind(conn) : conn.query.bind(conn);
      const [rows, fields] = await run(job.sql, job.values || undefined);
      if (!fields) {
        out.push({ affected: rows.affectedRows });
        continue;
      }
      out.push({ fields: fields.map(f => [f.name, f.columnType, f.decimals]),
                 rows: rows.map(row => row.map(plain)) });
    } catch (e) {
      out.push({ error: { errno: e.errno, message: e.message } });
    }
  }
  await conn.end();
  process.stdout.write(JSON.stringify(out));
}

main().catch(e => { console.error(e); process.exit(1); });
