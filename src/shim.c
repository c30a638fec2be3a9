/* SPDX-License-Identifier: MIT */
/*
 * shim.c - the generated part of the shim: from calls.def, the pointers to
 * the real functions, their resolution, and every wrapper that only has to
 * translate descriptor arguments.  The wrappers that do more are written
 * by hand, each in the shim file of its calls.def family (shim_fd.c,
 * shim_msg.c, shim_poll.c, shim_stream.c, shim_exec.c, shim_spawn.c,
 * shim_vfork.c, shim_path.c, shim_limits.c, shim_signal.c,
 * shim_syscall.c).
 *
 * The cost on the hot path is the budget: a call on a real descriptor does
 * one range test and one jump through the real function's pointer.  There
 * is no "initialised yet?" test: each pointer starts at a stub that resolves
 * the real function on first use, in the tables of the objects up to
 * libc that the constructor keeps (ufd_shim_init, from api.c's
 * constructor; async-signal-safe, so a first call in a signal handler or
 * a vfork child is safe).  Where it cannot keep them, the constructor
 * resolves the rows with dlsym before main(): all but the rows calls.def
 * lists as UFD_LAZY, which are not async-signal-safe and so may be looked
 * up on first use (a program calls none of them from a signal handler or
 * a vfork child, where dlsym must not run).
 *
 * Putting a function in front of a real one (a checker that calls on,
 * UFD_REAL_PUT_FRONT) resolves that row first (ufd_shim_resolve), at
 * whatever time it happens.  A stub never overwrites a pointer that no
 * longer points at it (it answers the call with what it found), so a
 * checker installed over a stub would not be dropped, but a checker
 * calling on to the stub would pay a look-up on every call.
 */
#include "shim.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "symbols.h"
#include "vfd_table.h"

/* ufd_reals.r_NAME = fn, if it still points at stub (and not at a
 * function put in front of the real one since). */
