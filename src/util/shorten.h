/* Names too long for their column, shortened in the middle: the start and the end stay,
 * an ellipsis replaces what is between, and names that differ never come out the same
 * (the kept end moves to where they differ). Used by the table columns and the lane
 * labels so that every shortened name is shortened by one rule.
 *
 * Widths count characters (UTF-8 code points), one column each. */
#ifndef APTOP_SHORTEN_H
#define APTOP_SHORTEN_H
#include <stddef.h>

/* names[i] (lens[i] bytes) shortened to at most width characters into out + i * outsize
 * (NUL-terminated). A name that fits is copied whole. Two names with different text never
 * give the same result as long as width leaves room to tell them apart (a few characters
 * around their difference); equal names give equal results. ell is the ellipsis ("…" or
 * "~", one character). O(n^2 x width) in the worst case, O(n log n) without collisions. */
void shorten_unique(const char *const *names, const size_t *lens, size_t n, int width, const char *ell, char *out,
                    size_t outsize);

/* One text shortened alone (no other names to tell it from) to at most width characters,
 * keeping `tail` characters of its end (at most width - 2). */
void shorten_middle(const char *name, size_t len, int width, int tail, const char *ell, char *out, size_t outsize);

#endif
