// SPDX-License-Identifier: GPL-2.0
/* What a report calls a frame's function. */
#include <string.h>

#include "frame_name.h"

void frame_function(const char *text, char *out, size_t size)
{
	size_t n = strcspn(text, "+ ");

	if (n >= size - 1)
		n = size - 2;
	memcpy(out, text, n);
	out[n] = '\0';
	if (text[0] == '[' && text[n] == '+')
		strcpy(out + n, "]");
}
