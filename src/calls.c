/* SPDX-License-Identifier: MIT */
/*
 * calls.c - the names of calls.def's rows, and what start-up's look-up of
 * their real functions needs of each (calls.h).
 *
 * The names are one structure of character arrays and a table of their
 * offsets, rather than an array of pointers: each pointer would be a
 * relocation the loader makes at every start-up of every process.  Both
 * are read at every start-up (shim.c's resolution): they sit with the
 * start-up's code (sections.h's UFD_STARTUP_DATA).
 */
#include "calls.h"

#include <stddef.h>

#include "gnu_hash.h"
#include "sections.h"

static const struct names {
#define UFD_WRAP(name, ret, err, params, args, fds) char name##_[sizeof(#name)];
#define UFD_HAND(name, ret, err, params, args, why) char name##_[sizeof(#name)];
#include "calls.def"
} names UFD_STARTUP_DATA = {
#define UFD_WRAP(name, ret, err, params, args, fds) #name,
#define UFD_HAND(name, ret, err, params, args, why) #name,
#include "calls.def"
};

_Static_assert(sizeof(struct names) <= UINT16_MAX, "offsets fit in 16 bits");

const struct ufd_call_key ufd_call_keys[UFD_NCALLS] UFD_STARTUP_DATA = {
#define UFD_WRAP(name, ret, err, params, args, fds) \
	UFD_HAND(name, ret, err, params, args, "")
#define UFD_HAND(name, ret, err, params, args, why)                      \
	{ UFD_SYMBOLS_HASH(#name), offsetof(struct names, name##_),      \
	  sizeof(#name) - 1 },
#include "calls.def"
};

#define UFD_WRAP(name, ret, err, params, args, fds) \
	UFD_HAND(name, ret, err, params, args, "")
#define UFD_HAND(name, ret, err, params, args, why)               \
	_Static_assert(sizeof(#name) - 1 <= UFD_SYMBOLS_HASH_MAX, \
		       #name ": too long for UFD_SYMBOLS_HASH");
#include "calls.def"

const char *ufd_call_name(enum ufd_call call)
{
	return (const char *)&names + ufd_call_keys[call].name_at;
}

/*
 * The why of each second name (calls.def's UFD_ALIAS rows, "is `open`"),
 * which names its first: read only when UFD_EXCLUDE names a call, so
 * neither with the start-up's data nor a table of pointers.
 */
static const struct alias_whys {
#define UFD_ALIAS(name, ret, err, params, args, why) char name##_[sizeof(why)];
#define UFD_ALIASV(name, ret, err, params, args, last, extra, nextra, why) \
	UFD_ALIAS(name, ret, err, params, args, why)
#include "calls.def"
} alias_whys = {
#define UFD_ALIAS(name, ret, err, params, args, why) why,
#define UFD_ALIASV(name, ret, err, params, args, last, extra, nextra, why) why,
#include "calls.def"
};

static const uint16_t alias_why_at[UFD_NCALLS - UFD_NREALS] = {
#define UFD_ALIAS(name, ret, err, params, args, why) \
	[UFD_CALL_##name - UFD_NREALS] = offsetof(struct alias_whys, name##_),
#define UFD_ALIASV(name, ret, err, params, args, last, extra, nextra, why) \
	UFD_ALIAS(name, ret, err, params, args, why)
#include "calls.def"
};

int ufd_call_first(enum ufd_call call)
{
	const char *why, *name;
	size_t len;

	if ((int)call < (int)UFD_NREALS)
		return call;
	why = (const char *)&alias_whys + alias_why_at[call - UFD_NREALS];
	if (why[0] != 'i' || why[1] != 's' || why[2] != ' ' || why[3] != '`')
		return -1;
	name = why + 4;
	for (len = 0; name[len] && name[len] != '`'; len++)
		;
	for (int i = 0; i < UFD_NREALS; i++)
		if (ufd_call_keys[i].len == len &&
		    !__builtin_memcmp(ufd_call_name(i), name, len))
			return i;
	return -1;
}
