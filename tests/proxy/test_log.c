/*
 * test_log: a log line leaves whole. Workers share the supervisor's
 * stderr; lines written at once by several processes must never
 * interleave, and a line longer than the buffer is cut, marked, and
 * still ends in a newline.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "proxy/log.h"

enum { WRITERS = 4, LINES = 400 };

static pid_t writer[WRITERS];

/* A failed check leaves the writers blocked on a full pipe: end them. */
static int end_writers(void **state)
{
	(void)state;
	for (unsigned w = 0; w < WRITERS; w++)
		if (writer[w] > 0) {
			kill(writer[w], SIGKILL);
			waitpid(writer[w], NULL, 0);
			writer[w] = 0;
		}
	return 0;
}

/* A child, tagged "worker <index>", that logs LINES lines to out as its stderr. */
static pid_t spawn(int out, unsigned index)
{
	pid_t pid = fork();
	char tag[16];

	if (pid != 0)
		return pid;
	dup2(out, STDERR_FILENO);
	snprintf(tag, sizeof(tag), "worker %u", index);
	log_set_tag(tag);
	for (unsigned i = 0; i < LINES; i++)
		log_info("line %u %.*s end", i, (int)(i * 7 % 300),
			 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	_exit(0);
}

static void lines_from_several_processes_stay_whole(void **state)
{
	int fds[2];
	unsigned seen[WRITERS] = {0};
	FILE *in;
	char *ln = NULL;
	size_t cap = 0;
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	for (unsigned w = 0; w < WRITERS; w++)
		assert_true((writer[w] = spawn(fds[1], w)) > 0);
	close(fds[1]);
	in = fdopen(fds[0], "r");
	assert_non_null(in);
	while ((n = getline(&ln, &cap, in)) > 0) {
		unsigned w, i;
		int used = 0;
		const char *p = strstr(ln, " info worker ");

		/* One timestamp, one tag, one body, per line. */
		assert_non_null(p);
		assert_int_equal(sscanf(p, " info worker %u: line %u%n", &w, &i, &used), 2);
		assert_true(w < WRITERS);
		assert_int_equal(i, seen[w]);
		assert_int_equal(p[used], ' ');
		assert_int_equal(strspn(p + used + 1, "x"), i * 7 % 300);
		assert_string_equal(p + used + 1 + i * 7 % 300, " end\n");
		assert_null(strstr(p + 1, " info "));
		seen[w]++;
	}
	free(ln);
	fclose(in);
	for (unsigned w = 0; w < WRITERS; w++) {
		int status;

		assert_int_equal(waitpid(writer[w], &status, 0), writer[w]);
		writer[w] = 0;
		assert_int_equal(seen[w], LINES);
	}
}

static void a_line_past_the_buffer_is_cut_and_ends_the_line(void **state)
{
	int fds[2], saved;
	size_t big = 40000;
	char *body = malloc(big + 1);
	char *got = malloc(2 * big);
	ssize_t n, total = 0;

	(void)state;
	assert_non_null(body);
	assert_non_null(got);
	memset(body, 'y', big);
	body[big] = '\0';
	assert_int_equal(pipe(fds), 0);
	saved = dup(STDERR_FILENO);
	if (fork() == 0) {
		dup2(fds[1], STDERR_FILENO);
		log_set_tag(NULL);
		log_warn("%s", body);
		log_warn("after");
		_exit(0);
	}
	close(fds[1]);
	while ((n = read(fds[0], got + total, 2 * big - 1 - (size_t)total)) > 0)
		total += n;
	got[total] = '\0';
	wait(NULL);
	close(fds[0]);
	close(saved);
	assert_true(total < 20000);
	{
		char *nl = strchr(got, '\n');

		assert_non_null(nl);
		assert_memory_equal(nl - strlen(" [line cut]"), " [line cut]", strlen(" [line cut]"));
		assert_non_null(strstr(nl + 1, " warn after\n"));
	}
	free(body);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(lines_from_several_processes_stay_whole, end_writers),
		cmocka_unit_test(a_line_past_the_buffer_is_cut_and_ends_the_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
