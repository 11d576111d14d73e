"""Many sessions at once: every statement either returns its rows or is
refused with 53300 BUSY (the user's max_jobs), nothing else; airlockd
stays up (the suite runs it under ASan+UBSan) and cleans up after itself."""

import threading

import psycopg2

import itest


def worker(n, results):
    try:
        conn = itest.connect(itest.AGENT_URL, autocommit=True)
    except psycopg2.Error as e:
        results.append(("connect", e.pgcode, str(e)))
        return
    try:
        for i in range(4):
            try:
                with conn.cursor() as cur:
                    cur.execute("SELECT id, amount FROM orders WHERE id = %s", (n * 10 + i + 1,))
                    rows = cur.fetchall()
                    results.append(("ok", len(rows), rows[0][0]))
            except psycopg2.Error as e:
                results.append(("error", e.pgcode, str(e).splitlines()[0]))
    finally:
        conn.close()


def test_concurrent_sessions():
    results = []
    threads = [threading.Thread(target=worker, args=(n, results)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=180)
    assert not any(t.is_alive() for t in threads), "a session hung"
    assert len(results) == 48, results
    oks = [r for r in results if r[0] == "ok"]
    others = [r for r in results if r[0] != "ok"]
    assert all(r[1] == 1 for r in oks)
    assert all(r[0] == "error" and r[1] == "53300" and "BUSY" in r[2] for r in others), others
    assert len(oks) >= 12, results
