"""mysqldump, as people run it to hand an agent's schema to an LLM:
--no-data of the allowed tables through airlock prints the definitions
MariaDB prints directly, and asking for a hidden table fails as for a
missing one."""

import subprocess

import itest


def dump(*args, direct=False):
    if direct:
        target = ["-h", itest.MY_DIRECT_HOST, "-P", str(itest.MY_DIRECT_PORT), "-u", "airlock_ro",
                  "-p" + itest.my_backend_password()] + itest.MY_DIRECT_TLS_ARGS
    else:
        target = ["-h", itest.MY_HOST, "-P", str(itest.MY_PORT), "-u", "agent", "-p" + itest.AGENT_PASSWORD]
    return subprocess.run(["mysqldump", "--no-defaults", "--protocol=tcp", "--skip-dump-date"] + target + list(args),
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, cwd="/")


def test_schema_of_allowed_tables():
    got = dump("--no-data", "shop", "orders", "customers")
    assert got.returncode == 0, got.stderr
    # The backend account may not LOCK TABLES; the dump prints no lock either way.
    want = dump("--no-data", "--skip-lock-tables", "shop", "orders", "customers", direct=True)
    assert want.returncode == 0, want.stderr
    # airlock presents itself as MySQL 8.0 (limits.md): the header's server version differs.
    assert strip_version(got.stdout) == strip_version(want.stdout)
    assert "CREATE TABLE `orders`" in got.stdout and "CREATE TABLE `customers`" in got.stdout


def strip_version(text):
    return "\n".join(line for line in text.splitlines() if not line.startswith("-- Server version"))


def test_whole_database_holds_only_the_allowed_tables():
    got = dump("--no-data", "shop")
    assert got.returncode == 0, got.stderr
    want = dump("--no-data", "--skip-lock-tables", "shop", "customers", "orders", "products", direct=True)
    assert strip_version(got.stdout) == strip_version(want.stdout)
    assert "staff_salaries" not in got.stdout + got.stderr


def test_hidden_table_fails_as_a_missing_one():
    hidden = dump("--no-data", "shop", "staff_salaries")
    missing = dump("--no-data", "shop", "no_such_table")
    assert hidden.returncode == missing.returncode != 0
    assert hidden.stderr.replace("staff_salaries", "X") == missing.stderr.replace("no_such_table", "X")


def test_data_dump_of_a_table_within_the_caps():
    got = dump("shop", "products")
    assert got.returncode == 0, got.stderr
    want = dump("--skip-lock-tables", "shop", "products", direct=True)
    assert strip_version(got.stdout) == strip_version(want.stdout)
    assert "INSERT INTO `products` VALUES" in got.stdout


def test_data_dump_past_the_caps_fails_where_the_tool_shows_it():
    """orders has more rows than agent's max_rows: mysqldump drops warnings, so the cut is an error
    it prints and exits on, never a file that passes for the whole table."""
    got = dump("shop", "orders")
    assert got.returncode != 0
    assert "RESULT_TRUNCATED" in got.stderr, got.stderr
