/* SPDX-License-Identifier: MIT */
/*
 * syscall_nr.h - the numbers of the system calls that syscall() looks at
 * (shim_syscall.c, shim_sysdata.c), for each architecture ufd supports,
 * taken from the kernel's own tables (Linux 6.18: x86-64's syscall_64.tbl,
 * aarch64's generic scripts/syscall.tbl), not from the libc headers of the
 * build: glibc 2.36's have no SYS_fchmodat2, and syscall(452, dirfd, ...)
 * must be translated all the same.  tests/syscall_table.py checks every
 * number here against the copies of those tables in tests/syscalls/, and
 * that every kernel call taking or making a descriptor is here (or in
 * tests/syscalls/untranslated.txt with its reason).
 */
#ifndef UFD_SYSCALL_NR_H
#define UFD_SYSCALL_NR_H

#if defined(__x86_64__) && !defined(__ILP32__)
#define UFD_NR(x86_64, generic) (x86_64)
#elif defined(__aarch64__)
#define UFD_NR(x86_64, generic) (generic)
#else
#error "ufd knows the system call numbers of x86-64 and aarch64 only"
#endif

/*				  x86-64, generic (aarch64) */
/* routed to their wrappers, or handled in syscall() itself */
#define UFD_NR_close                   UFD_NR(3, 57)
#define UFD_NR_close_range             UFD_NR(436, 436)
#define UFD_NR_dup                     UFD_NR(32, 23)
#define UFD_NR_dup3                    UFD_NR(292, 24)
#define UFD_NR_pidfd_getfd             UFD_NR(438, 438)
#define UFD_NR_fcntl                   UFD_NR(72, 25)
#define UFD_NR_ioctl                   UFD_NR(16, 29)
#define UFD_NR_openat                  UFD_NR(257, 56)
#define UFD_NR_socket                  UFD_NR(41, 198)
#define UFD_NR_socketpair              UFD_NR(53, 199)
#define UFD_NR_accept                  UFD_NR(43, 202)
#define UFD_NR_accept4                 UFD_NR(288, 242)
#define UFD_NR_pipe2                   UFD_NR(293, 59)
#define UFD_NR_recvmsg                 UFD_NR(47, 212)
#define UFD_NR_recvmmsg                UFD_NR(299, 243)
#define UFD_NR_sendmsg                 UFD_NR(46, 211)
#define UFD_NR_sendmmsg                UFD_NR(307, 269)
#define UFD_NR_getsockopt              UFD_NR(55, 209)
#define UFD_NR_setsockopt              UFD_NR(54, 208)
#define UFD_NR_ppoll                   UFD_NR(271, 73)
#define UFD_NR_pselect6                UFD_NR(270, 72)
#define UFD_NR_signalfd4               UFD_NR(289, 74)
#define UFD_NR_rt_sigaction            UFD_NR(13, 134)
#define UFD_NR_rt_sigtimedwait         UFD_NR(128, 137)
#define UFD_NR_waitid                  UFD_NR(247, 95)
#define UFD_NR_prlimit64               UFD_NR(302, 261)
#define UFD_NR_getrlimit               UFD_NR(97, 163)
#define UFD_NR_setrlimit               UFD_NR(160, 164)
#define UFD_NR_clone                   UFD_NR(56, 220)
#define UFD_NR_clone3                  UFD_NR(435, 435)
#define UFD_NR_fsconfig                UFD_NR(431, 431)
#define UFD_NR_keyctl                  UFD_NR(250, 219)
#define UFD_NR_prctl                   UFD_NR(157, 167)

/* descriptors inside structures (shim_sysdata.c) */
#define UFD_NR_bpf                     UFD_NR(321, 280)
#define UFD_NR_io_uring_register       UFD_NR(427, 427)
#define UFD_NR_landlock_add_rule       UFD_NR(445, 445)
#define UFD_NR_statmount               UFD_NR(457, 457)
#define UFD_NR_listmount               UFD_NR(458, 458)
#define UFD_NR_kcmp                    UFD_NR(312, 272)

