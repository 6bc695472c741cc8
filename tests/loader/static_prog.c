// SPDX-License-Identifier: GPL-2.0
/* A statically linked program: no loader, so no loader module; one codectl call of its own. */
#include <errno.h>
#include <codectl.h>

int main(void)
{
	/* answered ENOENT under codectl-run, ENOSYS natively */
	return codectl(CODE_UNREGISTER, (void *)1, 0, 0) == -1 && (errno == ENOENT || errno == ENOSYS)
		       ? 0 : 1;
}
