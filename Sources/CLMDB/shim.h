#include <lmdb.h>

/* Linux's sync_file_range(2) (Environment.DataFile.startWriteback), declared here because glibc
   declares it only under _GNU_SOURCE. */
extern int sync_file_range(int fd, long offset, long nbytes, unsigned int flags);
