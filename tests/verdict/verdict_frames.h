/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading one sample of --json-all's "stacks": our frames ("frames": symbol,
 * source, exact, plausible, why), libunwind's ("libunwind", when the walks
 * differ), and the sample's own fields (class, covered, outcome, why, stop).
 */
#ifndef TESTS_VERDICT_FRAMES_H
#define TESTS_VERDICT_FRAMES_H

#include <jansson.h>
#include <stdbool.h>
#include <string.h>

/** vf_str() - @o's string @key ("" when none). */
static inline const char *vf_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/** vf_nframes() - how many frames our walk has. */
static inline size_t vf_nframes(json_t *stack)
{
	return json_array_size(json_object_get(stack, "frames"));
}

/** vf_frame() - our frame @i (NULL past the end). */
static inline json_t *vf_frame(json_t *stack, size_t i)
{
	return json_array_get(json_object_get(stack, "frames"), i);
}

/** vf_ref_nframes() - how many frames libunwind's walk has (0 when not written: a match). */
static inline size_t vf_ref_nframes(json_t *stack)
{
	return json_array_size(json_object_get(stack, "libunwind"));
}

/** vf_ref_frame() - libunwind's frame @i (NULL past the end, or for a match). */
static inline json_t *vf_ref_frame(json_t *stack, size_t i)
{
	return json_array_get(json_object_get(stack, "libunwind"), i);
}

/** vf_sym_in() - is frame @f's symbol in function @fn ("fn" or "fn+0x..")? */
static inline bool vf_sym_in(json_t *f, const char *fn)
{
	const char *s = vf_str(f, "symbol");
	size_t n = strlen(fn);

	return !strncmp(s, fn, n) && (s[n] == '+' || !s[n]);
}

/** vf_sym_is() - is frame @f's symbol exactly @sym ("fn+0x0")? */
static inline bool vf_sym_is(json_t *f, const char *sym)
{
	return !strcmp(vf_str(f, "symbol"), sym);
}

/** vf_source_is() - was our frame @f reached by @src ("regs", "sframe", "fp", "signal")? */
static inline bool vf_source_is(json_t *f, const char *src)
{
	return !strcmp(vf_str(f, "source"), src);
}

/** vf_exact() - is frame @f's IP where the thread was ("exact": true)? */
static inline bool vf_exact(json_t *f)
{
	return json_is_true(json_object_get(f, "exact"));
}

/** vf_plausible() - did the plausibility oracle call frame @f plausible? */
static inline bool vf_plausible(json_t *f)
{
	return json_is_true(json_object_get(f, "plausible"));
}

/** vf_implausible() - did it call frame @f wrong ("plausible": false)? */
static inline bool vf_implausible(json_t *f)
{
	return json_is_false(json_object_get(f, "plausible"));
}

/** vf_covered() - the sample's covered prefix (frames). */
static inline long long vf_covered(json_t *stack)
{
	return json_integer_value(json_object_get(stack, "covered"));
}

/** vf_is() - is @stack's string field @key equal to @val ("class", "outcome", "why", ...)? */
static inline bool vf_is(json_t *stack, const char *key, const char *val)
{
	return !strcmp(vf_str(stack, key), val);
}

#endif /* TESTS_VERDICT_FRAMES_H */
