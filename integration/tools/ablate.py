#!/usr/bin/python3
"""ablate: for each claim of the safety table (docs/safety.md), take its
mechanism away and run the test that names it; the test must fail. Not
part of CI: run it by hand, as root, on a machine test.sh has set up (the
demo's Postgres and MariaDB, runc, the suite's config and runner root
filesystem).

  integration/tools/ablate.py            every row but the comparison rows
  integration/tools/ablate.py NAME...    the rows whose name contains one of NAME
                                   ("suite" names the comparison rows: the
                                   tests the table named before, which pass
                                   with any one layer gone)
  integration/tools/ablate.py --list     the rows
  integration/tools/ablate.py --control NAME...
                                   the same tests on HEAD as it is: each must
                                   pass, or its "yes" above proves nothing
  integration/tools/ablate.py --hold NAME...
                                   takes the integration lock at the first
                                   test and keeps it to the end of the run
                                   (builds included), instead of taking it
                                   again for every row: for a long list of
                                   rows while others wait for the lock too
  integration/tools/ablate.py --no-lock NAME...
                                   without the integration lock, for when its
                                   holder is gone; rows that change the shared
                                   backend roles (the .sql ablations) are
                                   refused then, unless --roles-too is given
                                   as well (the roles are changed for a few
                                   seconds and put back)

Per row, in a scratch worktree of HEAD (/tmp/ablate-wt; the working tree
of the repository is never touched):

1. the row's ablation from integration/tools/ablation/: a patch (git apply) that
   removes the mechanism from the code, or for a database role an .sql file
   whose "-- up" half takes the role's protection away and whose "-- down"
   half puts it back (run as the superuser around the test, always undone);
2. a build (RelWithDebInfo, with AIRLOCK_VALIDATOR_BYPASS for the tests
   that need it) in the worktree's build/, and a runner root filesystem
   from its airlock-runner;
3. the row's test: a unit test of that build (ctest), or integration tests
   (pytest) against an airlockd of that build on free ports of its own
   with job_dir /run/airlock/ablate/jobs, started only for rows that need it
   (and checked to be the process that listens there).
   The integration lock (/tmp/airlock-itest.lock) is held while anything
   runs against the shared databases.

Each row's test output goes to /tmp/ablate-logs/NAME.log. Prints: claim | mechanism removed | test | failed without it? ("yes" is the
proof; "NO" means the test does not depend on that mechanism)."""

import os
import re
import signal
import socket
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WT = os.environ.get("AIRLOCK_ABLATE_WT", "/tmp/ablate-wt")
BUILD = os.path.join(WT, "build")
ABLATION = os.path.join(REPO, "integration", "tools", "ablation")
STATE_DIR = "/var/lib/airlock-demo"
BASE_CONFIG = os.path.join(STATE_DIR, "airlock-test.ini")
CONFIG = os.path.join(STATE_DIR, "airlock-ablate.ini")
JOB_DIR = "/run/airlock/ablate/jobs"
LOCK = "/tmp/airlock-itest.lock"
PG_PORT, MY_PORT = 0, 0  # free ports, chosen at start
OCI_RUNTIME = "/usr/sbin/runc"
LOGS = "/tmp/ablate-logs"  # each row's test output

