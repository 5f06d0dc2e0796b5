"""Raw LMDB baselines for `flowlog-bench`, through python3-lmdb (Debian's package).

  puts FILE DB BATCH   put every line of FILE under its big-endian line number, BATCH puts per
                       durable (synchronous) commit, into a new environment DB
  reads DB             walk every record of DB's main database with a cursor, touching each value
  single DB COUNT      COUNT durable commits of one 120-byte put each
  walk DB NAME         walk every record of the named database NAME of DB (a FlowLog log's `events`)
                       with a cursor, touching each value: the ceiling a whole-log walk works under

Prints {"seconds": …, "records": …} for the work alone (start-up and file reading excluded).
"""
import json
import struct
import sys
import time

import lmdb


def puts(path, db, batch):
    with open(path, "rb") as f:
        lines = f.read().splitlines()
    env = lmdb.open(db, map_size=1 << 34)
    start = time.perf_counter()
    for first in range(0, len(lines), batch):
        with env.begin(write=True) as txn:
            for index in range(first, min(first + batch, len(lines))):
                txn.put(struct.pack(">Q", index + 1), lines[index], append=True)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "records": len(lines)}


def reads(db):
    env = lmdb.open(db, readonly=True, lock=False, map_size=1 << 34)
    start = time.perf_counter()
    total = 0
    count = 0
    with env.begin() as txn:
        for _, value in txn.cursor():
            total += len(value)
            count += 1
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "records": count, "bytes": total}


def walk(db, name):
    env = lmdb.open(db, readonly=True, lock=False, max_dbs=32, map_size=1 << 36)
    table = env.open_db(name.encode(), create=False)
    start = time.perf_counter()
    total = 0
    count = 0
    with env.begin(db=table) as txn:
        for _, value in txn.cursor():
            total += len(value)
            count += 1
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "records": count, "bytes": total}


def single(db, count):
    env = lmdb.open(db, map_size=1 << 30)
    value = b"x" * 120
    start = time.perf_counter()
    for index in range(count):
        with env.begin(write=True) as txn:
            txn.put(struct.pack(">Q", index + 1), value, append=True)
    return {"seconds": time.perf_counter() - start, "records": count}


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "puts":
        result = puts(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif mode == "reads":
        result = reads(sys.argv[2])
    elif mode == "walk":
        result = walk(sys.argv[2], sys.argv[3])
    elif mode == "single":
        result = single(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(f"unknown mode {mode}")
    print(json.dumps(result))
