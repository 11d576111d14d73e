/*
 * metrics: the registry and its text rendering (see metrics.h).
 *
 * Series are found by a linear search of their family: families are small
 * (label values come from the config and from fixed tables) and an update
 * is one per statement, beside a container's start.
 */
#define _GNU_SOURCE
#include "proxy/metrics.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/wbuf.h"

struct metrics_series {
	char *values[METRICS_MAX_LABELS]; /* owned */
	double value;                     /* counter or gauge */
	uint64_t *counts;                 /* histogram: per bucket, not cumulative, +Inf last; owned */
	double sum;
	uint64_t count;
};

struct metrics_family {
	struct metrics_family *next;
	enum metrics_type type;
	char *name; /* owned */
	char *help; /* owned */
	char *labels[METRICS_MAX_LABELS];
	size_t nlabels;
	double bounds[METRICS_MAX_BUCKETS];
	size_t nbounds;
	struct metrics_series *series; /* owned array */
	size_t nseries, cap;
	uint64_t dropped;
};

struct metrics {
	struct metrics_family *first, *last;
};

struct metrics *metrics_new(void)
{
	return calloc(1, sizeof(struct metrics));
}

/* Frees f's series; f keeps its array for the next ones. */
static void series_free(struct metrics_family *f)
{
	for (size_t i = 0; i < f->nseries; i++) {
		for (size_t j = 0; j < f->nlabels; j++)
			free(f->series[i].values[j]);
		free(f->series[i].counts);
	}
	f->nseries = 0;
}

static void family_free(struct metrics_family *f)
{
	series_free(f);
	free(f->series);
	for (size_t j = 0; j < f->nlabels; j++)
		free(f->labels[j]);
	free(f->name);
	free(f->help);
	free(f);
}

void metrics_free(struct metrics *m)
{
	if (!m)
		return;
	for (struct metrics_family *f = m->first, *next; f; f = next) {
		next = f->next;
		family_free(f);
	}
	free(m);
}

struct metrics_family *metrics_family(struct metrics *m, enum metrics_type type, const char *name, const char *help,
				      const char *const *labels, size_t nlabels, const double *bounds, size_t nbounds)
{
	struct metrics_family *f;

	if (!m || !name || !help || nlabels > METRICS_MAX_LABELS || nbounds > METRICS_MAX_BUCKETS ||
	    (type == METRICS_HISTOGRAM) != (nbounds > 0))
		return NULL;
	for (size_t i = 1; i < nbounds; i++)
		if (!(bounds[i] > bounds[i - 1]))
			return NULL;
	if (!(f = calloc(1, sizeof(*f))))
		return NULL;
	f->type = type;
	f->name = strdup(name);
	f->help = strdup(help);
	for (size_t j = 0; j < nlabels; j++) {
		f->labels[j] = strdup(labels[j]);
		f->nlabels = j + 1;
		if (!f->labels[j])
			break;
	}
	if (!f->name || !f->help || (nlabels && !f->labels[nlabels - 1])) {
		family_free(f);
		return NULL;
	}
	if (nbounds)
		memcpy(f->bounds, bounds, nbounds * sizeof(bounds[0]));
	f->nbounds = nbounds;
	if (m->last)
		m->last->next = f;
	else
		m->first = f;
	m->last = f;
	return f;
}

static bool same_values(const struct metrics_series *s, const char *const *values, size_t n)
{
	/* A stored value is cut at METRICS_MAX_VALUE bytes, and so is the one compared. */
	for (size_t j = 0; j < n; j++)
		if (strncmp(s->values[j], values[j] ? values[j] : "", METRICS_MAX_VALUE) != 0)
			return false;
	return true;
}

/* The series of values in f, made when missing; NULL when f is full or out of memory. */
static struct metrics_series *series(struct metrics_family *f, const char *const *values)
{
	struct metrics_series *s;

	for (size_t i = 0; i < f->nseries; i++)
		if (same_values(&f->series[i], values, f->nlabels))
			return &f->series[i];
	if (f->nseries == METRICS_MAX_SERIES) {
		f->dropped++;
		return NULL;
	}
	if (f->nseries == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;
		struct metrics_series *grown;

		if (cap > METRICS_MAX_SERIES)
			cap = METRICS_MAX_SERIES;
		if (!(grown = realloc(f->series, cap * sizeof(*grown))))
			return NULL;
		f->series = grown;
		f->cap = cap;
	}
	s = &f->series[f->nseries];
	memset(s, 0, sizeof(*s));
	for (size_t j = 0; j < f->nlabels; j++)
		if (!(s->values[j] = strndup(values[j] ? values[j] : "", METRICS_MAX_VALUE)))
			goto out_free_values;
	if (f->type == METRICS_HISTOGRAM && !(s->counts = calloc(f->nbounds + 1, sizeof(s->counts[0]))))
		goto out_free_values;
	f->nseries++;
	return s;

out_free_values:
	for (size_t j = 0; j < f->nlabels; j++)
		free(s->values[j]);
	return NULL;
}

