"""More MySQL drivers: mysql2 (Node) with client-side formatting and with
server-side prepared statements, and
MariaDB Connector/J 2.7 (JDBC) with autocommit off. Each is compared with
the same driver against MariaDB directly."""

import json
import os
import subprocess
import tempfile

import pytest

import itest

MY_JDBC_JAR = "/usr/share/java/mariadb-java-client.jar"


def mysql2_run(jobs, direct=False, user=("agent", itest.AGENT_PASSWORD)):
    env = dict(itest.clean_env())
    env["NODE_PATH"] = os.environ.get("AIRLOCK_NODE_PATH", "/var/lib/airlock-demo/node/node_modules")
    tls = []
    if direct:
        target = [itest.MY_DIRECT_HOST, str(itest.MY_DIRECT_PORT), "airlock_ro", itest.my_backend_password()]
        tls = [itest.DB_CA]  # airlock_ro's account REQUIREs SSL
    else:
        target = [itest.MY_HOST, str(itest.MY_PORT), user[0], user[1]]
    out = subprocess.run(["node", os.path.join(itest.REPO, "integration/clients/node_mysql2.js")] + target +
                         ["shop"] + tls, input=json.dumps(jobs), capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_mysql2_query_same_as_direct():
    # MariaDB marks JSON columns in its extended column metadata, which it
    # sends only to clients that negotiate MariaDB's extended capabilities;
    # airlock presents itself as MySQL 8.0 and offers none, so mysql2 gets
    # JSON as text through airlock and parses it directly: left out here.
    jobs = [{"sql": q} for q in itest.MY_QUERIES if "JSON_" not in q]
    jobs += [
        {"sql": "SELECT id, note FROM orders WHERE id = ? OR id = ? ORDER BY id", "values": [3, 4]},
        {"sql": "SELECT COUNT(*) AS n FROM customers WHERE email LIKE ?", "values": ["customer1%"]},
        {"sql": "SELECT ? AS a, ? AS b, ? AS c", "values": [None, "it's \\ \"quoted\"", 7.5]},
        {"sql": "SELECT id FROM orders ORDER BY id LIMIT ?", "values": [2]},
    ]
    assert mysql2_run(jobs) == mysql2_run(jobs, direct=True)


def test_mysql2_execute_same_as_direct():
    """execute(): COM_STMT_PREPARE once, COM_STMT_EXECUTE with typed values, binary result rows."""
    jobs = [{"sql": q, "execute": True} for q in itest.MY_QUERIES if "JSON_" not in q]
    jobs += [
        {"sql": "SELECT id, note, amount, created_at FROM orders WHERE id = ? OR id = ? ORDER BY id",
         "values": [3, 4], "execute": True},
        {"sql": "SELECT COUNT(*) AS n FROM customers WHERE email LIKE ?", "values": ["customer1%"], "execute": True},
        {"sql": "SELECT COUNT(*) AS n FROM customers WHERE email LIKE ?", "values": ["customer2%"], "execute": True},
        {"sql": "SELECT ? AS a, ? AS b, ? AS c, ? AS d", "values": [None, "it's \\ \"q\" '--", -7, "h\u00e9"],
         "execute": True},
        {"sql": "SELECT id, customer_id FROM orders WHERE created_at < ? ORDER BY id LIMIT 3",
         "values": ["2024-01-01 00:05:00"], "execute": True},
    ]
    assert mysql2_run(jobs) == mysql2_run(jobs, direct=True)


def test_mysql2_execute_limit_with_a_double():
    """mysql2 sends numbers as DOUBLE: LIMIT ? still works, as the value is a whole number."""
    got = mysql2_run([{"sql": "SELECT id FROM orders ORDER BY id LIMIT ?", "values": [2], "execute": True}])
    assert got[0]["rows"] == [[1], [2]], got


def test_mysql2_execute_limit_with_strings_same_as_direct():
    """PDO, mysqli, DBD::mysql and the mariadb connector bind LIMIT / OFFSET counts as strings
    (mysql2 does with a string value): MariaDB takes a string of digits as the count."""
    jobs = [
        {"sql": "SELECT id FROM orders ORDER BY id LIMIT ?", "values": ["2"], "execute": True},
        {"sql": "SELECT id FROM orders ORDER BY id LIMIT ?, ?", "values": ["3", "2"], "execute": True},
        {"sql": "SELECT id FROM orders ORDER BY id LIMIT ? OFFSET ?", "values": ["2", "5"], "execute": True},
        {"sql": "SELECT id FROM orders WHERE note <> ? ORDER BY id LIMIT ?", "values": ["7", "1"], "execute": True},
    ]
    got = mysql2_run(jobs)
    assert got == mysql2_run(jobs, direct=True)
    assert [r["rows"] for r in got] == [[[1], [2]], [[4], [5]], [[6], [7]], got[3]["rows"]], got
    # MariaDB reads the string's leading number ("2.7" is 2, "abc" 0); so does airlock, which sends
    # only digits. (A negative one wraps to 2^64 - n: every row, past max_rows.)
    odd = [{"sql": "SELECT id FROM orders ORDER BY id LIMIT ?", "values": [v], "execute": True}
           for v in ["2 UNION SELECT salary FROM staff_salaries", "", "1e1", " 3", "2.7", "abc", "+4"]]
    got = mysql2_run(odd)
    assert got == mysql2_run(odd, direct=True)
    assert [len(g["rows"]) for g in got] == [2, 0, 1, 3, 2, 0, 4], got


def test_mysql2_show_warnings_prepared_same_as_direct():
    """PDO with native prepares (and mysql2's execute) prepares SHOW WARNINGS too: it lists the
    last statement's warnings as the text statement does, in binary rows."""
    warn = "SELECT CAST('7x' AS UNSIGNED) + CAST('abc' AS UNSIGNED) AS n"
    jobs = [
        {"sql": warn, "execute": True},
        {"sql": "SHOW WARNINGS", "execute": True},
        {"sql": "SHOW WARNINGS LIMIT 1", "execute": True},
        {"sql": warn},
        {"sql": "SHOW COUNT(*) WARNINGS", "execute": True},
        {"sql": "SHOW ERRORS", "execute": True},
        {"sql": "SELECT id FROM orders WHERE id = 1", "execute": True},
        {"sql": "SHOW WARNINGS", "execute": True},
    ]
    got = mysql2_run(jobs)
    assert got == mysql2_run(jobs, direct=True)
    assert [len(g["rows"]) for g in got[1:3]] == [2, 1], got
    assert got[1]["rows"][0][1] == 1292, got
    assert got[4]["rows"] == [[2]] and got[7]["rows"] == [], got


def test_mysql2_refusals():
    got = mysql2_run([
        {"sql": "SELECT * FROM staff_salaries WHERE id = ?", "values": [1]},
        {"sql": "SELECT ?; DROP TABLE orders", "values": [1]},
        {"sql": "SELECT * FROM staff_salaries WHERE id = ?", "values": [1], "execute": True},
        {"sql": "DELETE FROM orders WHERE id = ?", "values": [1], "execute": True},
        # A value can never become SQL: it is a literal in the final text, which is validated again.
        {"sql": "SELECT id FROM orders WHERE note = ?", "values": ["x' UNION SELECT salary FROM staff_salaries -- "],
         "execute": True},
        {"sql": "SELECT 1 AS one"},
    ])
    assert got[0]["error"]["errno"] == 1142 and "TABLE_NOT_ALLOWED" in got[0]["error"]["message"]
    assert got[1]["error"]["errno"] == 1064 and "MULTI_STATEMENT" in got[1]["error"]["message"]
    assert got[2]["error"]["errno"] == 1142 and "TABLE_NOT_ALLOWED" in got[2]["error"]["message"]
    assert got[3]["error"]["errno"] == 1792, got[3]
    assert got[4] == {"fields": [["id", 8, 0]], "rows": []}, got[4]
    assert got[5]["rows"] == [[1]]


@pytest.fixture(scope="module")
def jdbc_classes():
    out = tempfile.mkdtemp(prefix="airlock-myjdbc-")
    subprocess.run(["javac", "-d", out, os.path.join(itest.REPO, "integration/clients/JdbcCheck.java")],
                   check=True, timeout=120)
    return out


def jdbc_run(classes, queries, direct=False, options=""):
    if direct:
        # airlock_ro's account REQUIREs SSL: Connector/J over TLS, the certificate checked against the demo CA.
        tls = "useSsl=true&serverSslCert=" + itest.DB_CA
        options = options + "&" + tls if options else "?" + tls
        url = "jdbc:mariadb://%s:%d/shop%s" % (itest.MY_DIRECT_HOST, itest.MY_DIRECT_PORT, options)
        user, password = "airlock_ro", itest.my_backend_password()
    else:
        url = "jdbc:mariadb://%s:%d/shop%s" % (itest.MY_HOST, itest.MY_PORT, options)
        user, password = "agent", itest.AGENT_PASSWORD
    # Twice per query (Connector/J formats statements on the client side), errors by errno.
    out = subprocess.run(["java", "-cp", MY_JDBC_JAR + ":" + classes, "JdbcCheck", url, user, password, "2",
                          "errno"],
                         input="\n".join(queries) + "\n", capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_connector_j_same_as_direct(jdbc_classes):
    """Connector/J's connect-time statements, autocommit off with commit, isValid()."""
    queries = itest.MY_QUERIES[:6]
    got = jdbc_run(jdbc_classes, queries)
    assert got == jdbc_run(jdbc_classes, queries, direct=True)
    assert got[-1] == "valid true"


def test_connector_j_refusal(jdbc_classes):
    got = jdbc_run(jdbc_classes, ["SELECT * FROM staff_salaries", "SELECT 2 AS two"])
    assert got[0].startswith("ERROR 1142 ") and "TABLE_NOT_ALLOWED" in got[0]
    assert got[1] == "two:BIGINT | 2" or got[1] == "two:INTEGER | 2", got[1]


def test_connector_j_server_prepared_metadata(jdbc_classes):
    """useServerPrepStmts: COM_STMT_PREPARE lists the statement's columns, which getMetaData() reads
    before anything runs, the same as the backend's; then the statement runs with them."""
    queries = [
        "#describe SELECT id, amount, note, created_at FROM orders WHERE id = ? AND amount > ?",
        "#describe SELECT c.name, COUNT(*) AS n FROM customers c JOIN orders o ON o.customer_id = c.id"
        " WHERE c.id < ? GROUP BY c.name",
        "#describe SELECT * FROM products",
        "SELECT id, amount, note FROM orders WHERE id < 4 ORDER BY id",
        "#describe SELECT * FROM staff_salaries WHERE id = ?",
    ]
    got = jdbc_run(jdbc_classes, queries, options="?useServerPrepStmts=true")
    want = jdbc_run(jdbc_classes, queries, direct=True, options="?useServerPrepStmts=true")
    assert got[:4] == want[:4]
    assert got[0].startswith("#describe: id:BIGINT amount:DECIMAL note:VARCHAR created_at:DATETIME |"), got[0]
    # Refused at COM_STMT_PREPARE: Connector/J falls back to its own prepare and learns no column.
    assert got[4].split("|")[0].strip() == "#describe:", got[4]
    assert got[-1] == "valid true"


def test_connector_j_metadata_lists_only_allowed(jdbc_classes):
    """DatabaseMetaData, what Hibernate and JDBC tools reflect, over the scoped information_schema."""
    got = jdbc_run(jdbc_classes, ["#tables", "#columns orders", "#columns staff_salaries"])
    assert got[0] == "#tables: customers orders products", got
    assert got[1] == "#columns orders: id customer_id amount note created_at", got
    assert got[2] == "#columns staff_salaries:", got

