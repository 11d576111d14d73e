/*
 * star_hint: the refusal of a read that forbid_select_star stopped
 * (SELECT_STAR, validate_pg_star.h and validate_my_star.h), held while a
 * describe job of the same read, scoped as the user's reads are but with
 * the star allowed, names the columns the star stood for. The job runs
 * nothing; its description is what the user's policy shows (a columns
 * rule's list, masks under their columns' names, else the table's own
 * columns), so the hint never names a column the user cannot read. When
 * no description comes (the job failed), the validator's hint stays.
 *
 * The struct is kept inside the session (no allocation), so a session
 * that closes while the job runs leaves nothing behind.
 */
#ifndef AIRLOCK_PROXY_STAR_HINT_H
#define AIRLOCK_PROXY_STAR_HINT_H

#include <stdbool.h>

#include "base/frame.h"

struct star_refusal {
	char message[512];
	char hint[512]; /* the validator's, until the columns replace it */
	int cursor_pos; /* Postgres: as the validator gave it */
	bool described; /* hint lists the columns */
};

/* Holds a refusal's message, hint and position (copied). */
void star_refusal_hold(struct star_refusal *r, const char *message, const char *hint, int cursor_pos);

/*
 * A describe job's column description, a 'T' (Postgres) or 'K' (MySQL)
 * frame: the hint becomes "name the columns you need: a, b, c" (each name
 * once, cut with "..." when long). A frame with no columns or that does
 * not decode leaves the hint as it is.
 */
void star_refusal_columns(struct star_refusal *r, const struct frame *f);

#endif
