"""Server-side cursors of MySQL prepared statements, through MariaDB
Connector/C (integration/clients/my_cursor_check.c, built here against
Debian's libmariadb): COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY, then
COM_STMT_FETCH a few rows at a time, compared with the same program
against MariaDB directly; refusals arrive as the client's error, the caps
hold, and the connection goes on after every case."""

import os
import subprocess
import tempfile

import pytest

import itest

SOURCE = os.path.join(itest.REPO, "integration", "clients", "my_cursor_check.c")


@pytest.fixture(scope="module")
def cursor_bin():
    out = os.path.join(tempfile.mkdtemp(prefix="airlock-mycursor-"), "my_cursor_check")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libmariadb"], capture_output=True, text=True,
                           check=True).stdout.split()
    subprocess.run(["cc", "-O1", "-Wall", "-o", out, SOURCE, *flags], check=True, timeout=120)
    return out


def run(exe, sql, prefetch=3, param=None, user="agent", direct=False):
    if direct:
        host, port, user, password = itest.MY_DIRECT_HOST, itest.MY_DIRECT_PORT, "airlock_ro", \
            itest.my_backend_password()
    else:
        host, port, password = "127.0.0.1", itest.MY_PORT, itest.AGENT_PASSWORD
    args = [exe, host, str(port), user, password, "shop", str(prefetch), sql]
    if param is not None:
        args.append(str(param))
    # The backend account logs in over TLS only.
    env = dict(itest.clean_env(), MY_CA=itest.DB_CA) if direct else itest.clean_env()
    out = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


@pytest.mark.parametrize("prefetch", [1, 3, 100])
@pytest.mark.parametrize("sql,param", [
    ("SELECT id, note, amount, created_at FROM orders WHERE id <= ? ORDER BY id", 11),
    ("SELECT c.name, COUNT(o.id) AS n FROM customers c JOIN orders o ON o.customer_id = c.id"
     " WHERE c.id <= ? GROUP BY c.name ORDER BY c.name", 12),
    ("SELECT id FROM orders WHERE id < ? ORDER BY id", 0),
])
def test_cursor_fetches_same_as_direct(cursor_bin, sql, param, prefetch):
    got = run(cursor_bin, sql, prefetch, param)
    assert got == run(cursor_bin, sql, prefetch, param, direct=True)
    assert got[-1] == "after 42"


def test_cursor_refused_then_more(cursor_bin):
    got = run(cursor_bin, "SELECT * FROM staff_salaries WHERE id = ?", 2, 1)
    assert got[0].startswith("error 1142") and "TABLE_NOT_ALLOWED" in got[0], got
    assert got[-1] == "after 42"


def test_cursor_is_capped(cursor_bin):
    """agent_small's max_rows = 5: the cursor ends after five rows, its connection goes on."""
    got = run(cursor_bin, "SELECT id FROM orders ORDER BY id", 2, user="agent_small")
    assert got == ["1", "2", "3", "4", "5", "rows 5", "after 42"], got
