// SPDX-License-Identifier: GPL-2.0
/*
 * Which ring records a busy supervisor keeps (supervisor/sample/ring.h,
 * ring_keeps()): exactly the queue's room, spread over every buffer and so
 * every thread, never the first buffers' records alone.
 */
#include <criterion/criterion.h>

#include "supervisor/sample/ring.h"

/*
 * One drain of two CPUs' buffers, in ring_drain()'s order: CPU 0's 150
 * records of threads 0 and 1 taking turns, then CPU 1's of threads 2 and 3.
 */
static unsigned int kept_of_each(uint64_t room, unsigned int kept[4])
{
	unsigned int total = 0;

	for (uint64_t i = 0; i < 300; i++) {
		unsigned int thread = (i < 150 ? 0 : 2) + i % 2;

		if (ring_keeps(i, room, 300)) {
			kept[thread]++;
			total++;
		}
	}
	return total;
}

Test(ring_keeps, a_full_queue_drops_every_threads_records_alike)
{
	unsigned int kept[4] = { 0 };

	cr_assert_eq(kept_of_each(100, kept), 100);
	for (int t = 0; t < 4; t++)
		cr_assert_eq(kept[t], 25, "thread %d: %u kept", t, kept[t]);
}

Test(ring_keeps, a_queue_with_room_keeps_them_all)
{
	unsigned int exact[4] = { 0 }, more[4] = { 0 };

	cr_assert_eq(kept_of_each(300, exact), 300);
	cr_assert_eq(kept_of_each(1000, more), 300);
	for (int t = 0; t < 4; t++)
		cr_assert(exact[t] == 75 && more[t] == 75, "thread %d: %u, %u kept", t,
			  exact[t], more[t]);
}

Test(ring_keeps, no_room_keeps_none)
{
	unsigned int kept[4] = { 0 };

	cr_assert_eq(kept_of_each(0, kept), 0);
}