/* make a descriptor (syscall_made_fd) */
#define UFD_NR_eventfd2                UFD_NR(290, 19)
#define UFD_NR_epoll_create1           UFD_NR(291, 20)
#define UFD_NR_inotify_init1           UFD_NR(294, 26)
#define UFD_NR_timerfd_create          UFD_NR(283, 85)
#define UFD_NR_memfd_create            UFD_NR(319, 279)
#define UFD_NR_fanotify_init           UFD_NR(300, 262)
#define UFD_NR_pidfd_open              UFD_NR(434, 434)
#define UFD_NR_open_by_handle_at       UFD_NR(304, 265)
#define UFD_NR_userfaultfd             UFD_NR(323, 282)
#define UFD_NR_memfd_secret            UFD_NR(447, 447)
#define UFD_NR_perf_event_open         UFD_NR(298, 241)
#define UFD_NR_fsopen                  UFD_NR(430, 430)
#define UFD_NR_fsmount                 UFD_NR(432, 432)
#define UFD_NR_fspick                  UFD_NR(433, 433)
#define UFD_NR_open_tree               UFD_NR(428, 428)
#define UFD_NR_open_tree_attr          UFD_NR(467, 467)
#define UFD_NR_openat2                 UFD_NR(437, 437)
#define UFD_NR_seccomp                 UFD_NR(317, 277)
#define UFD_NR_io_uring_setup          UFD_NR(425, 425)
#define UFD_NR_mq_open                 UFD_NR(240, 180)
#define UFD_NR_landlock_create_ruleset UFD_NR(444, 444)

