// pq_check: drives lib/pq (Debian's golang-github-lib-pq-dev) through
// database/sql against one URL and prints one JSON line per step, so a
// test can compare airlock with a direct connection. db.Begin() sends
// BEGIN READ WRITE, BeginTx with ReadOnly BEGIN READ ONLY; a query with
// arguments goes over the extended protocol, one without over the simple.
//
// Usage: pq_check URL
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/lib/pq"
)

func emit(step string, v interface{}) {
	b, err := json.Marshal(map[string]interface{}{"step": step, "value": v})
	if err != nil {
		b, _ = json.Marshal(map[string]interface{}{"step": step, "value": fmt.Sprint(v)})
	}
	fmt.Println(string(b))
}

func pqErr(err error) map[string]string {
	var pe *pq.Error
	if errors.As(err, &pe) {
		return map[string]string{"code": string(pe.Code), "message": pe.Message}
	}
	if err == nil {
		return nil
	}
	return map[string]string{"code": "", "message": err.Error()}
}

type querier interface {
	Query(query string, args ...interface{}) (*sql.Rows, error)
}

// rows of a query of two columns, as text.
func rows(q querier, query string, args ...interface{}) interface{} {
	r, err := q.Query(query, args...)
	if err != nil {
		return pqErr(err)
	}
	defer r.Close()
	var out [][2]string
	for r.Next() {
		var a, b string
		if err := r.Scan(&a, &b); err != nil {
			return pqErr(err)
		}
		out = append(out, [2]string{a, b})
	}
	if err := r.Err(); err != nil {
		return pqErr(err)
	}
	return out
}

func main() {
	db, err := sql.Open("postgres", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	// db.Begin(): BEGIN READ WRITE; reads inside, over both protocols.
	tx, err := db.Begin()
	emit("begin", pqErr(err))
	if err == nil {
		emit("tx_simple", rows(tx, "SELECT id::text AS i, amount::text AS a FROM orders ORDER BY id LIMIT 3"))
		emit("tx_extended", rows(tx, "SELECT id::text AS i, amount::text AS a FROM orders WHERE id <= $1 ORDER BY id", 2))
		emit("commit", pqErr(tx.Commit()))
	}

	// BEGIN READ ONLY.
	tx, err = db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	emit("begin_read_only", pqErr(err))
	if err == nil {
		emit("ro_extended", rows(tx, "SELECT $1::text, count(*)::text FROM products", "n"))
		emit("ro_commit", pqErr(tx.Commit()))
	}

	// A write inside a READ WRITE block is refused; the block rolls back and the connection goes on.
	tx, err = db.Begin()
	if err == nil {
		_, werr := tx.Exec("UPDATE orders SET amount = amount WHERE id = 1")
		emit("write", pqErr(werr))
		emit("rollback", pqErr(tx.Rollback()))
	}
	emit("after", rows(db, "SELECT 'still'::text, $1::text", "usable"))
}
