/*
 * The Postgres approval store: the same records and moves as the SQLite
 * store's tests, on a real Postgres (AIRLOCK_TEST_STATE_DSN), and what
 * only a shared store has: recovery per node, a foreign table, a server
 * that is not there. Without a database it exits 77 (skipped);
 * integration/tests/test_state_store.py runs it with one.
 */
#define STORE_PG 1
#include "tests/approval/test_approval_store.c"
