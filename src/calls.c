/* SPDX-License-Identifier: MIT */
/*
 * calls.c - the names of calls.def's rows (calls.h).
 *
 * The names are one structure of character arrays and a table of their
 * offsets, rather than an array of pointers: each pointer would be a
 * relocation the loader makes at every start-up of every process.
 */
#include "calls.h"

#include <stddef.h>
#include <stdint.h>

static const struct names {
#define UFD_WRAP(name, ret, err, params, args, fds) char name##_[sizeof(#name)];
#define UFD_HAND(name, ret, err, params, args, why) char name##_[sizeof(#name)];
#include "calls.def"
} names = {
#define UFD_WRAP(name, ret, err, params, args, fds) #name,
#define UFD_HAND(name, ret, err, params, args, why) #name,
#include "calls.def"
};

static const uint16_t offset[UFD_NCALLS] = {
#define UFD_WRAP(name, ret, err, params, args, fds) offsetof(struct names, name##_),
#define UFD_HAND(name, ret, err, params, args, why) offsetof(struct names, name##_),
#include "calls.def"
};

_Static_assert(sizeof(struct names) <= UINT16_MAX, "offsets fit in 16 bits");

const char *ufd_call_name(enum ufd_call call)
{
	return (const char *)&names + offset[call];
}
