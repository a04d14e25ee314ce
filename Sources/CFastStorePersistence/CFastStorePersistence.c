#include "CFastStorePersistence.h"
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#if defined(__linux__)
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

int cfaststore_set_checkpoint_on_close(void *db, int enabled) {
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, enabled ? 0 : 1, (int *)0);
}

int cfaststore_file_has_moved(void *db, int *moved) {
    *moved = 0;
    return sqlite3_file_control((sqlite3 *)db, "main", SQLITE_FCNTL_HAS_MOVED, moved);
}

int cfaststore_rename_exclusive(const char *from, const char *to) {
#if defined(__APPLE__)
    return renamex_np(from, to, RENAME_EXCL);
#elif defined(__linux__) && defined(SYS_renameat2)
    // NB: the system call, not glibc's wrapper: glibc declares it only
    // under _GNU_SOURCE, and only from 2.28. RENAME_NOREPLACE is 1.
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1u);
#else
    (void)from;
    (void)to;
    errno = ENOTSUP;
    return -1;
#endif
}
