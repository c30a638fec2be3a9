/* SPDX-License-Identifier: MIT */
/*
 * churn.c - the stress test's churning threads: each makes, changes and
 * closes virtual descriptors in every way there is and checks each one
 * after every change, while the signaller thread pthread_kills them and
 * their handler (closing_handler) closes descriptors of its own.
 */
#include "stress.h"

/* ---- churning threads ---- */

struct churner churners[CHURNERS];
static __thread struct churner *my_churner;
static int signaller_done;

static uint64_t next_rand(uint64_t *s)
{
	/* xorshift64*: any fixed-seed generator does. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* The handler: close the next descriptor made for this thread's handler.
 * close() is async-signal-safe, and ufd's close works also when this
 * interrupted ufd inside its table lock. */
void closing_handler(int sig)
{
	struct churner *c = my_churner;
	int saved = errno, i;

	(void)sig;
	if (c && (i = __atomic_load_n(&c->hnext, __ATOMIC_RELAXED)) < HANDLER_FDS) {
		c->hres[i] = close(c->hfd[i]) == 0 ? 0 : errno;
		__atomic_store_n(&c->hnext, i + 1, __ATOMIC_RELEASE);
	}
	errno = saved;
}

/* Does vfd refer to file with flags fdflags?  Reports and returns 0 if not. */
static int check_vfd(struct churner *c, int vfd, int file, int fdflags, const char *after)
{
	struct stat st;
	int r;

	if (fstat(vfd, &st) != 0) {
		failf("churner %d: fstat(%d) after %s: %s", c->id, vfd, after, strerror(errno));
		return 0;
	}
	if (file_of(&st) != file) {
		failf("churner %d: %d refers to file %d, not %d, after %s", c->id, vfd,
		      file_of(&st), file, after);
		return 0;
	}
	r = fcntl(vfd, F_GETFD);
	if (r != fdflags) {
		failf("churner %d: F_GETFD of %d is %d, not %d, after %s", c->id, vfd, r,
		      fdflags, after);
		return 0;
	}
	return 1;
}

static int find_entry(struct churner *c, int vfd)
{
	for (int i = 0; i < c->n; i++)
		if (c->e[i].vfd == vfd)
			return i;
	return -1;
}

static void forget_entry(struct churner *c, int i)
{
	c->e[i] = c->e[--c->n];
}

/* A number from the exact or the F_DUPFD range is only ever this
 * thread's: once closed, it must give EBADF. */
static int own_number(struct churner *c, int vfd)
{
	return (vfd >= c->exact && vfd < c->exact + 64) ||
	       (vfd >= c->lowest && vfd <= c->lowest + SLOTS);
}

static void check_closed(struct churner *c, int vfd, const char *after)
{
	if (own_number(c, vfd) && (fcntl(vfd, F_GETFD) != -1 || errno != EBADF))
		failf("churner %d: %d still open after %s", c->id, vfd, after);
}

/* A new descriptor: recorded, and checked against what was asked. */
static void add_entry(struct churner *c, int vfd, int file, int fdflags, const char *how)
{
	if (!is_vfd(vfd)) {
		failf("churner %d: %s gave %d (%s)", c->id, how, vfd, strerror(errno));
		return;
	}
	if (find_entry(c, vfd) >= 0) {
		failf("churner %d: %s gave %d, which it has open already", c->id, how, vfd);
		return;
	}
	for (int s = 0; s < NSTABLE; s++)
		if (stables[s].vfd == vfd)
			failf("churner %d: %s gave %d, a stable one", c->id, how, vfd);
	c->e[c->n++] = (struct entry){ vfd, file, fdflags };
	c->history[c->nhist++] = vfd;
	check_vfd(c, vfd, file, fdflags, how);
}

/*
 * One operation, chosen by the thread's generator.  A close-on-exec
 * descriptor is on FILE_X and is made close-on-exec atomically (by a flag
 * of the call that makes it), or a concurrent exec could rightly pass it
 * on; every other one is on FILE_I.
 */
static void churn_op(struct churner *c)
{
	uint64_t r = next_rand(&c->rng);
	int op = (int)(r % 10), x = (int)(r >> 8) & 1, pick = c->n ? (int)((r >> 16) % (unsigned)c->n) : -1;
	int file = x ? FILE_X : FILE_I, src = files[file].fd, cx = x ? FD_CLOEXEC : 0;
	int v, i, k;

	/* Full: close one instead of making one. */
	if (op <= 4 && c->n == SLOTS)
		op = 6;
	if (op >= 5 && c->n == 0)
		op = (int)(r % 5);
	switch (op) {
	case 0: { /* nonseqfd, sometimes close-on-fork */
		int fl = (x ? NONSEQFD_CLOEXEC : 0) | ((r >> 9) & 1 ? NONSEQFD_CLOFORK : 0);

		set_phase(c->w, "nonseqfd");
		v = api_nonseqfd(src, fl);
		add_entry(c, v, file, cx | (fl & NONSEQFD_CLOFORK ? FD_CLOFORK : 0), "nonseqfd");
		break;
	}
	case 1: /* dup2(FD_UNSEQ_ALLOC), or F_DUPFD_CLOEXEC from the base,
		 * from the real file or from a virtual descriptor on it */
		set_phase(c->w, "dup2/F_DUPFD_CLOEXEC");
		k = pick >= 0 && c->e[pick].file == file ? c->e[pick].vfd : src;
		v = x ? fcntl(k, F_DUPFD_CLOEXEC, (int)FD_UNSEQ_BASE)
		      : dup2(k, (int)FD_UNSEQ_ALLOC);
		add_entry(c, v, file, cx, x ? "F_DUPFD_CLOEXEC" : "dup2(FD_UNSEQ_ALLOC)");
		break;
	case 2: /* dup3 onto an exact number, replacing this thread's own */
		set_phase(c->w, "dup3 exact");
		k = c->exact + (int)((r >> 20) % 64);
		i = find_entry(c, k);
		v = dup3(src, k, x ? O_CLOEXEC : 0);
		if (v != k) {
			failf("churner %d: dup3 onto %d gave %d (%s)", c->id, k, v, strerror(errno));
			break;
		}
		if (i >= 0) {
			/* Replaced in place: its flags are the new ones. */
			c->e[i] = (struct entry){ k, file, cx };
			check_vfd(c, k, file, cx, "dup3 onto an open one");
		} else {
			add_entry(c, v, file, cx, "dup3");
		}
		break;
	case 3: /* F_DUPFD: the lowest free number from this thread's own */
		set_phase(c->w, "F_DUPFD");
		v = fcntl(src, x ? F_DUPFD_CLOEXEC : F_DUPFD, c->lowest);
		if (v < c->lowest || v > c->lowest + SLOTS) {
			failf("churner %d: F_DUPFD from %d gave %d (%s)", c->id, c->lowest, v,
			      strerror(errno));
			break;
		}
		for (i = c->lowest; i < v; i++)
			if (find_entry(c, i) < 0)
				failf("churner %d: F_DUPFD from %d gave %d, but %d is free",
				      c->id, c->lowest, v, i);
		add_entry(c, v, file, cx, "F_DUPFD");
		break;
	case 4: /* open with O_UNSEQFD */
		set_phase(c->w, "open O_UNSEQFD");
		v = open(files[file].path, O_RDONLY | O_UNSEQFD | (x ? O_CLOEXEC : 0));
		add_entry(c, v, file, cx, "open(O_UNSEQFD)");
		break;
	case 5: /* F_SETFD: close-on-fork either way; close-on-exec too on
		 * FILE_I (never off on FILE_X) */
		set_phase(c->w, "F_SETFD");
		k = (c->e[pick].file == FILE_X || (r >> 10) & 1 ? FD_CLOEXEC : 0) |
		    ((r >> 11) & 1 ? FD_CLOFORK : 0);
		if (fcntl(c->e[pick].vfd, F_SETFD, k) != 0)
			failf("churner %d: F_SETFD %d on %d: %s", c->id, k, c->e[pick].vfd,
			      strerror(errno));
		c->e[pick].fdflags = k;
		check_vfd(c, c->e[pick].vfd, c->e[pick].file, k, "F_SETFD");
		break;
	case 6:
	case 7: /* close */
		set_phase(c->w, "close");
		v = c->e[pick].vfd;
		if (close(v) != 0)
			failf("churner %d: close(%d): %s", c->id, v, strerror(errno));
		forget_entry(c, pick);
		check_closed(c, v, "close");
		break;
	case 8: /* close_range: one descriptor, or the exact range (closed,
		 * or made close-on-exec) */
		set_phase(c->w, "close_range");
		if ((r >> 12) % 3 == 0) {
			v = c->e[pick].vfd;
			if (close_range((unsigned)v, (unsigned)v, 0) != 0)
				failf("churner %d: close_range(%d, %d): %s", c->id, v, v,
				      strerror(errno));
			forget_entry(c, pick);
			check_closed(c, v, "close_range of one");
		} else {
			int cloexec = (r >> 12) % 3 == 1;

			if (close_range((unsigned)c->exact, (unsigned)c->exact + 63,
					cloexec ? CLOSE_RANGE_CLOEXEC : 0) != 0)
				failf("churner %d: close_range(%d, +63): %s", c->id, c->exact,
				      strerror(errno));
			for (i = c->n - 1; i >= 0; i--) {
				v = c->e[i].vfd;
				if (v < c->exact || v >= c->exact + 64)
					continue;
				if (cloexec) {
					c->e[i].fdflags |= FD_CLOEXEC;
					check_vfd(c, v, c->e[i].file, c->e[i].fdflags,
						  "close_range CLOEXEC");
				} else {
					forget_entry(c, i);
					check_closed(c, v, "close_range");
				}
			}
		}
		break;
	default: /* check one */
		set_phase(c->w, "check");
		check_vfd(c, c->e[pick].vfd, c->e[pick].file, c->e[pick].fdflags, "a check");
		break;
	}
}

void *churn_thread(void *arg)
{
	struct churner *c = arg;

	my_churner = c;
	for (int i = 0; i < CHURN_OPS && !failed(); i++) {
		churn_op(c);
		progress(c->w);
		/* Now and then, everything it has. */
		if (i % 256 == 255)
			for (int j = 0; j < c->n; j++)
				check_vfd(c, c->e[j].vfd, c->e[j].file, c->e[j].fdflags,
					  "the periodic check");
	}
	set_phase(c->w, "closing its own");
	while (c->n > 0) {
		int v = c->e[c->n - 1].vfd;

		if (close(v) != 0)
			failf("churner %d: final close(%d): %s", c->id, v, strerror(errno));
		c->n--;
	}
	/* The signaller goes on until the handler has closed all its
	 * descriptors; this thread must exist until it stops. */
	set_phase(c->w, "waiting for the signaller");
	__atomic_store_n(&c->finished, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&signaller_done, __ATOMIC_ACQUIRE)) {
		nanosleep(&(struct timespec){ 0, 1000 * 1000 }, NULL);
		progress(c->w);
	}
	set_phase(c->w, "done");
	return NULL;
}

/* Signal each churning thread once per CHURN_OPS / HANDLER_FDS of its
 * operations (so that handler closes fall all along its run), and until
 * its handler has closed all of its descriptors. */
void *signaller_thread(void *arg)
{
	struct worker *w = arg;
	int busy;

	set_phase(w, "signalling");
	do {
		busy = 0;
		for (int i = 0; i < CHURNERS; i++) {
			struct churner *c = &churners[i];
			int next = __atomic_load_n(&c->hnext, __ATOMIC_ACQUIRE);
			unsigned long done = __atomic_load_n(&c->w->progress, __ATOMIC_RELAXED);

			if (next >= HANDLER_FDS)
				continue;
			busy = 1;
			if (__atomic_load_n(&c->finished, __ATOMIC_ACQUIRE) ||
			    done >= (unsigned long)next * (CHURN_OPS / HANDLER_FDS))
				pthread_kill(c->thread, SIGUSR1);
		}
		nanosleep(&(struct timespec){ 0, 100 * 1000 }, NULL);
		progress(w);
	} while (busy);
	set_phase(w, "done");
	__atomic_store_n(&signaller_done, 1, __ATOMIC_RELEASE);
	return NULL;
}
