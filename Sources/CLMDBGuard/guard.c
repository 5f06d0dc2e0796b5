#include "CLMDBGuard.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>

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
        count = count + 1;
    }
    armed = NULL;
    ahead->count = count;
    ahead->code = code;
}
