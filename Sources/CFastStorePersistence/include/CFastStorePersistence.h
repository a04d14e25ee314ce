#ifndef C_FASTSTORE_PERSISTENCE_H
#define C_FASTSTORE_PERSISTENCE_H

/// The calls FastStorePersistence needs that Swift cannot make: SQLite's
/// variadic `sqlite3_db_config`, its file controls, and the system's
/// exclusive rename (declared only under `_GNU_SOURCE` on Linux, named
/// differently on Apple platforms).

/// Sets whether closing the connection `db` (a `sqlite3 *`) checkpoints the
/// WAL into the database file (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, SQLite
/// 3.28+). Returns SQLite's result code.
int cfaststore_set_checkpoint_on_close(void *db, int enabled);

/// Whether the file the connection `db` (a `sqlite3 *`) opened as its main
/// database is no longer the one its path names now (renamed over, moved,
/// removed): SQLITE_FCNTL_HAS_MOVED (SQLite 3.8.3+), which compares the
/// inode SQLite opened with the path's. Sets `*moved` to 1 or 0; returns
/// SQLite's result code (not SQLITE_OK when the VFS cannot tell).
int cfaststore_file_has_moved(void *db, int *moved);

/// Renames `from` to `to` unless `to` exists (`renameat2` with
/// RENAME_NOREPLACE on Linux, `renamex_np` with RENAME_EXCL on Apple
/// platforms): never replaces a file. Returns 0, or -1 with `errno` set:
/// EEXIST when `to` exists; EINVAL, ENOSYS, ENOTSUP or EOPNOTSUPP when the
/// system or the file system cannot rename exclusively.
int cfaststore_rename_exclusive(const char *from, const char *to);

#endif