# name, claim, mechanism removed, ablation file, test.
# A test is "ctest:NAME" (a unit test of the ablated build), "py:ARGS" (pytest in integration/,
# private airlockds and the runner harness only) or "airlockd+py:ARGS" (an airlockd of the
# ablated build is started first, as test.sh starts the suite's).
ROWS = [
    ("pg-ro-txn", "No writes, no DDL", "the runner's BEGIN READ ONLY (Postgres)",
     "01-pg-read-only-transaction.patch",
     "py:test_runner_layers.py -k pg_read_only_transaction"),
    ("pg-ro-txn-e2e", "No writes, no DDL", "the runner's BEGIN READ ONLY, validator bypassed",
     "01-pg-read-only-transaction.patch",
     "py:test_layers_bypass.py -k pg_read_only_transaction"),
    ("my-ro-txn", "MySQL: no writes, no DDL", "the runner's READ ONLY session (MariaDB)",
     "02-my-read-only-transaction.patch",
     "py:test_runner_layers.py -k my_read_only_transaction"),
    ("my-ro-txn-e2e", "MySQL: no writes, no DDL", "the runner's READ ONLY session, validator bypassed",
     "02-my-read-only-transaction.patch",
     "py:test_layers_bypass.py -k my_read_only_transaction"),
    ("pg-role", "No writes, no DDL", "airlock_ro's read-only default and SELECT-only grants (Postgres)",
     "09-pg-read-only-role.sql",
     "py:test_runner_layers.py test_layers_bypass.py -k pg_read_only_role"),
    ("my-role", "MySQL: no writes, no DDL", "airlock_ro's SELECT-only grants (MariaDB)",
     "10-my-read-only-role.sql",
     "py:test_runner_layers.py test_layers_bypass.py -k my_read_only_role"),
    ("runner-caps", "Bounded results", "the runner's max_rows / max_bytes (runner_cap_check)",
     "03-runner-caps.patch",
     "py:test_runner_layers.py -k runner_stops"),
    ("proxy-caps", "Bounded results", "airlockd's own row and byte counting (backstop)",
     "04-proxy-backstop-caps.patch",
     "py:test_runner_backstop.py -k proxy_backstop"),
    ("engine-timeout", "Hard time limit", "statement_timeout in the engine (Postgres)",
     "05-pg-engine-timeout.patch",
     "py:test_runner_layers.py -k pg_engine_timeout"),
    ("pg-watchdog", "Hard time limit", "the runner's watchdog and cancel (Postgres)",
     "06-pg-watchdog.patch",
     "py:test_runner_layers.py -k pg_watchdog"),
    ("my-watchdog", "MySQL: hard time limit", "the runner's KILL QUERY watchdog (MariaDB)",
     "07-my-watchdog.patch",
     "py:test_runner_layers.py -k my_watchdog"),
    ("container-kill", "Hard time limit", "airlockd's kill at timeout_ms + kill_margin_ms",
     "08-container-kill.patch",
     "py:test_runner_backstop.py -k container_kill"),
    # The tests the safety table named before the layers were proven one by one, for comparison:
    # each still passes with one layer gone when another layer covers for it.
    ("runner-caps-suite", "Bounded results", "the runner's max_rows / max_bytes (runner_cap_check)",
     "03-runner-caps.patch",
     "airlockd+py:test_pg_caps.py test_my_caps.py -k max_rows_truncates or max_bytes_truncates"),
    ("proxy-caps-suite", "Bounded results", "airlockd's own row and byte counting (backstop)",
     "04-proxy-backstop-caps.patch",
     "airlockd+py:test_pg_caps.py test_my_caps.py -k max_rows_truncates or max_bytes_truncates"),
    ("engine-timeout-suite", "Hard time limit", "statement_timeout in the engine (Postgres)",
     "05-pg-engine-timeout.patch", "airlockd+py:test_pg_timeout.py -k timeout_cancels"),
    ("pg-watchdog-suite", "Hard time limit", "the runner's watchdog and cancel (Postgres)",
     "06-pg-watchdog.patch", "airlockd+py:test_pg_timeout.py -k timeout_cancels"),
    ("my-watchdog-suite", "MySQL: hard time limit", "the runner's KILL QUERY watchdog (MariaDB)",
     "07-my-watchdog.patch", "airlockd+py:test_my_caps.py -k timeout_interrupts_sleep"),
    ("container-kill-suite", "Hard time limit", "airlockd's kill at timeout_ms + kill_margin_ms",
     "08-container-kill.patch", "airlockd+py:test_pg_timeout.py -k timeout_cancels"),
    ("stmt-kind", "No writes, no DDL", "the validator's statement kind check (Postgres)",
     "11-pg-statement-kind.patch", "ctest:test_validate_pg"),
    ("stmt-kind-e2e", "No writes, no DDL", "the validator's statement kind check (Postgres)",
     "11-pg-statement-kind.patch", "airlockd+py:test_pg_refusals.py"),
    ("my-stmt-kind", "MySQL: no writes, no DDL", "the validator's statement kind check (MySQL)",
     "17-my-statement-kind.patch", "ctest:test_validate_my"),
    ("my-stmt-kind-e2e", "MySQL: no writes, no DDL", "the validator's statement kind check (MySQL)",
     "17-my-statement-kind.patch", "airlockd+py:test_my_refusals.py"),
    ("one-stmt", "One statement per query", "the validator's statement count (Postgres)",
     "12-pg-one-statement.patch", "ctest:test_validate_pg"),
    ("one-stmt-e2e", "One statement per query", "the validator's statement count (Postgres)",
     "12-pg-one-statement.patch", "airlockd+py:test_pg_refusals.py"),
    ("tables", "Only allowlisted tables", "the validator's relation allowlist (Postgres)",
     "13-pg-table-allowlist.patch", "ctest:test_validate_pg"),
    ("tables-e2e", "Only allowlisted tables", "the validator's relation allowlist (Postgres)",
     "13-pg-table-allowlist.patch", "airlockd+py:test_pg_refusals.py"),
    ("catalog-scope", "The catalogs show only the agent's world (Postgres)", "the scoping rewrite",
     "14-pg-catalog-scoping.patch", "airlockd+py:test_pg_catalog_scope.py"),
    ("functions", "No side-effect functions", "the function denylist (Postgres)",
     "15-pg-function-denylist.patch", "ctest:test_validate_pg"),
    ("functions-e2e", "No side-effect functions", "the function denylist (Postgres)",
     "15-pg-function-denylist.patch", "airlockd+py:test_pg_refusals.py"),
    ("func-classes", "The catalogs show only the agent's world (Postgres)", "the catalog function classes",
     "65-pg-function-classes.patch", "ctest:test_validate_pg_proc"),
    ("func-classes-e2e", "The catalogs show only the agent's world (Postgres)", "the catalog function classes",
     "65-pg-function-classes.patch", "airlockd+py:test_pg_function_sweep.py"),
    ("reg-params", "Parameter types reveal nothing hidden (Postgres)", "the refusal of reg* parameter types",
     "66-pg-reg-parameters.patch", "airlockd+py:test_pg_hidden_types.py -k reg_parameter"),
    ("world-schema-names", "The catalogs show only the agent's world (Postgres)",
     "names in schemas outside the world read as NULL before the lookup",
     "67-pg-world-schema-names.patch", "airlockd+py:test_pg_hidden_types.py -k without_usage"),
    ("runtime-role-names", "The catalogs show only the agent's world (Postgres)",
     "a role name computed at run time read as NULL",
     "69-pg-runtime-role-names.patch", "airlockd+py:test_pg_one_role.py -k computed_at_run_time"),
    ("pg-attacl", "The catalogs show only the agent's world (Postgres)", "column grants (attacl) read as NULL",
     "72-pg-attacl.patch", "airlockd+py:test_pg_one_role.py -k names_another_role"),
    ("kept-reset", "A kept backend session carries nothing from one runner to the next, and serves one user",
     "DISCARD ALL in a kept session's reset", "103-kept-reset.patch",
     "airlockd+py:test_kept_sessions.py -k stained"),
    ("pg-scope-names", "The catalogs show only the agent's world (Postgres)",
     "the scoping's CTE names reserved", "102-pg-scope-cte-names.patch",
     "airlockd+py:test_pg_catalog_scope.py -k scoping_names"),
    ("pg-view-defs", "The catalogs show only the agent's world (Postgres)",
     "a view's definition as NULL when it reads outside the world", "77-pg-view-definitions.patch",
     "airlockd+py:test_pg_view_definitions.py"),
    ("pg-defined-calls", "Functions the database defines run only when listed (Postgres)",
     "the refusal of an unlisted function", "74-pg-defined-calls.patch",
     "airlockd+py:test_pg_defined_functions.py -k unlisted_function_is_refused"),
    ("pg-qualify-calls", "Functions the database defines run only when listed (Postgres)",
     "unqualified calls sent qualified", "75-pg-qualify-calls.patch",
     "airlockd+py:test_pg_defined_functions.py -k not_the_databases_overload"),
    ("pg-proc-world", "Functions the database defines run only when listed (Postgres)",
     "pg_proc and the function guards hold the world's functions alone", "76-pg-proc-world.patch",
     "airlockd+py:test_pg_defined_functions.py -k missing_from_the_catalogs"),
    ("pg-guard", "Operators, column notation and casts reach only listed functions (Postgres)",
     "the runner's guard read", "78-pg-guard.patch",
     "airlockd+py:test_pg_db_operators.py -k reached_function_is_refused"),
    ("pg-domain-walk", "Operators, column notation and casts reach only listed functions (Postgres)",
     "the guard's walk of the types a value is converted to", "79-pg-domain-walk.patch",
     "airlockd+py:test_pg_db_operators.py -k checked_domain"),
    ("pg-descendants", "A parent table shows no rows of a hidden child (Postgres)",
     "the guard's check of the descendants of a relation read without ONLY", "81-pg-descendants.patch",
     "airlockd+py:test_pg_inheritance.py -k through_a_parent"),
    ("pg-write-check", "A write never runs on the agent's word (Postgres)",
     "the runner's check of each row a write leaves", "82-pg-write-check.patch",
     "airlockd+py:test_pg_writes.py -k row_filter_bounds"),
    ("my-write-filter", "A write never runs on the agent's word (MySQL)",
     "the row filter joined to a MySQL write's WHERE and checked on the rows an INSERT writes",
     "87-my-write-filter.patch", "airlockd+py:test_my_writes.py -k row_filter_bounds"),
    ("my-write-check", "A write never runs on the agent's word (MySQL)",
     "the runner's check of each row a MySQL write leaves", "88-my-write-check.patch",
     "airlockd+py:test_my_writes.py -k row_filter_bounds"),
    ("approval-csrf", "A person deciding in a browser sees exactly what the agent sent and what will run",
     "the approval page's check of a decision's form token", "83-approval-csrf.patch",
     "airlockd+py:test_approval_page.py -k session_token"),
    ("approval-origin", "A person deciding in a browser sees exactly what the agent sent and what will run",
     "the approval page's check of a decision's Origin and Sec-Fetch-Site", "84-approval-origin.patch",
     "airlockd+py:test_approval_page.py -k session_token"),
    ("my-key-shown", "MySQL: the catalogs show only the agent's world",
     "a key listed whole or not at all in KEY_COLUMN_USAGE",
     "70-my-key-shown.patch", "airlockd+py:test_my_foreign_keys.py -k key_column_usage"),
    ("my-explain-hidden", "MySQL: the catalogs show only the agent's world",
     "a hidden key's index name replaced in EXPLAIN's plan", "80-my-explain-hidden.patch",
     "airlockd+py:test_my_foreign_keys.py -k plan_prints_no_hidden_key_name"),
    ("my-create-scrub", "MySQL: the catalogs show only the agent's world",
     "SHOW CREATE TABLE's foreign keys to hidden tables left out",
     "68-my-create-scrub.patch", "airlockd+py:test_my_foreign_keys.py -k show_create"),
    ("my-one-stmt", "MySQL: one statement, no hidden second one", "the validator's checks for a second statement (MySQL)",
     "18-my-one-statement.patch", "ctest:test_validate_my"),
    ("my-one-stmt-e2e", "MySQL: one statement, no hidden second one", "the validator's checks for a second statement (MySQL)",
     "18-my-one-statement.patch", "airlockd+py:test_my_refusals.py"),
    ("my-tables", "MySQL: only allowlisted tables", "the validator's table allowlist (MySQL)",
     "19-my-table-allowlist.patch", "ctest:test_validate_my"),
    ("my-tables-e2e", "MySQL: only allowlisted tables", "the validator's table allowlist (MySQL)",
     "19-my-table-allowlist.patch", "airlockd+py:test_my_refusals.py"),
    ("my-functions", "MySQL: no side-effect functions, no backend details", "the function denylist (MySQL)",
     "20-my-function-denylist.patch", "ctest:test_validate_my"),
    ("my-functions-e2e", "MySQL: no side-effect functions, no backend details", "the function denylist (MySQL)",
     "20-my-function-denylist.patch", "airlockd+py:test_my_refusals.py"),
    ("my-uuid", "MySQL: no side-effect functions, no backend details",
     "UUID() rewritten into a random version 4 UUID", "73-my-uuid.patch",
     "airlockd+py:test_my_world.py -k uuid_is_random"),
    ("my-catalog-scope", "MySQL: the catalogs show only the agent's world", "the scoping rewrite (MySQL)",
     "21-my-catalog-scoping.patch", "airlockd+py:test_my_catalog_scope.py"),
    ("oci-netns", "The runner reaches only the configured database", "the container's own network namespace (OCI)",
     "22-oci-network-namespace.patch", "airlockd+py:test_oci_container.py -k no_network_interfaces"),
    ("oci-seccomp", "OCI runner containers are shut in", "the container's seccomp filter (OCI)",
     "23-oci-seccomp.patch", "py:test_oci_container.py -k escape_refused"),
    ("sandbox", "Nothing an agent sends can end airlockd", "the validator worker's sandbox",
     "16-validator-sandbox.patch", "airlockd+py:test_validator_worker.py"),
    ("pg-rules", "Row filters and column policies (both protocols)", "the rewrite of a table with a rule (Postgres)",
     "24-pg-row-rules.patch", "ctest:test_validate_pg_scope"),
    ("pg-rules-e2e", "Row filters and column policies (both protocols)", "the rewrite of a table with a rule (Postgres)",
     "24-pg-row-rules.patch", "airlockd+py:test_pg_rules.py"),
    ("my-rules", "Row filters and column policies (both protocols)", "the rewrite of a table with a rule (MySQL)",
     "25-my-row-rules.patch", "ctest:test_validate_my_scope"),
    ("my-rules-e2e", "Row filters and column policies (both protocols)", "the rewrite of a table with a rule (MySQL)",
     "25-my-row-rules.patch", "airlockd+py:test_my_rules.py"),
    ("deep", "Deep statements are refused before anything recursive reads them",
     "the nesting estimate before the parser (Postgres)", "26-pg-deep-statements.patch",
     "ctest:test_validate_pg_bound"),
    ("tablesample", "A scoped relation is never deparsed in a slot that takes only a relation",
     "the refusal of a rewritten relation under TABLESAMPLE", "27-pg-tablesample-slot.patch",
     "ctest:test_validate_pg_bound"),
    ("my-bound", "MySQL: bound values stay data", "the escaping of a bound string value's quotes and backslashes",
     "28-my-bound-literal.patch", "ctest:test_my_stmt"),
    ("my-bound-e2e", "MySQL: bound values stay data", "the escaping of a bound string value's quotes and backslashes",
     "28-my-bound-literal.patch", "airlockd+py:test_my_drivers.py -k mysql2_refusals"),
    ("my-lex-mode", "MySQL: the lexer reads what the backend reads", "the session's sql_mode in the validator's lexer",
     "29-my-lexer-sql-mode.patch", "ctest:test_validate_my"),
    ("my-lex-bytes", "MySQL: the lexer reads what the backend reads",
     "latin1 / binary bytes >= 0x80 only inside quotes", "30-my-lexer-single-byte.patch", "ctest:test_validate_my"),
    ("copy", "COPY reads only what a SELECT may read", "the validation of COPY's read as a statement of its own",
     "31-pg-copy-read-validated.patch", "ctest:test_validate_pg_copy"),
    ("copy-e2e", "COPY reads only what a SELECT may read", "the validation of COPY's read as a statement of its own",
     "31-pg-copy-read-validated.patch", "airlockd+py:test_pg_copy.py"),
    ("login-delay", "Password guessing is slowed down", "the wait after login_free_failures failed logins",
     "32-login-guard-delay.patch", "ctest:test_login_guard"),
    ("login-delay-e2e", "Password guessing is slowed down", "the wait after login_free_failures failed logins",
     "32-login-guard-delay.patch", "py:test_login_guard.py -k failures_wait_longer_and_longer"),
    ("log-forge", "A client cannot forge airlockd's log lines", "the replacement of control characters in a log line",
     "33-log-line-sanitised.patch", "ctest:test_session"),
    ("preauth-evict", "Half-open connections cannot keep clients out",
     "eviction of the oldest idle connection logging in (the oldest instead)", "34-preauth-evicts-idle.patch",
     "ctest:test_session"),
    # A flood from four addresses, each under the per-address cap, fills the whole budget while a slow
    # client that sent its start-up packet first waits: without the rule it is the oldest, and goes.
    ("preauth-evict-e2e", "Half-open connections cannot keep clients out",
     "eviction of the oldest idle connection logging in (the oldest instead)", "34-preauth-evicts-idle.patch",
     "py:test_pg_preauth_flood.py -k slow_login_keeps_its_place"),
    ("job-dir-lock", "One airlockd per job directory", "the flock on job_dir/.airlockd.lock",
     "35-job-dir-lock.patch", "airlockd+py:test_crash_proof.py -k second_airlockd_on_the_same_job_dir"),
    ("rootfs-again", "A removed runner root filesystem is unpacked again, checked again",
     "unpacking the removed tree again from the pinned archive", "36-rootfs-unpacked-again.patch",
     "airlockd+py:test_crash_proof.py -k removed_root_filesystem_is_unpacked_again"),
    ("no-core", "airlockd's memory never lands in a core file", "airlockd's core-file limit of 0",
     "37-airlockd-no-core.patch", "airlockd+py:test_pg_runner_identity.py -k airlockd_writes_no_core_file"),
    ("rootfs-digest", "Runner image is what you built", "the sha256 of the OCI root filesystem archive compared with the pin",
     "38-rootfs-digest.patch", "ctest:test_oci_rootfs"),
    ("rootfs-digest-e2e", "Runner image is what you built",
     "the sha256 of the OCI root filesystem archive compared with the pin", "38-rootfs-digest.patch",
     "airlockd+py:test_oci_container.py -k root_filesystem_with_another_digest_fails_closed"),
    ("unknown-user", "No user enumeration", "SCRAM against a fake verifier for an unknown user (Postgres)",
     "39-pg-unknown-user-fake-exchange.patch", "airlockd+py:test_pg_startup.py -k unknown_user"),
    ("msg-length", "Bounded proxy memory per session", "the message length cap (Postgres)",
     "40-pg-message-length.patch",
     "airlockd+py:test_pg_protocol.py -k huge_message_length_rejected or large_message_before_authentication"),
    ("prepared-cap", "Bounded proxy memory per session", "the 4 MiB cap on a session's prepared statements (Postgres)",
     "41-pg-prepared-cap.patch", "airlockd+py:test_pg_protocol.py -k prepared_statements_memory_is_capped"),
    ("cost-cap", "Expensive reads refused before they run (optional)", "the runner's EXPLAIN of the cost",
     "42-pg-cost-cap.patch", "airlockd+py:test_pg_caps.py -k cost_cap_refuses_before_running"),
    ("plan-check", "Plans read only allowed relations (optional)", "the runner's EXPLAIN of the plan's relations",
     "43-pg-plan-check.patch", "airlockd+py:test_pg_plan_check.py"),
    ("queue-wait", "Statements beyond max_jobs wait their turn", "the wait in the queue (BUSY at once instead)",
     "44-queue-wait.patch", "airlockd+py:test_pg_queue.py -k waits_for_room"),
    ("queue-turns", "Statements beyond max_jobs wait their turn", "the user served longest ago first (arrival order)",
     "45-queue-turns.patch", "ctest:test_job_queue"),
    ("queue-turns-e2e", "Statements beyond max_jobs wait their turn",
     "the user served longest ago first (arrival order)", "45-queue-turns.patch",
     "airlockd+py:test_pg_queue.py -k users_take_turns"),
    ("user-queue", "Statements beyond max_jobs wait their turn",
     "a user's own max_jobs waited for in the queue (BUSY at once instead)", "71-user-queue.patch",
     "airlockd+py:test_pg_queue.py -k busy_agent_waits"),
    # From the host, the container's own user namespace already keeps a process of the runner's uid out
    # of its memory, with or without PR_SET_DUMPABLE; the test probes from inside that namespace too.
    ("runner-dumpable", "A runner's identity on the host is its own", "the runner's PR_SET_DUMPABLE 0",
     "46-runner-not-dumpable.patch", "airlockd+py:test_pg_runner_identity.py -k runner_is_not_dumpable"),
    ("runner-uid", "A runner's identity on the host is its own", "a uid of runner_uids that no other live job has",
     "49-runner-uid-per-job.patch",
     "airlockd+py:test_pg_runner_identity.py -k each_runner_has_a_uid_of_its_own or nobody_and_other_uids_reach_nothing"),
    ("sweep", "Nothing left behind", "the sweep of job directories left by a crash",
     "47-job-dir-sweep.patch", "ctest:test_job_dir"),
    ("pg-params", "Bound parameters stay data", "typed parameters through PQsendQueryParams (spliced into the text instead)",
     "48-pg-params-spliced.patch", "airlockd+py:test_pg_drivers.py -k psycopg3_parameters_same_as_direct"),
    ("pg-rowdesc", "Rows are never read against a stale description",
     "the comparison of an execution's columns with the statement's kept description",
     "50-pg-rowdesc-compared.patch", "airlockd+py:test_pg_extended.py -k changed_result_type"),
    ("relay-close", "A runner cannot outstay its statement", "the runner's relays to the backend closed with its result",
     "51-relays-kept-after-result.patch", "py:test_faults.py -k runner_that_stays_up"),
    ("kill-after-result", "A runner cannot outstay its statement",
     "the kill deadline armed again at the result (kill_margin_ms after it)",
     "52-no-kill-after-result.patch", "py:test_faults.py -k runner_that_stays_up"),
    ("creds-env", "Backend credentials never reach the agent or the container's metadata",
     "the password only over the control socket (in the container's environment instead)",
     "53-password-in-env.patch", "airlockd+py:test_oci_container.py -k no_credentials_in_config_or_environment"),
    ("fail-closed", "Fail closed", "RUNTIME_UNAVAILABLE when the OCI runtime cannot be run (the Docker launcher instead)",
     "54-oci-falls-back-to-docker.patch", "py:test_oci_container.py -k missing_runtime_binary_fails_closed"),
    ("my-settings", "Settings never lie", "each kept MySQL variable applied to every job",
     "55-my-settings-not-applied.patch", "airlockd+py:test_my_settings.py -k setting_has_its_effect"),
    ("pg-settings", "Settings never lie", "the session's statement_timeout bounding the job (Postgres)",
     "56-pg-statement-timeout-not-applied.patch",
     "airlockd+py:test_pg_settings.py -k statement_timeout_bounds_the_statement"),
    ("pg-tls-required", "Logins and results can travel encrypted", "tls_required, server-wide and per user (Postgres)",
     "57-pg-tls-not-required.patch", "airlockd+py:test_pg_tls.py -k tls_required_refuses or user_who_must_use_tls"),
    ("my-tls-required", "Logins and results can travel encrypted", "tls_required, server-wide and per user (MySQL)",
     "58-my-tls-not-required.patch",
     "airlockd+py:test_my_tls.py -k tls_required_refuses or mysql_user_who_must_use_tls"),
    ("my-cleartext", "MySQL: passwords with or without TLS",
     "the refusal of a cleartext password in the clear (caching_sha2_password full authentication)",
     "59-my-cleartext-in-the-clear.patch", "airlockd+py:test_my_auth.py -k cleartext_password_in_the_clear"),
    ("my-unknown-user", "MySQL: no user enumeration at login",
     "full authentication for an unknown user, as for a known user's wrong password",
     "60-my-unknown-user-at-once.patch", "airlockd+py:test_my_auth.py -k unknown_user_caching_sha2_same_exchange"),
    ("runner-death", "Faults end cleanly", "the client's error when its runner exits before its result",
     "61-runner-death-not-reported.patch", "py:test_faults.py -k runner_killed_from_outside"),
    ("rbuf-bounds", "Bad input loses nothing", "the bounds check of the read cursor every decoder reads through",
     "62-rbuf-unchecked.patch", "ctest:test_malformed"),
    ("preauth-cap", "Bad input loses nothing", "the 8 KiB cap on a message before authentication (session core)",
     "63-preauth-cap.patch", "ctest:test_session"),
    ("preauth-cap-e2e", "Bad input loses nothing", "the 8 KiB cap on a message before authentication (session core)",
     "63-preauth-cap.patch", "airlockd+py:test_pg_protocol.py -k large_message_before_authentication"),
    ("my-preauth-cap", "MySQL: bad input loses nothing",
     "the 8 KiB cap on a packet before authentication (session core)",
     "63-preauth-cap.patch", "airlockd+py:test_my_protocol.py -k large_handshake_response_rejected"),
    ("my-seq-ids", "MySQL: bad input loses nothing", "the check of each packet's sequence id",
     "64-my-sequence-ids.patch", "airlockd+py:test_my_protocol.py -k wrong_sequence_id"),
    ("pg-select-star", "Wide rows stay out of an agent's context (optional; both protocols)",
     "the validator's star check (Postgres)", "85-pg-select-star.patch", "ctest:test_validate_pg_star"),
    ("pg-select-star-e2e", "Wide rows stay out of an agent's context (optional; both protocols)",
     "the validator's star check (Postgres)", "85-pg-select-star.patch", "airlockd+py:test_select_star.py -k pg_"),
    ("my-select-star", "Wide rows stay out of an agent's context (optional; both protocols)",
     "the validator's star check (MySQL)", "86-my-select-star.patch", "ctest:test_validate_my_star"),
    ("my-select-star-e2e", "Wide rows stay out of an agent's context (optional; both protocols)",
     "the validator's star check (MySQL)", "86-my-select-star.patch", "airlockd+py:test_select_star.py -k my_"),
    ("audit-chain", "An audit record changed after the fact is found", "each record's hash of the one before it",
     "89-audit-chain.patch", "ctest:test_audit"),
    ("audit-chain-e2e", "An audit record changed after the fact is found", "each record's hash of the one before it",
     "89-audit-chain.patch", "airlockd+py:test_pg_audit.py -k origin_and_the_chain"),
    ("budget-admit", "A user's budgets bound what it takes", "the statement's check against the user's buckets",
     "90-budget-admit.patch", "airlockd+py:test_budgets.py -k statements_budget or rows_budget"),
    ("budget-admit-unit", "A user's budgets bound what it takes", "the statement's check against the user's buckets",
     "90-budget-admit.patch", "ctest:test_session"),
    ("budget-runner", "A user's budgets bound what it takes", "each job's runner time charged as it ends",
     "91-budget-runner-time.patch", "airlockd+py:test_budgets.py -k runner_seconds"),
    ("tls-verify", "The runners' link to a database is TLS when the target says so, never plain text in its place",
     "the TLS shim's certificate check", "92-tls-verify.patch",
     "airlockd+py:test_backend_tls.py -k another_ca or another_name"),
    ("peer-mac", "A node acts on another node's KILL QUERY only when it is signed with the key the nodes share",
     "the HMAC comparison of peer messages", "93-peer-mac.patch",
     "airlockd+py:test_peer_cancel.py -k another_user_or_key"),
    ("state-cas", "A held write shared by several nodes is decided and run once",
     "the Postgres store's compare-and-set on the status it read", "94-state-cas.patch",
     "py:test_state_store.py -k own_tests"),
    ("shared-logout", "A logout on one node's approval page ends the login on every node sharing state_dsn",
     "each look-up of a shared login reading the shared database", "95-shared-logout.patch",
     "py:test_state_store.py -k page_login"),
    ("worker-channel", "No process below a worker (validator, runtime, runner) can write the audit log or steer "
     "the other workers", "the line kept close-on-exec, and every spawn closing what it inherits (both layers)",
     "96-worker-channel-cloexec.patch",
     "py:test_workers.py -k line_to_the_supervisor"),
    ("worker-uids", "No two workers' runners ever share a uid", "each worker's own slice of runner_uids",
     "97-worker-uid-slices.patch", "py:test_workers.py -k own_directory"),
    ("pg-scram-proof", "A database that cannot prove it knows the password gets no statement",
     "the TLS shim's check of the server's SCRAM signature", "98-pg-scram-server-signature.patch",
     "airlockd+py:test_backend_tls.py -k cannot_prove"),
    ("mem-slot-held", "A statement canceled past backend_memory_mb keeps its slot until its backend stops",
     "the job waits for the runner's end after the memory watch's cancel", "99-mem-slot-held.patch",
     "airlockd+py:test_pg_mem_caps.py -k canceled_statement_keeps_its_slot"),
    ("detach-drain", "A client that leaves mid-statement does not take the memory watch with it",
     "the detached job's drain: cancel, watch and slot until the backend exits", "100-detach-drain.patch",
     "airlockd+py:test_pg_mem_caps.py -k leaves_mid_statement and unkept"),
    ("timeout-drain", "A timed-out statement keeps its slot until its backend stops",
     "the timed-out job's drain", "101-timeout-drain.patch",
     "airlockd+py:test_pg_mem_caps.py -k timed_out_statement and off"),
    ("kept-drain", "A client that leaves mid-statement does not take the memory watch with it",
     "a kept session's reset ending the detached job's drain", "104-kept-drain.patch",
     "airlockd+py:test_kept_sessions.py -k leaves_mid_statement"),
]


