/*
 * approval_text: a held write's attacker-written text (the statement, its
 * bound values, the user and application names) shown to a person exactly
 * and inertly. Pure: no I/O, no mutable state; the only allocation is the
 * caller's wbuf growing.
 *
 * Every function reads the input through one UTF-8 decoder and one table
 * of marked code points, so they all agree on what is marked:
 *
 *   - C0 controls but \t and \n, DEL, C1 controls;
 *   - bidirectional controls (U+061C, U+200E, U+200F, U+202A..U+202E,
 *     U+2066..U+2069);
 *   - zero-width, invisible and ignorable characters (Unicode's
 *     Default_Ignorable_Code_Point: U+00AD, U+034F, U+115F, U+1160,
 *     U+17B4, U+17B5, U+180B..U+180F, U+200B..U+200D, U+2060..U+206F,
 *     U+3164, U+FE00..U+FE0F, U+FEFF, U+FFA0, U+FFF0..U+FFF8,
 *     U+1BCA0..U+1BCA3, U+1D173..U+1D17A, U+E0000..U+E0FFF), and the
 *     interlinear annotation characters U+FFF9..U+FFFB;
 *   - spaces other than U+0020 (U+00A0, U+1680, U+2000..U+200A, U+2028,
 *     U+2029, U+202F, U+205F, U+3000) and the blank U+2800;
 *   - every byte that is not part of valid UTF-8 (RFC 3629: no overlongs,
 *     no surrogates, nothing above U+10FFFF, no truncated sequence).
 *
 * A marked code point or byte is shown as a marker instead of itself;
 * everything else passes through unchanged, escaped only as the output's
 * syntax needs. A NUL byte is the code point U+0000, so it is marked.
 *
 * Inputs: s holds len bytes (any bytes; s may be NULL only when len is 0),
 * borrowed for the call. The renderers append to out (owned by the caller)
 * and return !out->failed; a failed wbuf stays failed (wbuf.h).
 *
 * The plain-text markers (attribute and terminal forms) look the same as
 * the same text typed by the sender; approval_text_suspicious says whether
 * any marker is real.
 */
#ifndef AIRLOCK_APPROVAL_APPROVAL_TEXT_H
#define AIRLOCK_APPROVAL_APPROVAL_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wbuf;

/*
 * HTML text content: & < > " ' as &amp; &lt; &gt; &quot; &#39;; a marked
 * code point as <span class="ch">U+202E</span> (four to six upper-case hex
 * digits), a byte outside valid UTF-8 as <span class="ch">\xFF</span>.
 * \n and \t pass through.
 */
bool approval_html_text(struct wbuf *out, const char *s, size_t len);

/*
 * The inside of a double-quoted HTML attribute: the same escaping, with
 * markers as plain text: \u202E (\U000E0001 past U+FFFF) and \xFF. A value
 * with nothing marked reads back from the attribute as it was.
 */
bool approval_html_attr(struct wbuf *out, const char *s, size_t len);

/*
 * A JSON string literal, quotes included, safe to embed in HTML, a script
 * or a terminal: " and \ as \" and \\; backspace, form feed, newline,
 * carriage return and tab as \b \f \n \r \t; as \uXXXX every other C0
 * control, < > & ' and every marked code point (a surrogate pair past
 * U+FFFF). A byte outside valid UTF-8 becomes \uFFFD and sets *lossy to
 * true (lossy may be NULL); *lossy is never set to false, so the caller
 * starts it false and one flag can cover several strings.
 */
bool approval_json_string(struct wbuf *out, const char *s, size_t len, bool *lossy);

/*
 * Plain text for a terminal: a marked code point as <U+202E>, a byte
 * outside valid UTF-8 as <\xFF>; no other escaping. \n and \t pass through,
 * so nothing else that reaches the terminal is a control.
 */
bool approval_terminal_text(struct wbuf *out, const char *s, size_t len);

/* s holds a marked code point or a byte outside valid UTF-8. */
bool approval_text_suspicious(const char *s, size_t len);

/* The shared pieces, exposed for their tests. */

/*
 * The character starting at s[0]: its length in bytes (1 to 4) with *cp
 * set, or 0 when s[0] starts no valid UTF-8 sequence within len (or len is
 * 0); such a byte stands alone and the next character starts at s[1].
 * Reads at most min(len, 4) bytes.
 */
size_t approval_utf8_decode(const char *s, size_t len, uint32_t *cp);

/* cp is in the table of marked code points. */
bool approval_text_marked(uint32_t cp);

/* One row of the table: lo..hi inclusive. */
struct approval_text_range {
	uint32_t lo;
	uint32_t hi;
};

/* The table (static, sorted, rows not overlapping); *n gets its length. */
const struct approval_text_range *approval_text_ranges(size_t *n);

#endif
