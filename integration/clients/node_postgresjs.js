// node_postgresjs.js: drives postgres.js (porsager, postgres@3) and
// node-postgres' pg-cursor against one URL and prints one JSON object of
// what they returned, so a test can compare airlock with a direct
// connection. postgres.js prepares every parameterised query (Parse,
// Describe of the statement, Bind with its own binary choices); with
// prepare: false it still describes. pg-cursor reads a portal a few rows
// at a time (Execute with a row limit, PortalSuspended, more Executes).
//   node node_postgresjs.js URL
'use strict';
const postgres = require('postgres');
const { Client } = require('pg');
const Cursor = require('pg-cursor');

function plain(rows) {
  return rows.map(r => Object.fromEntries(Object.entries(r).map(([k, v]) => {
    if (v instanceof Date) return [k, v.toISOString()];
    if (Buffer.isBuffer(v)) return [k, v.toString('hex')];
    if (typeof v === 'bigint') return [k, v.toString()];
    return [k, v];
  })));
}

function err(e) {
  return { error: { code: e.code, message: e.message } };
}

async function postgresjs(url, prepare) {
  const sql = postgres(url, { prepare, max: 1, connect_timeout: 30, onnotice: () => {} });
  const out = {};
  const step = async (name, fn) => {
    try { out[name] = plain(await fn()); } catch (e) { out[name] = err(e); }
  };
  await step('one', () => sql`SELECT 1 AS one`);
  await step('params', () => sql`SELECT id, customer_id, amount, note, created_at FROM orders
                                  WHERE id <= ${8} AND note LIKE ${'order%'} ORDER BY id`);
  await step('types', () => sql`SELECT ${1.5}::float8 AS f, ${42}::int2 AS s, ${'x y'}::bytea AS b,
                                 ${'{"a": [1, 2]}'}::jsonb AS j, date '2024-02-29' AS d,
                                 ${'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'}::uuid AS u,
                                 '{{1,2},{3,4}}'::int[] AS a2, 12345.678::numeric(10,3) AS n,
                                 ${null}::int8 AS nothing, ${true} AS yes`);
  await step('in_list', () => sql`SELECT id FROM orders WHERE id IN ${sql([3, 1, 2])} ORDER BY id`);
  let total = 0;
  for (let i = 1; i <= 60; i++) {
    const r = await sql`SELECT id FROM orders WHERE id = ${i}`;
    total += Number(r[0].id);
  }
  out.repeat = total;
  await step('refused', () => sql`DELETE FROM orders WHERE id = ${1}`);
  await step('after_refusal', () => sql`SELECT count(*)::int AS n FROM orders WHERE id < ${10}`);
  await step('tx', () => sql.begin(async tx => tx`SELECT id FROM orders ORDER BY id LIMIT ${3}`));
  await sql.end({ timeout: 5 });
  return out;
}

async function cursor(url) {
  const client = new Client({ connectionString: url });
  await client.connect();
  const out = { batches: [] };
  const c = client.query(new Cursor('SELECT id, note FROM orders WHERE id <= $1 ORDER BY id', [11]));
  for (;;) {
    const rows = await c.read(4);
    out.batches.push(rows.map(r => [r.id, r.note]));
    if (rows.length === 0) break;
  }
  await c.close();
  // The connection goes on after the cursor.
  out.after = (await client.query('SELECT 2 AS two')).rows;
  // A refused cursor arrives as the client's error.
  try {
    const bad = client.query(new Cursor('SELECT * FROM staff_salaries'));
    await bad.read(1);
    await bad.close();
    out.refused = null;
  } catch (e) {
    out.refused = err(e).error;
  }
  out.after_refusal = (await client.query('SELECT 3 AS three')).rows;
  await client.end();
  return out;
}

async function main() {
  const url = process.argv[2];
  const out = {
    prepared: await postgresjs(url, true),
    unprepared: await postgresjs(url, false),
    cursor: await cursor(url),
  };
  process.stdout.write(JSON.stringify(out));
}

main().catch(e => { console.error(e); process.exit(1); });
