/*
 * dlist: the intrusive doubly linked list airlockd keeps its sessions,
 * jobs, launches and engine sockets on. An element has `prev` and `next`
 * pointers; the list is a head pointer owned by whoever holds the list.
 * New elements go to the front. The macros never allocate or free: the
 * caller owns each element before DLIST_PUSH and again after
 * DLIST_UNLINK, which leaves its own prev and next NULL.
 */
#ifndef AIRLOCK_BASE_DLIST_H
#define AIRLOCK_BASE_DLIST_H

#include <stddef.h>

/* Puts ELEM at the front of the list whose head pointer is HEAD (an lvalue). */
#define DLIST_PUSH(head, elem)                 \
	do {                                   \
		(elem)->prev = NULL;           \
		(elem)->next = (head);         \
		if ((head) != NULL)            \
			(head)->prev = (elem); \
		(head) = (elem);               \
	} while (0)

/* Takes ELEM, which must be on the list at HEAD, off it. */
#define DLIST_UNLINK(head, elem)                           \
	do {                                               \
		if ((elem)->prev != NULL)                  \
			(elem)->prev->next = (elem)->next; \
		else                                       \
			(head) = (elem)->next;             \
		if ((elem)->next != NULL)                  \
			(elem)->next->prev = (elem)->prev; \
		(elem)->prev = NULL;                       \
		(elem)->next = NULL;                       \
	} while (0)

#endif
