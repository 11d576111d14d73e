"""Reads that change state are refused: no function a read may call assigns
a transaction id, advances a counter, takes a lock or writes to the
server's log, on either engine. Played two ways: every volatile function the
backend role may execute is refused by airlock or is on the reviewed list
below; and the allowed corpus, run through airlock, leaves the engines'
transaction id counters where they were."""

import re

import psycopg2
import pymysql
import pytest

import itest

# Volatile pg_catalog functions the backend role may run that change nothing a
# later statement or another session sees, reviewed one by one. Every other
# volatile function it may run must be refused before it reaches the backend.
PG_REVIEWED_HARMLESS = {
    # values of this statement only
    "random", "clock_timestamp", "timeofday", "gen_random_uuid", "current_query", "amvalidate",
    # waiting and this statement's own state
    "pg_sleep", "pg_sleep_for", "pg_sleep_until", "setseed", "pg_stat_clear_snapshot",
    "pg_stat_force_next_flush",
    # reads of the server's state, no write
    "pg_is_in_recovery", "pg_is_wal_replay_paused", "pg_get_wal_replay_pause_state", "pg_jit_available",
    "pg_current_wal_lsn", "pg_current_wal_insert_lsn", "pg_current_wal_flush_lsn", "pg_last_wal_receive_lsn",
    "pg_last_wal_replay_lsn", "pg_last_xact_replay_timestamp", "pg_last_committed_xact",
    "pg_xact_status", "txid_status", "pg_xact_commit_timestamp", "pg_xact_commit_timestamp_origin",
    "pg_control_checkpoint", "pg_control_init", "pg_control_recovery", "pg_control_system",
    "pg_collation_actual_version", "pg_database_collation_actual_version", "pg_notification_queue_usage",
    "pg_get_multixact_members", "pg_get_wal_resource_managers", "pg_stat_get_recovery_prefetch",
    "pg_isolation_test_session_is_blocked", "pg_sequence_last_value",
    # sizes and partitions: their relation argument is guarded by the catalog scope
    "pg_database_size", "pg_relation_size", "pg_table_size", "pg_indexes_size", "pg_total_relation_size",
    "pg_tablespace_size", "pg_partition_tree", "pg_partition_ancestors",
    # this transaction's own counters
    "pg_stat_get_xact_blocks_fetched", "pg_stat_get_xact_blocks_hit", "pg_stat_get_xact_function_calls",
    "pg_stat_get_xact_function_self_time", "pg_stat_get_xact_function_total_time",
    "pg_stat_get_xact_numscans", "pg_stat_get_xact_tuples_deleted", "pg_stat_get_xact_tuples_fetched",
    "pg_stat_get_xact_tuples_hot_updated", "pg_stat_get_xact_tuples_inserted",
    "pg_stat_get_xact_tuples_returned", "pg_stat_get_xact_tuples_updated",
    # superuser only in the server itself
    "pg_stop_making_pinned_objects",
}


def pg_volatile_functions():
    out = itest.super_query(
        "SELECT DISTINCT proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
        "WHERE n.nspname = 'pg_catalog' AND p.provolatile = 'v' AND p.prokind = 'f' "
        "AND has_function_privilege('airlock_ro', p.oid, 'execute') "
        # Handlers and trigger functions cannot be called from a statement.
        "AND p.prorettype NOT IN ('trigger'::regtype, 'internal'::regtype, 'event_trigger'::regtype, "
        "'language_handler'::regtype, 'table_am_handler'::regtype, 'index_am_handler'::regtype, "
        "'tsm_handler'::regtype, 'fdw_handler'::regtype) "
        "AND NOT 'internal'::regtype = ANY (p.proargtypes) ORDER BY 1")
    return out.split()


def test_pg_volatile_functions_are_refused_or_reviewed(agent_ac):
    """The class, not a list of known bad names: a function the role may run that could change
    state is refused by name before any runner exists."""
    names = pg_volatile_functions()
    assert len(names) > 50, names
    let_through = []
    for name in names:
        with agent_ac.cursor() as cur:
            try:
                cur.execute('SELECT pg_catalog."%s"()' % name)
                cur.fetchall()
                reached = True
            except psycopg2.Error as e:
                # Refused by airlock (42501 FORBIDDEN_FUNCTION), or it reached the backend
                # (no such signature, wrong arguments, permission denied).
                reached = "FORBIDDEN_FUNCTION" not in str(e)
        if reached and name not in PG_REVIEWED_HARMLESS:
            let_through.append(name)
    assert let_through == [], "volatile functions neither refused nor reviewed: %s" % let_through


