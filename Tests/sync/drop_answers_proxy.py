#!/usr/bin/env python3
"""A loopback HTTP proxy that loses answers: every Nth POST is forwarded to the server, which
commits it, and then the client's connection is closed without a word, as when a phone loses its
network between sending a batch and hearing back. Used by FlowLogCLITests' push tests.

    drop_answers_proxy.py UPSTREAM_PORT PORT_FILE [--every N]

Writes the port it listens on to PORT_FILE, then serves until killed; each dropped answer is
counted on a line of PORT_FILE.dropped.
"""
import argparse
import http.client
import http.server
import sys
import threading

parser = argparse.ArgumentParser()
parser.add_argument("upstream", type=int)
parser.add_argument("port_file")
parser.add_argument("--every", type=int, default=4)
args = parser.parse_args()

lock = threading.Lock()
posts = 0


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def forward(self):
        global posts
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
        try:
            upstream = http.client.HTTPConnection("127.0.0.1", args.upstream, timeout=60)
            upstream.request(self.command, self.path, body=body, headers=headers)
            answer = upstream.getresponse()
            data = answer.read()
        except OSError:
            self.send_response(502)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        drop = False
        if self.command == "POST":
            with lock:
                posts += 1
                drop = posts % args.every == 0
        if drop:
            # The server committed; the client never hears of it.
            with open(args.port_file + ".dropped", "a") as dropped:
                dropped.write(self.path + "\n")
            self.close_connection = True
            return
        self.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = forward
    do_POST = forward


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(args.port_file, "w") as port_file:
    port_file.write(str(server.server_address[1]))
sys.stdout.flush()
server.serve_forever()
