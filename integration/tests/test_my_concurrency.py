"""Many MySQL sessions at once, text queries and prepared statements mixed
with refusals: every statement returns its rows, is refused as it should
be, or gets BUSY (the user's max_jobs), nothing else; airlockd stays up
(the suite runs it under ASan+UBSan)."""

import threading

import pymysql

import itest


def worker(n, results):
    try:
        conn = itest.my_connect(autocommit=True)
    except pymysql.err.MySQLError as e:
        results.append(("connect", e.args[0], str(e.args)))
        return
    try:
        for i in range(4):
            sql, args = (("SELECT id, amount FROM orders WHERE id = %s", (n * 10 + i + 1,)) if i != 2 else
                         ("SELECT * FROM staff_salaries WHERE id = %s", (n,)))
            try:
                with conn.cursor() as cur:
                    cur.execute(sql, args)
                    rows = cur.fetchall()
                    results.append(("ok", len(rows), rows[0][0]))
            except pymysql.err.MySQLError as e:
                results.append(("error", e.args[0], e.args[1]))
    finally:
        conn.close()


def test_concurrent_mysql_sessions():
    results = []
    threads = [threading.Thread(target=worker, args=(n, results)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=180)
    assert not any(t.is_alive() for t in threads), "a session hung"
    assert len(results) == 48, results
    oks = [r for r in results if r[0] == "ok"]
    refused = [r for r in results if r[0] == "error" and r[1] == 1142]
    busy = [r for r in results if r[0] == "error" and r[1] == 1040 and "BUSY" in r[2]]
    assert len(refused) == 12, results
    assert all(r[1] == 1 for r in oks)
    assert len(oks) + len(busy) == 36, results
    assert len(oks) >= 12, results
