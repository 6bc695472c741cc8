// SPDX-License-Identifier: GPL-2.0
/*
 * When the walking thread walks (supervisor/sample/sampler.h,
 * sampler_walks_now()): not within SAMPLER_CALLS_QUIET_MS of a call or an
 * execve, so that a loader's burst of calls never waits behind a walk,
 * unless SAMPLER_DEFER_MAX samples wait.
 */
#include <criterion/criterion.h>

#include "supervisor/sample/sampler.h"

#define MS 1000000ull
/* Some time after the clock's start, as CLOCK_MONOTONIC is on a machine that runs. */
#define NOW (1000 * 1000 * MS)

Test(sampler_quiet, nothing_queued_nothing_walked)
{
	cr_assert_not(sampler_walks_now(0, NOW, 0));
	cr_assert_not(sampler_walks_now(0, NOW, NOW - 1000 * MS));
}

Test(sampler_quiet, a_call_makes_the_walks_wait_its_quiet_time)
{
	cr_assert_not(sampler_walks_now(1, NOW, NOW));
	cr_assert_not(sampler_walks_now(1, NOW, NOW - SAMPLER_CALLS_QUIET_MS * MS + 1));
	cr_assert(sampler_walks_now(1, NOW, NOW - SAMPLER_CALLS_QUIET_MS * MS));
	cr_assert(sampler_walks_now(SAMPLER_DEFER_MAX - 1, NOW, NOW - 1000 * MS));
}

Test(sampler_quiet, no_call_seen_yet_walks_at_once)
{
	cr_assert(sampler_walks_now(1, NOW, 0));
}

Test(sampler_quiet, a_full_enough_queue_is_walked_whatever_the_calls)
{
	cr_assert_not(sampler_walks_now(SAMPLER_DEFER_MAX - 1, NOW, NOW));
	cr_assert(sampler_walks_now(SAMPLER_DEFER_MAX, NOW, NOW));
	cr_assert(sampler_walks_now(SAMPLER_QUEUE, NOW, NOW));
}

/* The loop sleeps no longer than the quiet time left: then the walks held back start. */
Test(sampler_quiet, the_quiet_time_left_rounds_up_to_the_millisecond)
{
	cr_assert_eq(sampler_quiet_left_ms(NOW, NOW), SAMPLER_CALLS_QUIET_MS);
	cr_assert_eq(sampler_quiet_left_ms(NOW, NOW - MS / 2), SAMPLER_CALLS_QUIET_MS);
	cr_assert_eq(sampler_quiet_left_ms(NOW, NOW - MS), SAMPLER_CALLS_QUIET_MS - 1);
	cr_assert_eq(sampler_quiet_left_ms(NOW, NOW - SAMPLER_CALLS_QUIET_MS * MS + 1), 1);
	cr_assert_eq(sampler_quiet_left_ms(NOW, NOW - SAMPLER_CALLS_QUIET_MS * MS), 0);
	cr_assert_eq(sampler_quiet_left_ms(NOW, 0), 0);
}
