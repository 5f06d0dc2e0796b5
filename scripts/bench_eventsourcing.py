"""The Python `eventsourcing` library's PostgreSQL recorder as a peer for `flowlog-bench`'s PostgreSQL cases.

  append FILE BATCH DBNAME HOST PORT SCHEMA
      reads FILE (FlowLog's NDJSON export of the events a FlowLog case wrote), turns each line into a
      StoredEvent (originator id: a UUID of the stream; version; topic: the event's type; state: the
      line's bytes), creates the recorder's table in SCHEMA (a new, empty schema) and appends the
      events with `PostgresApplicationRecorder.insert_events`, BATCH events per call (one transaction
      each, with global notification ids: what FlowLog's positions are), in the file's order.

The recorder runs with `enable_db_functions=True` (one statement a batch, a PL/pgSQL function that
inserts from an array of composite values and notifies), unless PEER_DB_FUNCTIONS=0. Its default path
(psycopg's pipeline mode, `LOCK TABLE … IN EXCLUSIVE MODE` first) hung here with batches of 5,000
events or more: the client polling to read, the server waiting for the client (psycopg 3, eventsourcing
9.5.6, Unix socket); with 1,000-event batches it ran at about the function path's rate.

Prints {"seconds": …, "records": …, "batches": …} for the appends alone (reading and parsing excluded).
Runs in the venv `scripts/bench` makes (.build-pyvenv: PyPI's eventsourcing and psycopg[binary,pool]).
"""
import json
import os
import sys
import time
import uuid

from eventsourcing.persistence import StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore


def append(path, batch, dbname, host, port, schema):
    namespace = uuid.UUID("6f1c6d7e-4c0a-4a53-9a0e-0f1d2c3b4a59")
    ids = {}
    events = []
    with open(path, "rb") as f:
        for line in f:
            record = json.loads(line)
            stream = record["stream"]
            originator = ids.get(stream)
            if originator is None:
                originator = ids[stream] = uuid.uuid5(namespace, stream)
            events.append(StoredEvent(originator_id=originator, originator_version=record["version"],
                                      topic=record["type"], state=line.rstrip(b"\n")))
    datastore = PostgresDatastore(dbname=dbname, host=host, port=port, user="postgres", password="", schema=schema,
                                  enable_db_functions=os.environ.get("PEER_DB_FUNCTIONS", "1") == "1")
    recorder = PostgresApplicationRecorder(datastore)
    recorder.create_table()
    batches = 0
    start = time.perf_counter()
    for first in range(0, len(events), batch):
        recorder.insert_events(events[first:first + batch])
        batches += 1
    seconds = time.perf_counter() - start
    datastore.close()
    return {"seconds": seconds, "records": len(events), "batches": batches}


if __name__ == "__main__":
    if sys.argv[1] != "append":
        sys.exit(f"unknown mode {sys.argv[1]}")
    print(json.dumps(append(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7])))
