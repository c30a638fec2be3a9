/* SPDX-License-Identifier: MIT */
/*
 * calls.c - the names of calls.def's rows (calls.h).
 */
#include "calls.h"

const char *const ufd_call_name[UFD_NCALLS] = {
#define UFD_WRAP(name, ret, err, params, args, fds) #name,
#define UFD_HAND(name, ret, err, params, args, why) #name,
#include "calls.def"
};