def sh(args, **kw):
    kw.setdefault("check", True)
    return subprocess.run(args, **kw)


def log(msg):
    print("[ablate %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def worktree_at_head():
    head = sh(["git", "-C", REPO, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    if not os.path.isdir(WT):
        sh(["git", "-C", REPO, "worktree", "add", "--detach", WT, head], capture_output=True)
    # Only the scratch worktree is reset; build/ (ignored) is kept for incremental builds.
    sh(["git", "-C", WT, "checkout", "-q", "-f", "--detach", head])
    sh(["git", "-C", WT, "clean", "-q", "-f", "-d"])


def apply(ablation):
    path = os.path.join(ABLATION, ablation)
    if ablation.endswith(".sql"):
        return True
    return sh(["git", "-C", WT, "apply", path], check=False, capture_output=True).returncode == 0


def build():
    if sh(["cmake", "-S", WT, "-B", BUILD, "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DAIRLOCK_VALIDATOR_BYPASS=ON"],
          check=False, capture_output=True).returncode != 0:
        return None
    r = sh(["cmake", "--build", BUILD, "-j2"], check=False, capture_output=True, text=True)
    if r.returncode != 0:
        log("build failed:\n" + r.stdout[-3000:] + r.stderr[-2000:])
        return None
    out = sh([os.path.join(WT, "integration", "tools", "build-runner-image.sh"), "--rootfs",
              os.path.join(BUILD, "ablate-rootfs.tar"), os.path.join(BUILD, "airlock-runner")],
             capture_output=True, text=True).stdout
    return out.split()[-1]


def sql_half(ablation, half):
    text = open(os.path.join(ABLATION, ablation)).read()
    up, down = text.split("-- down", 1)
    return (up.split("-- up", 1)[1] if half == "up" else down).strip()


def run_sql(ablation, half):
    sql = sql_half(ablation, half)
    if "-pg-" in ablation:
        sh(["runuser", "-u", "postgres", "--", "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", "shop", "-c", sql],
           cwd="/", capture_output=True)
    else:
        sh(["mariadb", "--no-defaults", "--protocol=socket", "-S", "/run/mysqld/mysqld.sock", "-u", "root",
            "-e", sql], capture_output=True)


def uid_busy(uid):
    out = sh(["ps", "-eo", "uid="], capture_output=True, text=True).stdout.split()
    return str(uid) in out


def write_config(rootfs):
    sys.path.insert(0, os.path.join(WT, "integration", "tests"))
    from private_airlockd import rewrite  # the suite's own config rewriting

    values = {
        "pg_listen": "127.0.0.1:%d" % PG_PORT, "mysql_listen": "127.0.0.1:%d" % MY_PORT, "job_dir": JOB_DIR,
        "runtime": "oci", "oci_runtime": OCI_RUNTIME, "runner_rootfs": rootfs,
        "runner_uids": "1000700000-1000700999",
        # The default validator uid, which test_validator_worker.py expects, unless another airlockd's
        # workers run as it (then that one row's test cannot pass, with or without its mechanism).
        "validator_uid": "1000701000" if uid_busy(999999999) else "999999999",
        "audit_log": os.path.join(STATE_DIR, "audit-ablate.log"),
    }
    with open(BASE_CONFIG) as f:
        text = rewrite(f.read(), {"server": values})
    with open(CONFIG, "w") as f:
        f.write(text)
    os.chmod(CONFIG, 0o600)
    open(values["audit_log"], "w").close()


def test_env(rootfs, pid):
    pw = open(os.path.join(STATE_DIR, "shop.password")).read().strip()
    base = "127.0.0.1:%d/shop" % PG_PORT
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", AIRLOCK_REPO=WT, AIRLOCK_JOB_DIR=JOB_DIR,
               AIRLOCK_POOL_SIZE="2", AIRLOCK_POOL_SHAPES="2", AIRLOCK_RUNTIME="oci", AIRLOCK_OCI_RUNTIME=OCI_RUNTIME,
               AIRLOCKD_BIN=os.path.join(BUILD, "airlockd"), AIRLOCK_CONFIG=CONFIG,
               AIRLOCK_PW_FILE=os.path.join(STATE_DIR, "shop.password"),
               AIRLOCK_MY_PW_FILE=os.path.join(STATE_DIR, "shop_maria.password"),
               AIRLOCK_LISTEN_PORT=str(PG_PORT), AIRLOCK_PG_URL="postgresql://agent:agent-secret@" + base,
               AIRLOCK_SMALL_URL="postgresql://agent_small:agent-secret@" + base,
               AIRLOCK_AUDIT_LOG=os.path.join(STATE_DIR, "audit-ablate.log"),
               AIRLOCK_DIRECT_URL="postgresql://airlock_ro:%s@127.0.0.1:5432/shop" % pw,
               AIRLOCK_MY_LISTEN_HOST="127.0.0.1", AIRLOCK_MY_LISTEN_PORT=str(MY_PORT),
               AIRLOCK_MY_DIRECT_HOST="127.0.0.1", AIRLOCK_MY_DIRECT_PORT="3306",
               AIRLOCK_MY_SOCK="/run/mysqld/mysqld.sock", AIRLOCK_LAYERS_ROOTFS=rootfs,
               AIRLOCK_LAYERS_LAUNCH=os.path.join(BUILD, "layers_launch"))
    env.pop("AIRLOCKD_PID", None)
    if pid:
        env["AIRLOCKD_PID"] = str(pid)
    return env


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listener_pid(port):
    out = sh(["ss", "-Hltnp", "sport = :%d" % port], capture_output=True, text=True).stdout
    m = re.search(r"pid=(\d+),", out)
    return int(m.group(1)) if m else None


def port_open(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def start_airlockd():
    os.makedirs(os.path.dirname(JOB_DIR), mode=0o711, exist_ok=True)
    logf = open(os.path.join(STATE_DIR, "airlockd-ablate.log"), "wb")
    proc = subprocess.Popen([os.path.join(BUILD, "airlockd"), "-c", CONFIG], stdout=logf, stderr=logf,
                            stdin=subprocess.DEVNULL)
    for _ in range(300):
        if proc.poll() is not None:
            return proc
        if listener_pid(PG_PORT) == proc.pid and listener_pid(MY_PORT) == proc.pid:
            return proc
        time.sleep(0.1)
    return proc


def stop_airlockd(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


NO_LOCK = False
CONTROL = False
HOLD = False
HELD = None  # with --hold, the lock's file once taken, kept open to the end of the run


def take_lock():
    """Takes the integration lock; returns the file to release it with, or None when there is nothing to
    release (--no-lock, or --hold, which keeps it)."""
    global HELD
    if NO_LOCK or HELD:
        return None
    import fcntl

    f = open(LOCK, "a")
    fcntl.flock(f, fcntl.LOCK_EX)
    if HOLD:
        HELD = f
        return None
    return f


def run_test(spec, rootfs, ablation):
    kind, args = spec.split(":", 1)
    if kind == "ctest":
        r = sh(["ctest", "--test-dir", BUILD, "-R", "^%s$" % args, "--output-on-failure"], check=False,
               capture_output=True, text=True)
        return r.returncode, r.stdout[-4000:]
    write_config(rootfs)
    lock = take_lock()
    proc = None
    try:
        if ablation.endswith(".sql") and not CONTROL:
            run_sql(ablation, "up")
        if kind == "airlockd+py":
            proc = start_airlockd()
            if proc.poll() is not None or listener_pid(PG_PORT) != proc.pid:
                return 99, "the ablated airlockd did not start or does not own its ports"
        words = args.split(" -k ", 1)
        pyargs = words[0].split() + (["-k", words[1]] if len(words) > 1 else [])
        r = sh([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"] + pyargs,
               cwd=os.path.join(WT, "integration", "tests"), env=test_env(rootfs, proc.pid if proc else None),
               check=False, capture_output=True, text=True, timeout=1800)
        return r.returncode, r.stdout[-20000:]
    finally:
        if proc:
            stop_airlockd(proc)
        if ablation.endswith(".sql") and not CONTROL:
            run_sql(ablation, "down")
        if lock:
            lock.close()  # closing the file releases the lock


OPTIONS = ("--list", "--control", "--hold", "--no-lock", "--roles-too")


def main(argv):
    if "-h" in argv or "--help" in argv:
        print(__doc__)
        return 0
    unknown = [a for a in argv if a.startswith("-") and a not in OPTIONS]
    if unknown:
        print("unknown option %s; see --help" % " ".join(unknown), file=sys.stderr)
        return 2
    if "--list" in argv:
        for row in ROWS:
            print("%-16s %s | %s | %s" % (row[0], row[1], row[2], row[4]))
        return 0
    global NO_LOCK, CONTROL, HOLD, PG_PORT, MY_PORT
    PG_PORT, MY_PORT = free_port(), free_port()
    NO_LOCK = "--no-lock" in argv
    HOLD = "--hold" in argv
    CONTROL = "--control" in argv
    names = [a for a in argv if not a.startswith("-")]
    # The comparison rows ("-suite") run only when named: they are expected to say NO.
    rows = [r for r in ROWS if any(n in r[0] for n in names)] if names else \
        [r for r in ROWS if not r[0].endswith("-suite")]
    if not rows:
        print("no row matches %s; see --list" % " ".join(names), file=sys.stderr)
        return 2
    results = []
    for name, claim, mechanism, ablation, test in rows:
        log("%s: %s without %s" % (name, test, mechanism))
        if NO_LOCK and ablation.endswith(".sql") and "--roles-too" not in argv:
            results.append((claim, mechanism, test, "not run: it changes shared roles, and --no-lock"))
            continue
        worktree_at_head()
        if not CONTROL and not apply(ablation):
            results.append((claim, mechanism, test, "patch does not apply to HEAD"))
            continue
        rootfs = build()
        if not rootfs:
            results.append((claim, mechanism, test, "build failed"))
            continue
        rc, out = run_test(test, rootfs, ablation)
        os.makedirs(LOGS, exist_ok=True)
        with open(os.path.join(LOGS, name + ".log"), "w") as f:
            f.write(out)
        verdict = "yes" if rc != 0 else "NO"
        if CONTROL:
            verdict = "passes with it" if rc == 0 else "FAILS WITH IT TOO"
        if rc == 99:
            verdict = "setup failed: " + out
        last = [ln for ln in out.splitlines() if ln.strip()][-1:] or [""]
        log("%s: exit %d (%s)" % (name, rc, last[0]))
        results.append((claim, mechanism, "%s (%s)" % (test.split(":", 1)[1], ablation), verdict))
    worktree_at_head()
    print("| claim | mechanism %s | test | %s |" % (("kept", "passes with it?") if CONTROL
                                                   else ("removed", "failed without it?")))
    print("| --- | --- | --- | --- |")
    for r in results:
        print("| %s |" % " | ".join(r))
    return 0 if all(r[3] in ("yes", "passes with it") for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
