/*
 * test_dlist: the intrusive list. Pushes go to the front; unlinking the
 * head, the tail, a middle element and the only element keeps both
 * directions of the list consistent and leaves the element detached.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/dlist.h"

struct node {
	int id;
	struct node *prev, *next;
};

/* The ids from the head forward, checking every back link on the way. */
static void expect_order(struct node *head, const int *ids, int n)
{
	struct node *prev = NULL;
	int i = 0;

	for (struct node *e = head; e; e = e->next, i++) {
		assert_true(i < n);
		assert_int_equal(e->id, ids[i]);
		assert_ptr_equal(e->prev, prev);
		prev = e;
	}
	assert_int_equal(i, n);
}

static void test_push_and_unlink(void **state)
{
	struct node a = {.id = 1}, b = {.id = 2}, c = {.id = 3}, d = {.id = 4};
	struct node *head = NULL;

	(void)state;
	DLIST_PUSH(head, &a);
	DLIST_PUSH(head, &b);
	DLIST_PUSH(head, &c);
	DLIST_PUSH(head, &d);
	expect_order(head, (const int[]){4, 3, 2, 1}, 4);

	DLIST_UNLINK(head, &c); /* middle */
	expect_order(head, (const int[]){4, 2, 1}, 3);
	assert_null(c.prev);
	assert_null(c.next);

	DLIST_UNLINK(head, &d); /* head */
	expect_order(head, (const int[]){2, 1}, 2);

	DLIST_UNLINK(head, &a); /* tail */
	expect_order(head, (const int[]){2}, 1);

	DLIST_UNLINK(head, &b); /* the only one */
	assert_null(head);
	assert_null(b.prev);
	assert_null(b.next);

	DLIST_PUSH(head, &b); /* an unlinked element can go back */
	expect_order(head, (const int[]){2}, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_push_and_unlink),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
