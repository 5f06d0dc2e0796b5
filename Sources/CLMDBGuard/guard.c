#include "CLMDBGuard.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>

/* The jump back into the guarded call running on this thread, if any. */
static __thread sigjmp_buf *armed;
static struct sigaction previous_segv, previous_bus;
static pthread_once_t installed = PTHREAD_ONCE_INIT;

static void handle(int signal_number, siginfo_t *info, void *context) {
    sigjmp_buf *jump = armed;
    if (jump != NULL) {
        armed = NULL;
        siglongjmp(*jump, 1);
    }
    /* Not a guarded call's: what was there before handles it (the Swift runtime's backtrace, or
       the default action once the faulting instruction runs again). */
    struct sigaction *previous = signal_number == SIGBUS ? &previous_bus : &previous_segv;
    if ((previous->sa_flags & SA_SIGINFO) && previous->sa_sigaction != NULL) {
        previous->sa_sigaction(signal_number, info, context);
    } else if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN) {
        previous->sa_handler(signal_number);
    } else {
        sigaction(signal_number, previous, NULL);
    }
}

static void install(void) {
    struct sigaction action;
    action.sa_sigaction = handle;
    sigemptyset(&action.sa_mask);
    /* SA_NODEFER: the jump leaves the handler for good, so the signal must not stay blocked. */
    action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigaction(SIGSEGV, &action, &previous_segv);
    sigaction(SIGBUS, &action, &previous_bus);
}

void flowlog_guard_install(void) { pthread_once(&installed, install); }

int flowlog_guarded_cursor_get(MDB_cursor *cursor, MDB_val *key, MDB_val *data, MDB_cursor_op op) {
    sigjmp_buf jump;
    /* No signal mask saved: that would be a system call on every read. */
    if (sigsetjmp(jump, 0) != 0) return FLOWLOG_GUARD_FAULT;
    armed = &jump;
    int code = mdb_cursor_get(cursor, key, data, op);
    armed = NULL;
    return code;
}

int flowlog_guarded_get(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data) {
    sigjmp_buf jump;
    if (sigsetjmp(jump, 0) != 0) return FLOWLOG_GUARD_FAULT;
    armed = &jump;
    int code = mdb_get(txn, dbi, key, data);
    armed = NULL;
    return code;
}

static long plain_leaf_filled(const unsigned char *page, size_t page_size);

static inline int inside(const MDB_val *part, uintptr_t base, uintptr_t used) {
    uintptr_t offset = (uintptr_t)part->mv_data - base;
    return offset <= used && part->mv_size <= used - offset;
}

void flowlog_guarded_cursor_read_ahead(MDB_cursor *cursor, flowlog_ahead *ahead, int wanted, uintptr_t base, uintptr_t used) {
    sigjmp_buf jump;
    /* volatile: read again after a jump back, which may not keep what sat in registers. */
    volatile int count = 0;
    ahead->count = 0;
    ahead->next = 0;
    ahead->code = 0;
    if (wanted > FLOWLOG_AHEAD_CAPACITY) wanted = FLOWLOG_AHEAD_CAPACITY;
    if (sigsetjmp(jump, 0) != 0) {
        ahead->count = count;
        ahead->code = FLOWLOG_GUARD_FAULT;
        return;
    }
    armed = &jump;
    int code = 0;
    while (count < wanted) {
        MDB_val *key = &ahead->keys[count], *value = &ahead->values[count];
        code = mdb_cursor_get(cursor, key, value, MDB_NEXT);
        if (code != 0) break;
        if (!inside(key, base, used) || !inside(value, base, used)) {
            code = FLOWLOG_GUARD_OUTSIDE;
            break;
        }
        if (ahead->scanned != NULL) {
            /* A key lies in its leaf page, which LMDB has just read. */
            size_t page = ((uintptr_t)key->mv_data - base) >> ahead->page_shift;
            if (page + 1 != ahead->last_scanned && page < ahead->scanned_pages) {
                ahead->last_scanned = page + 1;
                if (flowlog_leaf_is_whole((const unsigned char *)base + (page << ahead->page_shift), (size_t)1 << ahead->page_shift)) {
                    __atomic_fetch_or(&ahead->scanned[page >> 6], (uint64_t)1 << (page & 63), __ATOMIC_RELAXED);
                }
            }
        }
        count = count + 1;
    }
    armed = NULL;
    ahead->count = count;
    ahead->code = code;
}

int flowlog_guarded_copy(void *to, const void *from, size_t count) {
    sigjmp_buf jump;
    if (sigsetjmp(jump, 0) != 0) return FLOWLOG_GUARD_FAULT;
    armed = &jump;
    memcpy(to, from, count);
    armed = NULL;
    return 0;
}

static inline unsigned load16(const unsigned char *at) {
    uint16_t value;
    memcpy(&value, at, 2);
    return value;
}

/* The sum of the bytes a leaf's nodes fill when each is a plain key and value lying whole in the
   page past `upper`; -1 when any is not (the walk then looks at the page node by node). */
static long plain_leaf_filled(const unsigned char *page, size_t page_size) {
    unsigned flags = load16(page + 10), lower = load16(page + 12), upper = load16(page + 14);
    if ((flags & 0x6F) != 0x02 || lower < 16 || lower % 2 != 0 || lower > upper || upper > page_size) return -1;
    long filled = 0;
    for (unsigned at = 16; at < lower; at += 2) {
        size_t node = load16(page + at);
        if (node < upper || node + 8 > page_size || load16(page + node + 4) != 0) return -1;
        size_t whole = 8 + (size_t)load16(page + node + 6) + load16(page + node) + ((size_t)load16(page + node + 2) << 16);
        if (node + whole > page_size) return -1;
        filled += (long)((whole + 1) & ~(size_t)1);
    }
    return filled;
}

int flowlog_leaf_is_whole(const void *page, size_t page_size) {
    long filled = plain_leaf_filled(page, page_size);
    return filled >= 0 && (size_t)filled == page_size - load16((const unsigned char *)page + 14);
}

int flowlog_guarded_copy_page(void *to, const void *from, size_t page_size, int whole_page, long *filled) {
    sigjmp_buf jump;
    if (sigsetjmp(jump, 0) != 0) return FLOWLOG_GUARD_FAULT;
    armed = &jump;
    long sum = whole_page ? -1 : plain_leaf_filled(from, page_size);
    memcpy(to, from, sum < 0 ? page_size : 16);
    armed = NULL;
    *filled = sum;
    return 0;
}
