/*
 * my_cursor_check: reads prepared statements through MariaDB Connector/C
 * with a server-side cursor (STMT_ATTR_CURSOR_TYPE = CURSOR_TYPE_READ_ONLY,
 * a few rows per COM_STMT_FETCH), the way drivers that read large results
 * in steps use it, and prints every row, so a test can compare airlock
 * with a direct connection.
 *   my_cursor_check HOST PORT USER PASSWORD DB PREFETCH SQL [INT_PARAM]
 * Output: one line per row (values as strings, NULL as \N), then "rows N"
 * or "error ERRNO SQLSTATE MESSAGE"; then "after V" from a plain query on
 * the same connection. With MY_CA set in the environment (a CA file) the
 * connection is TLS with the server's certificate and name checked, as
 * the demo's backend accounts require; without it, no TLS (airlock's
 * listener on loopback).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mysql.h>

#define MAX_COLS 32

static int fail(MYSQL_STMT *st)
{
	printf("error %u %s %s\n", mysql_stmt_errno(st), mysql_stmt_sqlstate(st), mysql_stmt_error(st));
	return 0;
}

static int run(MYSQL *c, const char *sql, unsigned long prefetch, const char *param)
{
	MYSQL_STMT *st = mysql_stmt_init(c);
	unsigned long type = CURSOR_TYPE_READ_ONLY, len[MAX_COLS];
	char buf[MAX_COLS][256];
	my_bool isnull[MAX_COLS], err[MAX_COLS];
	MYSQL_BIND out[MAX_COLS], in;
	long long value = param ? atoll(param) : 0;
	MYSQL_RES *meta;
	unsigned n, rows = 0;
	int rc;

	if (!st || mysql_stmt_prepare(st, sql, (unsigned long)strlen(sql)) != 0)
		return fail(st);
	mysql_stmt_attr_set(st, STMT_ATTR_CURSOR_TYPE, &type);
	mysql_stmt_attr_set(st, STMT_ATTR_PREFETCH_ROWS, &prefetch);
	if (param) {
		memset(&in, 0, sizeof(in));
		in.buffer_type = MYSQL_TYPE_LONGLONG;
		in.buffer = &value;
		if (mysql_stmt_bind_param(st, &in) != 0)
			return fail(st);
	}
	if (mysql_stmt_execute(st) != 0)
		return fail(st);
	meta = mysql_stmt_result_metadata(st);
	n = meta ? mysql_num_fields(meta) : 0;
	if (n > MAX_COLS)
		n = MAX_COLS;
	memset(out, 0, sizeof(out));
	for (unsigned i = 0; i < n; i++) {
		out[i].buffer_type = MYSQL_TYPE_STRING;
		out[i].buffer = buf[i];
		out[i].buffer_length = sizeof(buf[i]) - 1;
		out[i].length = &len[i];
		out[i].is_null = &isnull[i];
		out[i].error = &err[i];
	}
	if (n && mysql_stmt_bind_result(st, out) != 0)
		return fail(st);
	while ((rc = mysql_stmt_fetch(st)) == 0 || rc == MYSQL_DATA_TRUNCATED) {
		for (unsigned i = 0; i < n; i++) {
			buf[i][len[i] < sizeof(buf[i]) - 1 ? len[i] : sizeof(buf[i]) - 1] = '\0';
			printf("%s%s", i ? "\t" : "", isnull[i] ? "\\N" : buf[i]);
		}
		printf("\n");
		rows++;
	}
	if (rc == 1)
		return fail(st);
	printf("rows %u\n", rows);
	if (meta)
		mysql_free_result(meta);
	mysql_stmt_close(st);
	return 0;
}

int main(int argc, char **argv)
{
	MYSQL *c = mysql_init(NULL);
	MYSQL_RES *res;
	MYSQL_ROW row;
	const char *ca = getenv("MY_CA");
	my_bool on = 1;
	unsigned int ssl = 0;

	if (argc < 8) {
		fprintf(stderr, "usage: my_cursor_check HOST PORT USER PASSWORD DB PREFETCH SQL [INT_PARAM]\n");
		return 2;
	}
	if (ca && *ca) {
		mysql_optionsv(c, MYSQL_OPT_SSL_CA, ca);
		mysql_optionsv(c, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &on);
		mysql_optionsv(c, MYSQL_OPT_SSL_ENFORCE, &on);
	} else {
		mysql_optionsv(c, MYSQL_OPT_SSL_ENFORCE, &ssl);
	}
	if (!mysql_real_connect(c, argv[1], argv[3], argv[4], argv[5], (unsigned)atoi(argv[2]), NULL, 0)) {
		fprintf(stderr, "connect: %s\n", mysql_error(c));
		return 1;
	}
	run(c, argv[7], strtoul(argv[6], NULL, 10), argc > 8 ? argv[8] : NULL);
	if (mysql_query(c, "SELECT 42") == 0 && (res = mysql_store_result(c))) {
		row = mysql_fetch_row(res);
		printf("after %s\n", row && row[0] ? row[0] : "?");
		mysql_free_result(res);
	} else {
		printf("after error %s\n", mysql_error(c));
	}
	mysql_close(c);
	return 0;
}
