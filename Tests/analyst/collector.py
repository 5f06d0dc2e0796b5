"""A loopback analytics collector for FlowLog's tests: it records every batch it accepts, one JSON
body a line, and refuses the first FAIL requests with 503 (a collector that fails and recovers).

Usage: python3 collector.py RECORD_FILE FAIL  — prints the port it listens on, then serves until killed.
"""
import http.server
import sys

record_path, failures = sys.argv[1], int(sys.argv[2])


class Collector(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global failures
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if failures > 0:
            failures -= 1
            self.send_response(503)
            self.end_headers()
            return
        with open(record_path, "ab") as record:
            record.write(body + b"\n")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"success":true}')

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Collector)
print(server.server_address[1], flush=True)
server.serve_forever()
