"""What the catalogs tell about a table with a rule, played by support
(orders filtered to customer_id <= 100, customers shown as id, name and a
masked email): no statistic, count or size may describe the rows or values
the rule hides. The backend's own privileges are no help: a backend role
that owns its tables may read the statistics of their indexes, and the
statistics of an expression index hold the values it indexes."""

import re

import pytest

import itest

# No snapshot_guard: these tests add an index and a constraint to orders and
# change its owner for a while, and put everything back, but that moves
# pg_class rows, and the snapshot lists relations in pg_class's physical
# order (its string_agg orders by the constant 1), so it would differ.

SUPPORT_URL = itest.AGENT_URL.replace("agent:agent-secret", "support:support-secret")


def rows(url, sql):
    return itest.fetch_all(url, sql)


@pytest.fixture
def owned_orders_with_expression_index():
    """orders owned by the backend role, with an expression index over a
    column the filter hides rows of, analyzed; everything put back after."""
    itest.super_query("CREATE INDEX airlock_t_note_expr ON orders ((upper(note)));"
                      " ALTER TABLE orders OWNER TO airlock_ro; ANALYZE orders")
    try:
        yield "airlock_t_note_expr"
    finally:
        itest.super_query("ALTER TABLE orders OWNER TO postgres; GRANT SELECT ON orders TO airlock_ro;"
                          " DROP INDEX IF EXISTS airlock_t_note_expr; ANALYZE orders")


def test_expression_index_statistics_of_a_filtered_table_hidden(owned_orders_with_expression_index):
    index = owned_orders_with_expression_index
    # The backend role can read them: the leak is real without the scoping.
    direct = rows(itest.direct_url(), "SELECT count(*) FROM pg_stats WHERE tablename = '%s'" % index)
    assert direct == [(1,)], direct
    # A hidden row's note: customer_id of order 1 is 7920 % 1000 + 1 = 921 > 100.
    hidden_note = "ORDER 1"
    assert rows(SUPPORT_URL, "SELECT count(*) FROM orders WHERE id = 1") == [(0,)]
    for sql in ["SELECT count(*) FROM pg_stats WHERE tablename = '%s'" % index,
                "SELECT count(*) FROM pg_catalog.pg_stats WHERE attname = 'upper'"]:
        assert rows(SUPPORT_URL, sql) == [(0,)], sql
    got = rows(SUPPORT_URL, "SELECT string_agg(s::text, ',') FROM pg_stats s")
    assert not re.search(r"ORDER [0-9]", repr(got)), got
    assert hidden_note not in repr(got)
    # agent, without rules, still sees its indexes' statistics.
    assert rows(itest.AGENT_URL, "SELECT count(*) FROM pg_stats WHERE tablename = '%s'" % index) == [(1,)]


def test_filtered_and_masked_tables_read_as_never_analyzed():
    """Row estimates, counters and sizes of orders (filtered) and customers
    (masked) would count the rows and bytes their rules hide: support sees
    them as Postgres shows a table never analyzed nor used; products, with
    no rule, keeps its figures."""
    itest.super_query("ANALYZE orders; ANALYZE customers; ANALYZE products")
    direct = dict((r[0], r[1:]) for r in rows(itest.direct_url(), "SELECT relname, reltuples, relpages FROM pg_class"
                                                                 " WHERE relname IN ('orders', 'customers', 'products')"))
    assert direct["orders"][0] == 200000, direct
    got = dict((r[0], r[1:]) for r in rows(SUPPORT_URL, "SELECT relname, reltuples, relpages, relallvisible FROM pg_class"
                                                         " WHERE relname IN ('orders', 'customers',"
                                                         " 'orders_pkey', 'orders_customer_id', 'customers_pkey')"))
    for rel in ("orders", "customers", "orders_pkey", "orders_customer_id", "customers_pkey"):
        assert got[rel] == (-1, 0, 0), (rel, got)
    for view in ("pg_stat_user_tables", "pg_stat_all_tables"):
        got = rows(SUPPORT_URL, "SELECT relname, seq_scan, seq_tup_read, n_tup_ins, n_live_tup, n_dead_tup,"
                                " last_analyze, last_autoanalyze FROM %s WHERE relname IN ('orders', 'customers')"
                                " ORDER BY 1" % view)
        assert got and all(r[1:6] in ((0, 0, 0, 0, 0), (0, 0, 0, None, None)) and r[6:] == (None, None)
                           for r in got), (view, got)
    got = rows(SUPPORT_URL, "SELECT relname, heap_blks_read, heap_blks_hit, idx_blks_hit FROM pg_statio_user_tables"
                            " WHERE relname IN ('orders', 'customers')")
    assert got and all(r[1:] == (0, 0, 0) for r in got), got
    got = rows(SUPPORT_URL, "SELECT indexrelname, idx_scan, idx_tup_read FROM pg_stat_user_indexes"
                            " WHERE relname IN ('orders', 'customers')")
    assert got and all(r[1:] == (0, 0) for r in got), got
    got = rows(SUPPORT_URL, "SELECT pg_relation_size('orders'), pg_table_size('orders'),"
                            " pg_total_relation_size('public.customers'), pg_indexes_size('orders'),"
                            " pg_relation_size('orders_pkey'), pg_relation_size('orders', 'main')")
    assert got == [(None, None, None, None, None, None)], got
    # agent, without rules, sees the real figures (support sees no table without a rule).
    assert rows(itest.AGENT_URL, "SELECT reltuples, relpages FROM pg_class WHERE relname = 'orders'") == \
        [direct["orders"]]
    assert rows(itest.AGENT_URL, "SELECT pg_relation_size('orders') > 0") == [(True,)]


def test_constraints_and_indexes_on_hidden_columns_are_hidden():
    """support_cols sees orders as id, customer_id and amount: an index or a
    constraint on note, a hidden column, is itself hidden."""
    cols_url = itest.AGENT_URL.replace("agent:agent-secret", "support_cols:support-secret")
    itest.super_query("CREATE INDEX airlock_t_note ON orders (note);"
                      " ALTER TABLE orders ADD CONSTRAINT airlock_t_note_check CHECK (note <> 'secret') NOT VALID")
    try:
        for sql in ["SELECT string_agg(pg_get_indexdef(indexrelid), ',') FROM pg_index"
                    " WHERE indrelid = 'orders'::regclass",
                    "SELECT string_agg(indexdef, ',') FROM pg_indexes WHERE tablename = 'orders'",
                    "SELECT string_agg(conname || pg_get_constraintdef(oid), ',') FROM pg_constraint"
                    " WHERE conrelid = 'orders'::regclass",
                    "SELECT string_agg(k::text, ',') FROM information_schema.check_constraints k",
                    "SELECT string_agg(k::text, ',') FROM information_schema.table_constraints k",
                    "SELECT string_agg(k::text, ',') FROM information_schema.constraint_column_usage k",
                    "SELECT string_agg(relname, ',') FROM pg_class WHERE relname LIKE 'airlock_t%'"]:
            got = rows(cols_url, sql)
            assert "note" not in repr(got) and "airlock_t" not in repr(got), (sql, got)
    finally:
        itest.super_query("ALTER TABLE orders DROP CONSTRAINT IF EXISTS airlock_t_note_check;"
                          " DROP INDEX IF EXISTS airlock_t_note")
