/* glibc 2.39's pidfd_getpid, declared as <sys/pidfd.h> declares it. */
extern pid_t pidfd_getpid (int __fd) __THROW;