void metrics_add(struct metrics_family *f, const char *const *values, double v)
{
	struct metrics_series *s;

	if (!f || f->type == METRICS_HISTOGRAM || (f->type == METRICS_COUNTER && !(v >= 0)))
		return;
	if ((s = series(f, values)))
		s->value += v;
}

void metrics_set(struct metrics_family *f, const char *const *values, double v)
{
	struct metrics_series *s;

	if (f && f->type != METRICS_HISTOGRAM && (s = series(f, values)))
		s->value = v;
}

void metrics_clear(struct metrics_family *f)
{
	if (f && f->type == METRICS_GAUGE)
		series_free(f);
}

void metrics_observe(struct metrics_family *f, const char *const *values, double v)
{
	struct metrics_series *s;
	size_t b = 0;

	if (!f || f->type != METRICS_HISTOGRAM || isnan(v) || !(s = series(f, values)))
		return;
	while (b < f->nbounds && v > f->bounds[b])
		b++;
	s->counts[b]++;
	s->sum += v;
	s->count++;
}

uint64_t metrics_dropped(const struct metrics *m)
{
	uint64_t n = 0;

	for (const struct metrics_family *f = m ? m->first : NULL; f; f = f->next)
		n += f->dropped;
	return n;
}

/* ---- rendering ---- */

/* s with backslash and newline escaped, and the double quote too when quote is set. */
static void put_escaped(struct wbuf *w, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			wbuf_put_str(w, "\\\\");
		else if (*s == '\n')
			wbuf_put_str(w, "\\n");
		else if (*s == '"' && quote)
			wbuf_put_str(w, "\\\"");
		else
			wbuf_put_u8(w, (uint8_t)*s);
	}
}

static void put_double(struct wbuf *w, double v)
{
	char num[64];

	if (isnan(v))
		wbuf_put_str(w, "NaN");
	else if (isinf(v))
		wbuf_put_str(w, v > 0 ? "+Inf" : "-Inf");
	else {
		snprintf(num, sizeof(num), "%.15g", v);
		wbuf_put_str(w, num);
	}
}

static void put_u64(struct wbuf *w, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	wbuf_put_str(w, num);
}

/* name{labels[,le="bound"]} : the bound is a bucket's, or NULL. */
static void put_head(struct wbuf *w, const struct metrics_family *f, const char *suffix, const struct metrics_series *s,
		     const double *le)
{
	bool any = f->nlabels > 0 || le;

	wbuf_put_str(w, f->name);
	wbuf_put_str(w, suffix);
	if (any)
		wbuf_put_u8(w, '{');
	for (size_t j = 0; j < f->nlabels; j++) {
		if (j)
			wbuf_put_u8(w, ',');
		wbuf_put_str(w, f->labels[j]);
		wbuf_put_str(w, "=\"");
		put_escaped(w, s->values[j], true);
		wbuf_put_u8(w, '"');
	}
	if (le) {
		wbuf_put_str(w, f->nlabels ? ",le=\"" : "le=\"");
		put_double(w, *le);
		wbuf_put_u8(w, '"');
	}
	if (any)
		wbuf_put_u8(w, '}');
	wbuf_put_u8(w, ' ');
}

static void put_histogram(struct wbuf *w, const struct metrics_family *f, const struct metrics_series *s)
{
	uint64_t cumulative = 0;
	double inf = INFINITY;

	for (size_t b = 0; b <= f->nbounds; b++) {
		cumulative += s->counts[b];
		put_head(w, f, "_bucket", s, b < f->nbounds ? &f->bounds[b] : &inf);
		put_u64(w, cumulative);
		wbuf_put_u8(w, '\n');
	}
	put_head(w, f, "_sum", s, NULL);
	put_double(w, s->sum);
	wbuf_put_u8(w, '\n');
	put_head(w, f, "_count", s, NULL);
	put_u64(w, s->count);
	wbuf_put_u8(w, '\n');
}

static const char *type_name(enum metrics_type t)
{
	return t == METRICS_COUNTER ? "counter" : t == METRICS_GAUGE ? "gauge" : "histogram";
}

bool metrics_render(const struct metrics *m, struct wbuf *w)
{
	for (const struct metrics_family *f = m ? m->first : NULL; f; f = f->next) {
		wbuf_put_str(w, "# HELP ");
		wbuf_put_str(w, f->name);
		wbuf_put_u8(w, ' ');
		put_escaped(w, f->help, false);
		wbuf_put_str(w, "\n# TYPE ");
		wbuf_put_str(w, f->name);
		wbuf_put_u8(w, ' ');
		wbuf_put_str(w, type_name(f->type));
		wbuf_put_u8(w, '\n');
		for (size_t i = 0; i < f->nseries; i++) {
			if (f->type == METRICS_HISTOGRAM) {
				put_histogram(w, f, &f->series[i]);
				continue;
			}
			put_head(w, f, "", &f->series[i], NULL);
			put_double(w, f->series[i].value);
			wbuf_put_u8(w, '\n');
		}
	}
	return !w->failed;
}
