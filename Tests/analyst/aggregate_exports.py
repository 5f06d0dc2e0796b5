"""Loads FlowLog exports into real analyst tools and prints their aggregates as JSON.

Usage: python3 aggregate_exports.py EXPORT.ndjson EXPORT.csv

DuckDB reads both files with read_json_auto / read_csv_auto and nothing but the file name; pandas
reads the CSV with read_csv(path) and the NDJSON with read_json(path, lines=True), the option pandas
needs for any newline-delimited JSON. The FlowLog test compares every figure with its own.
"""
import json
import sys

import duckdb
import pandas


def duckdb_figures(query_source, event_column, total_expression, name_expression):
    con = duckdb.connect()
    rows = con.execute(
        f"SELECT stream, count(*), sum({total_expression}) FROM {query_source} "
        f"WHERE {event_column} = 'cart.orderPlaced' GROUP BY stream ORDER BY stream"
    ).fetchall()
    types = con.execute(f"SELECT {event_column}, count(*) FROM {query_source} GROUP BY 1 ORDER BY 1").fetchall()
    names = con.execute(
        f"SELECT {name_expression} FROM {query_source} WHERE {event_column} = 'cart.productAdded' ORDER BY position"
    ).fetchall()
    count = con.execute(f"SELECT count(*), count(DISTINCT position) FROM {query_source}").fetchone()
    return {
        "orders": {stream: [int(n), int(revenue)] for stream, n, revenue in rows},
        "types": {event: int(n) for event, n in types},
        "names": ["" if name is None else name for (name,) in names],
        "events": int(count[0]),
        "distinctPositions": int(count[1]),
    }


def pandas_figures(frame, event_column, totals, names):
    orders = frame[frame[event_column] == "cart.orderPlaced"].assign(total=totals)
    grouped = orders.groupby("stream")["total"].agg(["count", "sum"])
    added = frame[frame[event_column] == "cart.productAdded"].sort_values("position")
    return {
        "orders": {stream: [int(row["count"]), int(row["sum"])] for stream, row in grouped.iterrows()},
        "types": {event: int(n) for event, n in frame[event_column].value_counts().sort_index().items()},
        "names": ["" if pandas.isna(name) else name for name in names(added)],
        "events": int(len(frame)),
        "distinctPositions": int(frame["position"].nunique()),
    }


def main():
    ndjson_path, csv_path = sys.argv[1], sys.argv[2]
    ndjson_frame = pandas.read_json(ndjson_path, lines=True)
    csv_frame = pandas.read_csv(csv_path, keep_default_na=False, na_values=[""])
    figures = {
        "duckdb_ndjson": duckdb_figures(f"read_json_auto('{ndjson_path}')", "type", "data.total", "data.name"),
        "duckdb_csv": duckdb_figures(f"read_csv_auto('{csv_path}')", "event", "total", "name"),
        "pandas_ndjson": pandas_figures(
            ndjson_frame, "type",
            lambda orders: orders["data"].map(lambda data: data["total"]),
            lambda added: added["data"].map(lambda data: data["name"])),
        "pandas_csv": pandas_figures(csv_frame, "event", lambda orders: orders["total"], lambda added: added["name"]),
    }
    json.dump(figures, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
