#ifndef C_FASTSTORE_PERSISTENCE_H
#define C_FASTSTORE_PERSISTENCE_H

/// The one SQLite call FastStorePersistence needs that Swift cannot make:
/// `sqlite3_db_config` is variadic.
///
/// Sets whether closing the connection `db` (a `sqlite3 *`) checkpoints the
/// WAL into the database file (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, SQLite
/// 3.28+). Returns SQLite's result code.
int cfaststore_set_checkpoint_on_close(void *db, int enabled);

#endif
