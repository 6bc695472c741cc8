#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# criterion-watchdog.sh SUITE [ARGS...]: run a sanitized criterion suite, and
# once more if a test process hung before it could start.
#
# Criterion forks each test from a runner that has other threads; the child
# allocates, then execs the test ("boxfort-worker"). AddressSanitizer before
# GCC 14 takes none of its allocator locks around fork(): when another thread
# holds one at that moment, the child waits for it for good, and the runner
# waits for the child (seen on Debian 12, under load: a suite hung in
# __sanitizer::Mutex::Lock under criterion_run_all_tests until make's time
# limit). Such a child is still the suite's own command line: this script
# takes a child of the suite that stays so for HUNG_AFTER seconds for that
# hang, says so, kills the suite and runs it again, once. Any other failure,
# or the same hang again (1), is the suite's exit status.
set -u
HUNG_AFTER=${HUNG_AFTER:-20}

cmdline() { { tr '\0' ' ' <"/proc/$1/cmdline"; } 2>/dev/null; }

# children PID: its child processes, from /proc (a fresh machine has no pgrep)
children() {
	local stat p fields

	for p in /proc/[0-9]*; do
		{ read -r stat <"$p/stat"; } 2>/dev/null || continue
		read -ra fields <<<"${stat##*) }"	# after the command name: state, ppid, ...
		[ "${fields[1]:-}" = "$1" ] && echo "${p#/proc/}"
	done
}

# run_watched SUITE [ARGS...]: its exit status, or 124 when a child hung.
run_watched() {
	local pid child self seen
	declare -A first=()

	"$@" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		self=$(cmdline "$pid")
		seen=()
		for child in $(children "$pid"); do
			[ "$(cmdline "$child")" = "$self" ] || continue
			seen+=("$child")
			first[$child]=${first[$child]:-$SECONDS}
			if ((SECONDS - first[$child] >= HUNG_AFTER)); then
				echo "criterion-watchdog: $1: test process $child still not started" \
				     "after ${HUNG_AFTER} s (an allocator lock held at fork: ASan" \
				     "before GCC 14); killing the suite" >&2
				kill -KILL "$child" "$pid" 2>/dev/null
				wait "$pid" 2>/dev/null
				return 124
			fi
		done
		for child in "${!first[@]}"; do
			[[ " ${seen[*]} " == *" $child "* ]] || unset "first[$child]"
		done
	done
	wait "$pid"
}

run_watched "$@"
status=$?
if [ "$status" = 124 ]; then
	echo "criterion-watchdog: running $1 again" >&2
	run_watched "$@"
	status=$?
	[ "$status" = 124 ] && status=1		# hung twice: said above
fi
exit "$status"
