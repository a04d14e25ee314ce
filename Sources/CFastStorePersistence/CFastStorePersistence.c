#include "CFastStorePersistence.h"
#include <sqlite3.h>

int cfaststore_set_checkpoint_on_close(void *db, int enabled) {
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, enabled ? 0 : 1, (int *)0);
}
