/* SPDX-License-Identifier: MIT */
/*
 * vfd_slot.h - a slot of the virtual descriptor table: the encoding of its
 * value (the backing descriptor, the flags, VFD_BUSY), and the two maps
 * that hold them, which the table's lock-free lookups (vfd_table.h) and its
 * own files (vfd_internal.h) both read.
 */
#ifndef UFD_VFD_SLOT_H
#define UFD_VFD_SLOT_H

#include "fdmap.h"
#include "revmap.h"
#include "ufd.h"

/* Per-descriptor flags, stored in the low bits of a slot value. */
#define VFD_CLOEXEC 0x1U
#define VFD_CLOFORK 0x2U
#define VFD_HIDDEN  0x4U
#define VFD_FLAGS   (VFD_CLOEXEC | VFD_CLOFORK | VFD_HIDDEN)

/*
 * A slot value: the backing descriptor in bits 4..31, the flags in bits
 * 0..2, and VFD_BUSY while the descriptor is open.  A slot holding a value
 * without VFD_BUSY is a descriptor closed from a signal handler that
 * interrupted a change to the table, waiting for that change to finish
 * before its slot is freed (see vfd_close); lookups treat it as closed.
 * Backing descriptors must stay below 2^28, which the kernel's nr_open
 * (2^20 by default) guarantees unless raised beyond that.
 */
#define VFD_BUSY       0x8U
#define VFD_REAL_SHIFT 4
#define VFD_REAL_MAX   ((1 << 28) - 1)

/* The map of this process.  Exposed only for the inline lookups below. */
extern struct fdmap vfd_map __attribute__((visibility("hidden")));

/*
 * The reverse map: number r holds (virtual descriptor - FD_UNSEQ_BASE + 1)
 * when real descriptor r backs that virtual descriptor, 0 otherwise.  A
 * revmap (revmap.h): it costs only the pages that backing descriptors
 * fall in.
 */
extern struct revmap vfd_backing_map __attribute__((visibility("hidden")));

#endif /* UFD_VFD_SLOT_H */