def pg_next_xid():
    """The next transaction id Postgres will assign: taking a snapshot assigns none."""
    return int(itest.super_query("SELECT txid_snapshot_xmax(txid_current_snapshot())"))


PG_EXTRA = [
    "SELECT count(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.amount > 100",
    "SELECT relname FROM pg_class WHERE relkind = 'r' ORDER BY 1",
    "SELECT column_name FROM information_schema.columns WHERE table_name = 'orders' ORDER BY 1",
    "SELECT txid_current_if_assigned(), pg_current_xact_id_if_assigned()",
    "SELECT now(), random() < 2, gen_random_uuid() IS NOT NULL, clock_timestamp() IS NOT NULL",
    "EXPLAIN SELECT * FROM orders WHERE id = 5",
    "SELECT pg_relation_size('orders') > 0",
    "SHOW search_path",
]


def test_pg_allowed_corpus_assigns_no_transaction_id(agent):
    before = pg_next_xid()
    cur = agent.cursor()
    for sql in itest.QUERIES + PG_EXTRA:
        cur.execute(sql)
        cur.fetchall()
    # Bound parameters (extended protocol), a cursor, and a transaction block.
    cur.execute("SELECT id FROM orders WHERE id = %s AND note IS DISTINCT FROM %s", (7, "x"))
    cur.fetchall()
    cur.execute("DECLARE c CURSOR FOR SELECT id FROM orders ORDER BY id")
    cur.execute("FETCH 5 FROM c")
    cur.fetchall()
    cur.execute("CLOSE c")
    agent.commit()
    assert cur.execute("SELECT txid_current_if_assigned()") is None and cur.fetchone()[0] is None
    agent.commit()
    assert pg_next_xid() == before, "a read through airlock assigned a transaction id"


def test_pg_xid_check_can_fail():
    """The counter the test above watches does move when a transaction writes."""
    before = pg_next_xid()
    itest.super_query("SELECT txid_current()")
    assert pg_next_xid() > before


def my_trx_counter():
    status = itest.my_super_query("SHOW ENGINE INNODB STATUS")
    m = re.search(r"Trx id counter (\d+)", status.replace("\\n", "\n"))
    assert m, status[:500]
    return int(m.group(1))


MY_EXTRA = [
    "SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.amount > 100",
    "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'shop' ORDER BY 1",
    "SHOW TABLES",
    "SHOW COLUMNS FROM orders",
    "SELECT RAND() < 2, NOW() IS NOT NULL",
    "EXPLAIN SELECT * FROM orders WHERE id = 5",
]


def test_my_allowed_corpus_assigns_no_transaction_id():
    conn = itest.my_connect(autocommit=True)
    before = my_trx_counter()
    with conn.cursor() as cur:
        for sql in itest.MY_QUERIES + MY_EXTRA:
            cur.execute(sql)
            cur.fetchall()
        cur.execute("SELECT id FROM orders WHERE id = %s", (7,))
        cur.fetchall()
    conn.close()
    assert my_trx_counter() == before, "a read through airlock started a read-write transaction"


@pytest.mark.parametrize("sql", [
    "SELECT UUID_SHORT()", "SELECT GET_LOCK('x', 0)", "SELECT RELEASE_ALL_LOCKS()",
    "SELECT NEXTVAL(s)", "SELECT MASTER_POS_WAIT('f', 4)", "SELECT MASTER_GTID_WAIT('0-1-1', 0)",
])
def test_my_counter_and_lock_functions_refused(sql):
    conn = itest.my_connect(autocommit=True)
    with pytest.raises(pymysql.err.MySQLError) as e:
        with conn.cursor() as cur:
            cur.execute(sql)
    assert "FUNCTION_NOT_ALLOWED" in str(e.value) or e.value.args[0] in (1370, 1142), e.value
    conn.close()
