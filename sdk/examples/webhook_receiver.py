#!/usr/bin/env python3
"""A webhook receiver that verifies Service-Signature, standard library only (docs/webhooks.md).

    WEBHOOK_SECRET=whsec_... PORT=4000 python3 webhook_receiver.py

The header is `t=<unix seconds>,v1=<hex>`: the hex is the HMAC-SHA256 of "<t>.<raw body>" keyed with the whole
secret (whsec_ included, UTF-8). Compare in constant time and refuse a t more than 300 s from now.
"""
import hashlib
import hmac
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

TOLERANCE_SECONDS = 300


def verify(raw_body: bytes, header: str, secret: str, now: float | None = None) -> dict:
    """Returns the event when the signature is valid and fresh; raises ValueError otherwise."""
    if not header:
        raise ValueError("no Service-Signature header")
    timestamp, signatures = None, []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t":
            timestamp = value
        elif key == "v1":
            signatures.append(value)
    if timestamp is None or not timestamp.isdigit() or not signatures:
        raise ValueError("malformed Service-Signature header")
    if abs((time.time() if now is None else now) - int(timestamp)) > TOLERANCE_SECONDS:
        raise ValueError("timestamp outside the tolerance")
    signed = timestamp.encode() + b"." + raw_body
    expected = hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()
    if not any(hmac.compare_digest(expected, candidate) for candidate in signatures):
        raise ValueError("signature does not match")
    return json.loads(raw_body)


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            event = verify(raw, self.headers.get("Service-Signature", ""), os.environ["WEBHOOK_SECRET"])
        except ValueError as error:
            self.send_response(400)
            self.end_headers()
            self.wfile.write(str(error).encode())
            return
        # De-duplicate on event["id"], answer 2xx quickly, then act on the event.
        print(f"{event['type']} {event['id']}", flush=True)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format, *args):
        pass


if __name__ == "__main__":
    server = HTTPServer(("127.0.0.1", int(os.environ.get("PORT", "4000"))), Receiver)
    print(f"listening on {server.server_address[1]}", flush=True)
    sys.stdout.flush()
    server.serve_forever()
