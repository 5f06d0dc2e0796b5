#ifndef CLMDB_GUARD_H
#define CLMDB_GUARD_H

#include <lmdb.h>

/* LMDB trusts its pages: some damaged ones make it fault inside its own code (a node flagged as
   holding duplicates in a database without them is followed to a cursor that does not exist), where
   no check of FlowLog's can come first. These calls run LMDB's with SIGSEGV and SIGBUS caught on
   this thread, and return FLOWLOG_GUARD_FAULT instead of dying. Only reads go through them: a
   read transaction changes nothing that jumping out of LMDB could leave half done, and its caller
   aborts it on the error. */

/* Outside LMDB's own codes (MDB_KEYEXIST -30799 through MDB_LAST_ERRCODE -30780). */
#define FLOWLOG_GUARD_FAULT (-30700)

/* Installs the handlers once per process; signals on threads not inside a guarded call go to the
   handlers that were there before. */
void flowlog_guard_install(void);

int flowlog_guarded_cursor_get(MDB_cursor *cursor, MDB_val *key, MDB_val *data, MDB_cursor_op op);
int flowlog_guarded_get(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data);

#endif
