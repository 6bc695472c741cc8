/* SPDX-License-Identifier: GPL-2.0 */
/* The release of codectl-emu this build is. */
#ifndef SUPERVISOR_CORE_VERSION_H
#define SUPERVISOR_CORE_VERSION_H

#define CODECTL_EMU_VERSION "0.1.0"

#endif /* SUPERVISOR_CORE_VERSION_H */
