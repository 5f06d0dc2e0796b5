#ifndef CLMDB_GUARD_H
#define CLMDB_GUARD_H

#include <lmdb.h>
#include <stddef.h>
#include <stdint.h>

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

/* A record read ahead lay outside the bounds it was checked against: the caller looks at it again. */
#define FLOWLOG_GUARD_OUTSIDE (-30701)

/* The most records one call reads ahead. */
#define FLOWLOG_AHEAD_CAPACITY 64

/* Records a cursor read ahead with MDB_NEXT, for walks of a whole database in a read-only
   transaction, whose records all stay where they are until it ends. */
typedef struct {
    MDB_val keys[FLOWLOG_AHEAD_CAPACITY];
    MDB_val values[FLOWLOG_AHEAD_CAPACITY];
    /* Records read; the next one to hand out. */
    int count;
    int next;
    /* What ended the reading: 0 (it read what it was asked for), MDB_NOTFOUND, another LMDB code,
       FLOWLOG_GUARD_FAULT, or FLOWLOG_GUARD_OUTSIDE with that record at keys[count], values[count]. */
    int code;
    /* NULL, or one bit per page of the map's used part (`scanned_pages` of 1 << `page_shift`
       bytes), set (atomically: two threads may share it) for each leaf page that a key read ahead
       lies on and that flowlog_leaf_is_whole finds whole, while the page is at hand. */
    uint64_t *scanned;
    size_t scanned_pages;
    unsigned page_shift;
    /* The page looked at last, plus one; 0 for none. */
    size_t last_scanned;
} flowlog_ahead;

/* Whether the page is a leaf whose free-space bounds hold and whose every node is a key and its
   value with no flags, lying whole in the page past its upper bound, the nodes filling the bytes
   from the upper bound to the page's end exactly (each rounded up to an even number): all the
   structure walk checks of a leaf's nodes (StructureWalk). Reads only inside the page. */
int flowlog_leaf_is_whole(const void *page, size_t page_size);

/* Steps the cursor `wanted` times (at most FLOWLOG_AHEAD_CAPACITY) with MDB_NEXT under one guard,
   checking each key and value against the `used` bytes from `base` (two comparisons each, as
   MapBounds.admits) and stopping at the first that is not inside, at the end, or at an error.
   Fills `ahead` from its start. */
void flowlog_guarded_cursor_read_ahead(MDB_cursor *cursor, flowlog_ahead *ahead, int wanted, uintptr_t base, uintptr_t used);

/* Copies `count` bytes of LMDB's map with SIGSEGV and SIGBUS caught (a file cut short under the
   map, a disk that fails to read): 0, or FLOWLOG_GUARD_FAULT. */
int flowlog_guarded_copy(void *to, const void *from, size_t count);

/* Copies a page of an LMDB data file from LMDB's map for the structure walk, with SIGSEGV and
   SIGBUS caught: 0, or FLOWLOG_GUARD_FAULT. A leaf page (unless `whole_page`) whose free-space
   bounds hold and whose every node is a key and its value with no flags, lying whole in the page
   past its upper bound, is not copied: only its 16-byte header is, and `*filled` is set to the
   bytes its nodes fill, each rounded up to an even number. Otherwise the whole page is copied and
   `*filled` is -1. (LMDB 0.9 on a 64-bit machine: StructureWalk's layout and checks.) */
int flowlog_guarded_copy_page(void *to, const void *from, size_t page_size, int whole_page, long *filled);

#endif
