// pgx_check: drives pgx (Debian's golang-github-jackc-pgx-v4-dev) against
// one URL and prints one JSON line per step, so a test can compare airlock
// with a direct connection. pgx prepares every statement it runs (Parse,
// Describe of the statement, then Bind with binary formats for the types
// it knows), caches the description, and pipelines batches.
//
// Usage: pgx_check URL [simple]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgconn"
	"github.com/jackc/pgx/v4"
)

func emit(step string, v interface{}) {
	b, err := json.Marshal(map[string]interface{}{"step": step, "value": v})
	if err != nil {
		b, _ = json.Marshal(map[string]interface{}{"step": step, "value": fmt.Sprint(v)})
	}
	fmt.Println(string(b))
}

func pgErr(err error) map[string]string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return map[string]string{"code": pe.Code, "message": pe.Message}
	}
	if err == nil {
		return nil
	}
	return map[string]string{"code": "", "message": err.Error()}
}

// rows as strings per value, with the column type OIDs.
func query(ctx context.Context, conn *pgx.Conn, sql string, args ...interface{}) interface{} {
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return pgErr(err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return pgErr(err)
		}
		var line []string
		for _, v := range vals {
			if t, ok := v.(time.Time); ok {
				line = append(line, t.UTC().Format(time.RFC3339Nano))
			} else {
				line = append(line, fmt.Sprintf("%T:%v", v, v))
			}
		}
		out = append(out, line)
	}
	if err := rows.Err(); err != nil {
		return pgErr(err)
	}
	var types []uint32
	for _, f := range rows.FieldDescriptions() {
		types = append(types, f.DataTypeOID)
	}
	return map[string]interface{}{"rows": out, "types": types}
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cfg, err := pgx.ParseConfig(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if len(os.Args) > 2 && os.Args[2] == "simple" {
		cfg.PreferSimpleProtocol = true
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer conn.Close(ctx)

	var one int
	err = conn.QueryRow(ctx, "SELECT 1").Scan(&one)
	emit("select_1", map[string]interface{}{"value": one, "err": pgErr(err)})

	emit("params", query(ctx, conn,
		"SELECT id, customer_id, amount, note, created_at FROM orders WHERE id <= $1 AND amount > $2 ORDER BY id",
		8, 0.5))
	emit("types", query(ctx, conn,
		"SELECT 1.5::float8 AS f, 42::int2 AS s, 'x y'::bytea AS b, '{\"a\": [1, 2]}'::jsonb AS j,"+
			" interval '1 day 02:03:04' AS iv, date '2024-02-29' AS d,"+
			" uuid 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' AS u, 'h\u00e9llo'::text AS t,"+
			" '{{1,2},{3,4}}'::int[] AS a2, ARRAY['a', NULL, 'c d'] AS ta, 12345.678::numeric(10,3) AS n,"+
			" NULL::int8 AS nothing, true AS yes, timestamptz '2024-01-02 03:04:05+00' AS ts"))
	emit("join", query(ctx, conn,
		"SELECT o.id, c.name, c.email FROM orders o JOIN customers c ON c.id = o.customer_id"+
			" WHERE o.id = ANY($1) ORDER BY o.id", []int32{3, 1, 2}))

	// A statement run many times: pgx's statement cache describes it once.
	var sum int64
	for i := 1; i <= 100; i++ {
		var id int64
		if err := conn.QueryRow(ctx, "SELECT id FROM orders WHERE id = $1", i).Scan(&id); err != nil {
			emit("repeat_error", pgErr(err))
			break
		}
		sum += id
	}
	emit("repeat", sum)

	_, err = conn.Exec(ctx, "DELETE FROM orders WHERE id = $1", 1)
	emit("refused", pgErr(err))
	emit("after_refusal", query(ctx, conn, "SELECT count(*) FROM orders WHERE id < $1", 10))

	tx, err := conn.Begin(ctx)
	if err != nil {
		emit("begin", pgErr(err))
	} else {
		emit("in_tx", query(ctx, tx.Conn(), "SELECT id FROM orders ORDER BY id LIMIT 3"))
		emit("commit", pgErr(tx.Commit(ctx)))
	}

	b := &pgx.Batch{}
	b.Queue("SELECT id FROM orders WHERE id = $1", 4)
	b.Queue("SELECT name FROM customers WHERE id = $1", 5)
	b.Queue("SELECT count(*) FROM products")
	br := conn.SendBatch(ctx, b)
	var bid int64
	var bname string
	var bcount int64
	e1 := br.QueryRow().Scan(&bid)
	e2 := br.QueryRow().Scan(&bname)
	e3 := br.QueryRow().Scan(&bcount)
	emit("batch", map[string]interface{}{"id": bid, "name": bname, "count": bcount,
		"errs": []interface{}{pgErr(e1), pgErr(e2), pgErr(e3)}})
	emit("batch_close", pgErr(br.Close()))
}
