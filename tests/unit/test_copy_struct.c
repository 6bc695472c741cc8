// SPDX-License-Identifier: GPL-2.0
/* copy_struct_from_user() and strndup_user() semantics on a fake tracee. */
#include <criterion/criterion.h>
#include <string.h>

#include "fake_space.h"

static struct fake_space fs;

static void setup(void)
{
	fake_space_init(&fs);
}

static void teardown(void)
{
	fake_space_fini(&fs);
}

TestSuite(copy_struct, .init = setup, .fini = teardown);
TestSuite(strndup_user, .init = setup, .fini = teardown);

Test(copy_struct, smaller_user_struct_is_zero_extended)
{
	uint8_t user[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, k[16];
	uint64_t a = fake_put(&fs, user, sizeof(user));

	memset(k, 0xaa, sizeof(k));
	cr_assert_eq(emu_copy_struct_from_user(&fs.mem, k, sizeof(k), a, sizeof(user)), 0);
	cr_assert_arr_eq(k, user, 8);
	for (int i = 8; i < 16; i++)
		cr_assert_eq(k[i], 0);
}

Test(copy_struct, larger_user_struct_with_zero_tail_is_accepted)
{
	uint8_t user[24] = { 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9 }, k[16];
	uint64_t a = fake_put(&fs, user, sizeof(user));

	cr_assert_eq(emu_copy_struct_from_user(&fs.mem, k, sizeof(k), a, sizeof(user)), 0);
	cr_assert_arr_eq(k, user, 16);
}

Test(copy_struct, larger_user_struct_with_nonzero_tail_is_e2big)
{
	uint8_t user[24] = { 0 }, k[16];
	uint64_t a;

	user[23] = 1;
	a = fake_put(&fs, user, sizeof(user));
	cr_assert_eq(emu_copy_struct_from_user(&fs.mem, k, sizeof(k), a, sizeof(user)), -E2BIG);
}

Test(copy_struct, unreadable_is_efault)
{
	uint8_t k[16];

	cr_assert_eq(emu_copy_struct_from_user(&fs.mem, k, sizeof(k), FAKE_NOACCESS, 16), -EFAULT);
}

Test(copy_struct, partly_readable_is_efault)
{
	uint8_t k[16];
	uint64_t a = FAKE_DATA + FAKE_DATA_SIZE - 8;

	cr_assert_eq(emu_copy_struct_from_user(&fs.mem, k, sizeof(k), a, 16), -EFAULT);
}

Test(copy_struct, unreadable_tail_is_efault)
{
	uint8_t k[8];
	uint64_t a = FAKE_DATA + FAKE_DATA_SIZE - 8;

	cr_assert_eq(emu_copy_struct_from_user(&fs.mem, k, sizeof(k), a, 16), -EFAULT);
}

Test(strndup_user, reads_string)
{
	char *s = NULL;
	uint64_t a = fake_put(&fs, "/usr/lib/libfoo.so", 19);

	cr_assert_eq(emu_strndup_user(&fs.mem, a, EMU_PATH_MAX, &s), 0);
	cr_assert_str_eq(s, "/usr/lib/libfoo.so");
	free(s);
}

Test(strndup_user, string_ending_at_the_mapping_end_is_read)
{
	char *s = NULL;
	uint64_t a = FAKE_DATA + FAKE_DATA_SIZE - 4;

	memcpy(fs.data + FAKE_DATA_SIZE - 4, "abc", 4);
	cr_assert_eq(emu_strndup_user(&fs.mem, a, EMU_PATH_MAX, &s), 0);
	cr_assert_str_eq(s, "abc");
	free(s);
}

Test(strndup_user, unterminated_into_unmapped_is_efault)
{
	char *s = NULL;
	uint64_t a = FAKE_DATA + FAKE_DATA_SIZE - 4;

	memcpy(fs.data + FAKE_DATA_SIZE - 4, "abcd", 4);
	cr_assert_eq(emu_strndup_user(&fs.mem, a, EMU_PATH_MAX, &s), -EFAULT);
	cr_assert_null(s);
}

Test(strndup_user, no_nul_within_path_max_is_enametoolong)
{
	char *s = NULL, big[EMU_PATH_MAX + 16];
	uint64_t a;

	memset(big, 'x', sizeof(big));
	a = fake_put(&fs, big, sizeof(big));
	cr_assert_eq(emu_strndup_user(&fs.mem, a, EMU_PATH_MAX, &s), -ENAMETOOLONG);
}

Test(strndup_user, longest_accepted_path)
{
	char *s = NULL, big[EMU_PATH_MAX];
	uint64_t a;

	memset(big, 'y', sizeof(big));
	big[EMU_PATH_MAX - 1] = '\0';
	a = fake_put(&fs, big, sizeof(big));
	cr_assert_eq(emu_strndup_user(&fs.mem, a, EMU_PATH_MAX, &s), 0);
	cr_assert_eq(strlen(s), EMU_PATH_MAX - 1);
	free(s);
}