#define INSTALL_REAL(name, stub, fn)                                          \
	do {                                                                  \
		__typeof__(ufd_reals.r_##name) stub_ = (stub);                \
		__atomic_compare_exchange_n(&ufd_reals.r_##name, &stub_, (fn), \
					    0, __ATOMIC_RELAXED,              \
					    __ATOMIC_RELAXED);                \
	} while (0)

/* The stubs, together in a section of their own: a pointer still at its
 * stub is one that points into it (is_stub), which the start-up's loop
 * over the rows tests without a table of the stubs' addresses (304
 * relocations at every start-up). */
#define STUB __attribute__((section("ufd_stubs"), noinline))

/* The next definition of row call's function after this library:
 * libc's.  The kept objects' answer (async-signal-safe: any function libc
 * defines plainly), else dlsym's, else missing.  Out of line, and the
 * name from calls.c: inlined in 300-odd stubs, it grew this file past
 * what the compiler lets inlining add to a unit, and vfd_translate
 * stopped being inlined in the wrappers (+26 instructions an epoll_ctl +
 * epoll_wait). */
__attribute__((noinline, cold)) UFD_EARLY static void *
lookup_real(enum ufd_call call, void *missing)
{
	void *fn;

	if (ufd_symbols_find_kept(call, &fn) == 0)
		return fn;
	fn = dlsym(RTLD_NEXT, ufd_call_name(call));
	return fn ? fn : missing;
}

/*
 * Per row: missing_NAME (what NAME does if libc has no such function: fail
 * with ENOSYS, since only a program linked against ufd could call it),
 * resolve_NAME (the stub the pointer starts at) and the pointer itself.
 * A variadic stub reads the optional arguments the row says the function
 * can have (one, or syscall's six), whether or not the caller gave them,
 * as glibc's own wrappers read theirs; the real function reads only those
 * its call needs.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define UFD_WRAP(name, ret, err, params, args, fds) \
	UFD_HAND(name, ret, err, params, args, "")
#define UFD_HAND(name, ret, err, params, args, why)                            \
	static ret missing_##name params                                  \
	{                                                                 \
		errno = ENOSYS;                                           \
		return (ret)(err);                                        \
	}                                                                 \
	UFD_EARLY STUB static ret resolve_##name params                   \
	{                                                                 \
		ret(*fn_) params = lookup_real(UFD_CALL_##name,            \
					       (void *)missing_##name);   \
		INSTALL_REAL(name, resolve_##name, fn_);                  \
		return fn_ args;                                          \
	}
#define UFD_HANDV(name, ret, err, params, args, last, extra, nextra, why)              \
	static ret missing_##name(UFD_UNPAREN params, ...)                \
	{                                                                 \
		errno = ENOSYS;                                           \
		return (ret)(err);                                        \
	}                                                                 \
	__attribute__((no_sanitize_address)) STUB static ret resolve_##name( \
		UFD_UNPAREN params, ...)                                  \
	{                                                                 \
		va_list ap;                                               \
		extra x[6] = { 0 };                                       \
		va_start(ap, last);                                       \
		for (int i = 0; i < (nextra); i++)                        \
			x[i] = va_arg(ap, extra);                         \
		va_end(ap);                                               \
		ret (*fn_)(UFD_UNPAREN params, ...) =                     \
			lookup_real(UFD_CALL_##name,                      \
				    (void *)missing_##name);              \
		INSTALL_REAL(name, resolve_##name, fn_);                  \
		return fn_(UFD_UNPAREN args, x[0], x[1], x[2], x[3], x[4], \
			   x[5]);                                         \
	}
#define UFD_ALIAS(name, ret, err, params, args, why)
#define UFD_ALIASV(name, ret, err, params, args, last, extra, nextra, why)
#include "calls.def"

#pragma GCC diagnostic pop

/* Every pointer at its stub; slot[UFD_CALL_NAME] is r_NAME. */
UFD_DATA_ALIGNED union ufd_reals ufd_reals = { {
#define UFD_WRAP(name, ret, err, params, args, fds) .r_##name = resolve_##name,
#define UFD_HAND(name, ret, err, params, args, why) .r_##name = resolve_##name,
#define UFD_ALIAS(name, ret, err, params, args, why)
#define UFD_ALIASV(name, ret, err, params, args, last, extra, nextra, why)
#include "calls.def"
} };
#define UFD_WRAP(name, ret, err, params, args, fds) \
	UFD_HAND(name, ret, err, params, args, "")
#define UFD_HAND(name, ret, err, params, args, why)                        \
	_Static_assert(offsetof(union ufd_reals, r_##name) ==             \
			       UFD_CALL_##name * sizeof(void *),          \
		       #name ": its pointer is not slot[UFD_CALL_" #name "]");
#define UFD_ALIAS(name, ret, err, params, args, why)                       \
	_Static_assert((int)UFD_CALL_##name >= (int)UFD_NREALS,           \
		       #name ": an alias row before a row with a pointer");
#define UFD_ALIASV(name, ret, err, params, args, last, extra, nextra, why) \
	UFD_ALIAS(name, ret, err, params, args, why)
#include "calls.def"
_Static_assert(sizeof(union ufd_reals) == sizeof(void *[UFD_NREALS]),
	       "one pointer a row, but for the aliases");

/*
 * The translating wrappers: each FD(x) in a row's fds becomes one line.
 * PATH(x) notes the path to look at after the call (ufd_path_after: the
 * call is made again on the rewritten path); PATH_MUT(x)
 * looks before it (ufd_path_before), for calls that change what the path
 * names.  Rows without either compile to the translations and a tail
 * call.  The prototype comes first for the entry points that glibc still
 * exports but no longer declares (__fxstat and the like).
 */
#define FD(arg) arg = vfd_translate(arg);
#define PATH(arg) path_ = &arg;
#define PATH_MUT(arg) UFD_PATH_BEFORE(arg);
#define UFD_WRAP(name, ret, err, params, args, fds)                         \
	UFD_PUBLIC ret name params;                                         \
	UFD_PUBLIC ret name params                                          \
	{                                                                   \
		__attribute__((unused)) int added_ = 0;                     \
		__attribute__((unused)) const char **path_ = NULL;          \
		ret r_;                                                     \
		size_t n_;                                                  \
		int errno_;                                                 \
		fds if (!path_)                                             \
			return UFD_REAL(name) args;                         \
		r_ = UFD_REAL(name) args;                                   \
		if (__builtin_expect(!vfd_any(), 1))                        \
			return r_;                                          \
		errno_ = errno;                                             \
		n_ = ufd_path_after(*path_, r_ == (ret)(err) ? errno_ : 0); \
		if (n_) {                                                   \
			char buf_[n_];                                      \
			const char *was_ = *path_;                          \
			if ((*path_ = ufd_path(*path_, buf_, n_)) != was_)  \
				return UFD_REAL(name) args;                 \
		}                                                           \
		errno = errno_;                                             \
		return r_;                                                  \
	}
#define UFD_NEW(name, ret, err, params, args, fds)                   \
	UFD_PUBLIC ret name params;                                  \
	UFD_PUBLIC ret name params                                   \
	{                                                            \
		int added_ = 0, cloexec_ = -1;                       \
		fds if (__builtin_expect(newfd_plain(), 1))          \
			return UFD_REAL(name) args;                  \
		return ufd_ret_new_fd_known(UFD_REAL(name) args,     \
					    added_, UFD_CALL_##name, \
					    cloexec_);               \
	}
/* The flag, added under UFD_CLOEXEC; then whether the call asks for it
 * (for UFD_MODE=random: cloexec_, -1 in a row without CLOEXEC). */
#define CLOEXEC(arg, flag)                                           \
	if (__builtin_expect(ufd_settings.cloexec, 0) && !(arg & flag)) { \
		arg |= flag;                                         \
		added_ = 1;                                          \
	}                                                            \
	cloexec_ = (arg & flag) != 0;
#include "calls.def"

int ufd_interposed = 1;
const char *ufd_self_name UFD_STARTUP_RW; /* written at every start-up */

/* lazy_row[UFD_CALL_name]: the row is UFD_LAZY (calls.def); a UFD_LAZY
 * naming an alias row is out of its bounds, an error. */
static const unsigned char lazy_row[UFD_NREALS] UFD_STARTUP_DATA = {
#define UFD_LAZY(name, why) [UFD_CALL_##name] = 1,
#include "calls.def"
};

/* Does p point into a stub (is it a row's pointer not resolved yet)? */
UFD_EARLY static inline int is_stub(const void *p)
{
	return (const char *)p >= __start_ufd_stubs &&
	       (const char *)p < __stop_ufd_stubs;
}

/* Resolve call's real function with dlsym, or (missing) install the
 * stand-in for a function libc lacks, if its pointer is still at its
 * stub.  One case a row: out of start-up's way, which needs it only for
 * the names the walk cannot answer. */
UFD_EARLY static void resolve_call(enum ufd_call call, int missing)
{
	switch (call) {
#define UFD_WRAP(name, ret, err, params, args, fds) \
	UFD_HAND(name, ret, err, params, args, "")
#define UFD_HAND(name, ret, err, params, args, why)                       \
	case UFD_CALL_##name:                                             \
		if (UFD_REAL(name) == resolve_##name)                     \
			INSTALL_REAL(name, resolve_##name,                \
				     missing ? (void *)missing_##name     \
					     : lookup_real(UFD_CALL_##name,        \
							   (void *)missing_##name)); \
		break;
#define UFD_ALIAS(name, ret, err, params, args, why) case UFD_CALL_##name:
#define UFD_ALIASV(name, ret, err, params, args, last, extra, nextra, why) \
	case UFD_CALL_##name:
#include "calls.def"
	case UFD_NCALLS:
		break;
	}
}

/* A row the walk cannot answer (ufd_symbols_resolve_calls): it knows
 * libc lacks the function (-ENOENT), or dlsym answers. */
UFD_EARLY static void walk_fallback(enum ufd_call call, int r)
{
	resolve_call(call, r == -ENOENT);
}

/* Resolve now every row still at its stub; the UFD_LAZY ones too if
 * lazy_too.  The walk's answer where it is sure of it (walk NULL: never),
 * else dlsym's. */
UFD_EARLY UFD_STARTUP static void resolve_rows(const struct ufd_symbols *walk,
					       int lazy_too)
{
	static const unsigned char none[UFD_NREALS] UFD_STARTUP_DATA;
	const unsigned char *skip = lazy_too ? none : lazy_row;

	if (walk) {
		ufd_symbols_resolve_calls(walk, ufd_reals.slot, __start_ufd_stubs,
					  __stop_ufd_stubs, skip, walk_fallback);
		return;
	}
	for (int i = 0; i < UFD_NREALS; i++)
		if (!skip[i])
			resolve_call(i, 0);
}

/* check_resolve's tallies: the rows resolved, by whom (the walk found
 * the name, or found it missing, or dlsym was asked), and the rows left
 * to first use. */
struct check_counts {
	int kept; /* the rows are looked up in the kept tables */
	int rows, differ, lazy, walk, walk_missing, dlsym;
};

/* check_resolve for one row: call, its name, its pointer now, its
 * stand-in for a missing function, whether the pointer should still wait
 * at its stub (-1: either).  With c->kept, the answer checked is the
 * kept objects' (what the row's first call installs), and a row it
 * leaves to dlsym is named on a line of its own ("ufd: resolve dlsym:
 * NAME"). */
static void check_row(const struct ufd_symbols *walk, enum ufd_call call,
		      const char *name, const void *now, const void *missing,
		      int should_wait, struct check_counts *c)
{
	const struct ufd_call_key *key = &ufd_call_keys[call];
	int kept = c->kept;
	void *walk_fn = NULL, *dl = dlsym(RTLD_NEXT, name);
	int r = kept ? ufd_symbols_find_kept(call, &walk_fn)
		: walk ? ufd_symbols_find(walk, name, strlen(name), key->hash,
					  &walk_fn)
		       : -ENOTSUP;
	int waits = is_stub(now);
	char line[160];

	if (kept && r != 0)
		fprintf(stderr, "ufd: resolve dlsym: %s\n", name);

	c->rows++;
	if (waits && !kept)
		c->lazy++;
	else if (r == 0)
		c->walk++;
	else if (r == -ENOENT)
		c->walk_missing++;
	else
		c->dlsym++;
	if (key->hash != ufd_symbols_hash(name) || key->len != strlen(name) ||
	    strcmp(ufd_call_name(call), name) != 0) {
		c->differ++;
		fprintf(stderr, "ufd: resolve check: %s: its key is wrong\n", name);
	}
	if ((r == 0 && walk_fn != dl) || (r == -ENOENT && dl)) {
		c->differ++;
		snprintf(line, sizeof(line), "ufd: resolve check: %s: walk %p, dlsym %p\n",
			 name, r ? NULL : walk_fn, dl);
		fputs(line, stderr);
	}
	/* What start-up installed: dlsym's answer, or the stand-in.  (A
	 * function put in front by an earlier constructor, none of the
	 * test's, would count as a difference.) */
	if (!waits && now != (dl ? dl : missing)) {
		c->differ++;
		snprintf(line, sizeof(line), "ufd: resolve check: %s: installed %p, dlsym %p\n",
			 name, now, dl);
		fputs(line, stderr);
	}
	if (kept && waits)
		c->lazy++;
	if (should_wait >= 0 && waits != should_wait) {
		c->differ++;
		fprintf(stderr, "ufd: resolve check: %s: %s\n", name,
			waits ? "not resolved at start-up"
			      : "resolved at start-up, but lazy");
	}
}

/*
 * UFD_CHECK_RESOLVE=1 (tests/resolve.sh): ask dlsym for every row as well
 * and report, on stderr, each name where the walk's answer or the
 * pointer start-up installed differs, and
 * each row resolved when it should not have been or the reverse (the
 * UFD_LAZY rows wait for their first use unless all is set), then one
 * line of counts.  Costs what the walk saves; for the tests only.  A
 * call a row (check_row): written out per row, the checks were a quarter
 * of the library's code.  Out of line: inlined in ufd_shim_init, its
 * 15 KB, never run at start-up, sat among start-up's pages.
 */
__attribute__((noinline)) static void check_resolve(const struct ufd_symbols *walk,
						    int kept)
{
	struct check_counts c = { .kept = kept };
	int all = ufd_settings.report || ufd_settings.mode_all ||
		  ufd_settings.mode_random;

#define UFD_WRAP(name, ret, err, params, args, fds) \
	UFD_HAND(name, ret, err, params, args, "")
#define UFD_HAND(name, ret, err, params, args, why)                       \
	check_row(walk, UFD_CALL_##name, #name, (void *)UFD_REAL(name),   \
		  (void *)missing_##name,                                 \
		  kept ? -1 : lazy_row[UFD_CALL_##name] && !all, &c);
#define UFD_ALIAS(name, ret, err, params, args, why)
#define UFD_ALIASV(name, ret, err, params, args, last, extra, nextra, why)
#include "calls.def"
	fprintf(stderr,
		"ufd: resolve check: %d names, walk %s: %d found, %d missing, "
		"%d left to dlsym; %d left to first use; %d differ\n",
		c.rows, kept ? "kept" : walk ? "on" : "off", c.walk, c.walk_missing,
		c.dlsym, c.lazy, c.differ);
}

/*
 * Does dlsym(RTLD_NEXT, name) give the walk's answer (r, fn)?  ~2,400
 * instructions with dlsym's lazy binding: asked only where the loader's
 * own binding does not settle it (ufd_shim_init).  Out of line and cold,
 * off start-up's pages.
 */
__attribute__((noinline, cold)) static int dlsym_agrees(const char *name, int r,
							void *fn)
{
	void *dl = dlsym(RTLD_NEXT, name);

	return (r == 0 && fn == dl) || (r == -ENOENT && !dl);
}

/*
 * Find whether the process's calls reach ufd's wrappers, and make ready
 * the look-up of the real functions.  The calls do not reach ufd when
 * libufd.so comes after libc in the lookup order: a library linked with
 * it in a program that is not (a library's dependencies are searched
 * after the program's, libc among them).  Then there is no libc after ufd
 * for RTLD_NEXT to find, and the real functions resolve to their
 * stand-ins.  (A sanitizer's interceptors before ufd do not matter: they
 * call on.)
 *
 * dlsym costs ~900 instructions a name, and it is not async-signal-safe:
 * the names are looked up in the hash tables of the objects after ufd
 * instead (symbols.c).  The walk's order is RTLD_NEXT's only for an ufd
 * loaded at start-up (not by dlopen, where the objects listed after it
 * are not what RTLD_NEXT searches).  That is settled without dlsym when
 * the object after ufd where the walk finds close also holds the
 * function the loader bound ufd's own dl_iterate_phdr to: a dlopen'ed
 * object is bound from the global scope first, whose objects (libc
 * among them: dlopen is libc's) are all listed before it, since dlopen
 * appends to the list; so a binding to an object after ufd means start-up.
 * Otherwise (ufd after libc, dlopen, dl_iterate_phdr intercepted by a
 * sanitizer's runtime before ufd, another close before libc's) the walk's
 * answer for close is checked against dlsym's, as before: it must agree,
 * or the walk is not used at all.  When it is used, the tables of the objects up to libc's are
 * kept, and every row but close waits at its stub until its first call,
 * which looks it up there (ufd_symbols_find_kept, async-signal-safe, so a
 * first call in a signal handler or a vfork child is safe; ~180
 * instructions, where resolving the 300-odd rows at start-up cost 46,000
 * in every process).  Otherwise (nothing kept: the walk unusable, more
 * objects before libc than are kept, LD_DYNAMIC_WEAK) every row is
 * resolved now, as before: the UFD_LAZY rows, which no signal handler or
 * vfork child may call, are left to their stubs, except under the
 * settings whose features put functions in front of real ones
 * (UFD_REPORT, UFD_MODE): the walk then answers for them too, where
 * ufd_shim_resolve would ask dlsym one name at a time.
 */
UFD_STARTUP void ufd_shim_init(void)
{
	/* The walk's state is needed only here: on the stack, which the
	 * loader has used deeper already, rather than in 2.8 KB of .bss
	 * that would push the variables start-up writes onto a page of
	 * their own (a page fault in every process). */
	struct ufd_symbols syms;
	const struct ufd_symbols *walk = NULL;
	void *close_fn = NULL;
	int kept = 0;

	if (ufd_symbols_open(&syms) == 0) {
		static const char close_name[] UFD_STARTUP_DATA = "close";
		int r = ufd_symbols_find(&syms, close_name, sizeof(close_name) - 1,
					 UFD_SYMBOLS_HASH("close"), &close_fn);

		if (r == 0 && ufd_symbols_object_of(&syms, close_fn) == syms.bound_obj)
			walk = &syms;
		else if (dlsym_agrees(close_name, r, close_fn))
			walk = &syms;
		/* Written only when set: alone on its page of .bss, a store
		 * of 0 would be a page fault in every process. */
		if (walk && close_fn && ufd_chain_found(walk, close_fn))
			ufd_close_chained = 1;
	}
	ufd_self_name = syms.self_name;
	if (walk && close_fn &&
	    ufd_symbols_keep(walk, ufd_symbols_object_of(walk, close_fn) + 1) == 0) {
		void *stub = (void *)resolve_close;

		__atomic_compare_exchange_n(&ufd_reals.slot[UFD_CALL_close], &stub,
					    close_fn, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
		kept = 1;
	} else {
		resolve_rows(walk, ufd_settings.report || ufd_settings.mode_all ||
					   ufd_settings.mode_random);
	}
	ufd_interposed = UFD_REAL(close) != missing_close;
	if (__builtin_expect(ufd_settings.check_resolve, 0))
		check_resolve(walk, kept);
}

/* dlsym, as the row's stub: the start-up walk's state is the
 * constructor's, and this may run at any time, in any thread. */
UFD_EARLY void ufd_shim_resolve(enum ufd_call call)
{
	int saved = errno;

	resolve_call(call, 0);
	errno = saved;
}

/* The real function of row call, looked up as its stub would (the kept
 * tables, else dlsym, else the stand-in for a function libc lacks),
 * whatever the row's pointer holds now.  For a function put in front of
 * a row before its first use (ufd_shim_put_front_lazy).  Keeps errno. */
UFD_EARLY __attribute__((cold)) void *ufd_shim_real(enum ufd_call call)
{
	int saved = errno;
	void *fn = NULL;

	switch (call) {
#define UFD_WRAP(name, ret, err, params, args, fds) \
	UFD_HAND(name, ret, err, params, args, "")
#define UFD_HAND(name, ret, err, params, args, why)                       \
	case UFD_CALL_##name:                                             \
		fn = lookup_real(UFD_CALL_##name, (void *)missing_##name); \
		break;
#define UFD_ALIAS(name, ret, err, params, args, why) case UFD_CALL_##name:
#define UFD_ALIASV(name, ret, err, params, args, last, extra, nextra, why) \
	case UFD_CALL_##name:
#include "calls.def"
	case UFD_NCALLS:
		break;
	}
	errno = saved;
	return fn;
}
