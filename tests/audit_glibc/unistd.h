/* The audit's test headers (tests/audit_glibc.sh): audit.py looks for
 * unistd.h to know glibc's headers are here. */
