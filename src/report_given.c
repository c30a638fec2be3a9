/* SPDX-License-Identifier: MIT */
/*
 * report_given.c - the descriptors a program was given by name when it
 * started (see report_given.h).
 */
#include "report_given.h"

#include "exec_names.h"
#include "report.h"
#include "settings.h"
#include "vfd_table.h"

void report_given_start(char **argv, char **envp)
{
	int named[64], n;

	if (!ufd_settings.report || !ufd_settings.report_leaks)
		return;
	/* exec 1: LISTEN_PID must be this process's, as at the exec that
	 * began it. */
	n = exec_names(argv, envp, 1, named, (int)(sizeof(named) / sizeof(named[0])));
	for (int i = 0; i < n; i++)
		if (named[i] > 2 && !vfd_in_space(named[i]))
			report_given_named(named[i]);
}
