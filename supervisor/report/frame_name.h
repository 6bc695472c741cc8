/* SPDX-License-Identifier: GPL-2.0 */
/* What a report calls a frame's function, from the frame's full name. */
#ifndef SUPERVISOR_REPORT_FRAME_NAME_H
#define SUPERVISOR_REPORT_FRAME_NAME_H

#include <stddef.h>

/**
 * frame_function() - "function" from a frame's name "function+0x1c
 * (file.c:3)", "[object]" from "[object+0x10]", into @out (@size bytes)
 */
void frame_function(const char *text, char *out, size_t size);

#endif /* SUPERVISOR_REPORT_FRAME_NAME_H */