/* descriptor arguments translated (syscall_fd_args) */
#define UFD_NR_read                    UFD_NR(0, 63)
#define UFD_NR_write                   UFD_NR(1, 64)
#define UFD_NR_pread64                 UFD_NR(17, 67)
#define UFD_NR_pwrite64                UFD_NR(18, 68)
#define UFD_NR_readv                   UFD_NR(19, 65)
#define UFD_NR_writev                  UFD_NR(20, 66)
#define UFD_NR_preadv                  UFD_NR(295, 69)
#define UFD_NR_pwritev                 UFD_NR(296, 70)
#define UFD_NR_preadv2                 UFD_NR(327, 286)
#define UFD_NR_pwritev2                UFD_NR(328, 287)
#define UFD_NR_lseek                   UFD_NR(8, 62)
#define UFD_NR_fstat                   UFD_NR(5, 80)
#define UFD_NR_fstatfs                 UFD_NR(138, 44)
#define UFD_NR_fsync                   UFD_NR(74, 82)
#define UFD_NR_fdatasync               UFD_NR(75, 83)
#define UFD_NR_syncfs                  UFD_NR(306, 267)
#define UFD_NR_ftruncate               UFD_NR(77, 46)
#define UFD_NR_fallocate               UFD_NR(285, 47)
#define UFD_NR_fadvise64               UFD_NR(221, 223)
#define UFD_NR_readahead               UFD_NR(187, 213)
#define UFD_NR_flock                   UFD_NR(73, 32)
#define UFD_NR_fchmod                  UFD_NR(91, 52)
#define UFD_NR_fchown                  UFD_NR(93, 55)
#define UFD_NR_fchdir                  UFD_NR(81, 50)
#define UFD_NR_getdents64              UFD_NR(217, 61)
#define UFD_NR_sendto                  UFD_NR(44, 206)
#define UFD_NR_recvfrom                UFD_NR(45, 207)
#define UFD_NR_bind                    UFD_NR(49, 200)
#define UFD_NR_connect                 UFD_NR(42, 203)
#define UFD_NR_listen                  UFD_NR(50, 201)
#define UFD_NR_shutdown                UFD_NR(48, 210)
#define UFD_NR_getsockname             UFD_NR(51, 204)
#define UFD_NR_getpeername             UFD_NR(52, 205)
#define UFD_NR_epoll_pwait             UFD_NR(281, 22)
#define UFD_NR_epoll_pwait2            UFD_NR(441, 441)
#define UFD_NR_epoll_ctl               UFD_NR(233, 21)
#define UFD_NR_inotify_add_watch       UFD_NR(254, 27)
#define UFD_NR_inotify_rm_watch        UFD_NR(255, 28)
#define UFD_NR_timerfd_settime         UFD_NR(286, 86)
#define UFD_NR_timerfd_gettime         UFD_NR(287, 87)
#define UFD_NR_fgetxattr               UFD_NR(193, 10)
#define UFD_NR_fsetxattr               UFD_NR(190, 7)
#define UFD_NR_flistxattr              UFD_NR(196, 13)
#define UFD_NR_fremovexattr            UFD_NR(199, 16)
#define UFD_NR_sync_file_range         UFD_NR(277, 84)
#define UFD_NR_vmsplice                UFD_NR(278, 75)
#define UFD_NR_pidfd_send_signal       UFD_NR(424, 424)
#define UFD_NR_setns                   UFD_NR(308, 268)
#define UFD_NR_mkdirat                 UFD_NR(258, 34)
#define UFD_NR_mknodat                 UFD_NR(259, 33)
#define UFD_NR_fchownat                UFD_NR(260, 54)
#define UFD_NR_newfstatat              UFD_NR(262, 79)
#define UFD_NR_unlinkat                UFD_NR(263, 35)
#define UFD_NR_readlinkat              UFD_NR(267, 78)
#define UFD_NR_fchmodat                UFD_NR(268, 53)
#define UFD_NR_faccessat               UFD_NR(269, 48)
#define UFD_NR_faccessat2              UFD_NR(439, 439)
#define UFD_NR_utimensat               UFD_NR(280, 88)
#define UFD_NR_statx                   UFD_NR(332, 291)
#define UFD_NR_name_to_handle_at       UFD_NR(303, 264)
#define UFD_NR_execveat                UFD_NR(322, 281)
#define UFD_NR_mount_setattr           UFD_NR(442, 442)
#define UFD_NR_finit_module            UFD_NR(313, 273)
#define UFD_NR_mq_timedsend            UFD_NR(242, 182)
#define UFD_NR_mq_timedreceive         UFD_NR(243, 183)
#define UFD_NR_mq_notify               UFD_NR(244, 184)
#define UFD_NR_mq_getsetattr           UFD_NR(245, 185)
#define UFD_NR_io_uring_enter          UFD_NR(426, 426)
#define UFD_NR_landlock_restrict_self  UFD_NR(446, 446)
#define UFD_NR_process_madvise         UFD_NR(440, 440)
#define UFD_NR_process_mrelease        UFD_NR(448, 448)
#define UFD_NR_quotactl_fd             UFD_NR(443, 443)
#define UFD_NR_cachestat               UFD_NR(451, 451)
#define UFD_NR_fchmodat2               UFD_NR(452, 452)
#define UFD_NR_setxattrat              UFD_NR(463, 463)
#define UFD_NR_getxattrat              UFD_NR(464, 464)
#define UFD_NR_listxattrat             UFD_NR(465, 465)
#define UFD_NR_removexattrat           UFD_NR(466, 466)
#define UFD_NR_file_getattr            UFD_NR(468, 468)
#define UFD_NR_file_setattr            UFD_NR(469, 469)
#define UFD_NR_symlinkat               UFD_NR(266, 36)
#define UFD_NR_mmap                    UFD_NR(9, 222)
#define UFD_NR_sendfile                UFD_NR(40, 71)
#define UFD_NR_tee                     UFD_NR(276, 77)
#define UFD_NR_kexec_file_load         UFD_NR(320, 294)
#define UFD_NR_splice                  UFD_NR(275, 76)
#define UFD_NR_copy_file_range         UFD_NR(326, 285)
#define UFD_NR_renameat2               UFD_NR(316, 276)
#define UFD_NR_linkat                  UFD_NR(265, 37)
#define UFD_NR_move_mount              UFD_NR(429, 429)
#define UFD_NR_fanotify_mark           UFD_NR(301, 263)
#define UFD_NR_renameat                UFD_NR(264, 38)

/* Only on x86-64: the generic table (aarch64) has their successors
 * (openat, pipe2, dup3, ppoll, pselect6, getdents64...) only. */
#ifdef __x86_64__
#define UFD_NR_open                    2
#define UFD_NR_creat                   85
#define UFD_NR_pipe                    22
#define UFD_NR_dup2                    33
#define UFD_NR_epoll_create            213
#define UFD_NR_inotify_init            253
#define UFD_NR_eventfd                 284
#define UFD_NR_signalfd                282
#define UFD_NR_poll                    7
#define UFD_NR_select                  23
#define UFD_NR_getdents                78
#define UFD_NR_epoll_wait              232
#define UFD_NR_futimesat               261
#endif

#endif
