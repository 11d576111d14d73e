"""mcpwire: drives an MCP server over its stdio JSON-RPC as an agent's host
does: the initialize handshake, then requests, each answered by id. The
server's stdin stays open until every answer came (some servers shut down
at end of input before they answer)."""

import json
import subprocess
import threading


def run(argv, requests, env=None, timeout=120):
    """Starts argv, sends the handshake and requests [(method, params)]; returns the responses by id."""
    msgs = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2024-11-05", "capabilities": {},
                    "clientInfo": {"name": "airlock-test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    for i, (method, params) in enumerate(requests, start=1):
        msgs.append({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    timer = threading.Timer(timeout, proc.kill)
    out = {}
    timer.start()
    try:
        # One at a time: a server may read its next request only after answering the last.
        proc.stdin.write(json.dumps(msgs[0]) + "\n" + json.dumps(msgs[1]) + "\n")
        proc.stdin.flush()
        pending = msgs[2:]
        want = 0
        while len(out) < len(requests) + 1:
            line = proc.stdout.readline()
            if not line:
                break
            if not line.startswith("{"):
                continue
            msg = json.loads(line)
            if "id" not in msg:
                continue
            out[msg["id"]] = msg
            if msg["id"] == want and pending:
                nxt = pending.pop(0)
                want = nxt["id"]
                proc.stdin.write(json.dumps(nxt) + "\n")
                proc.stdin.flush()
    finally:
        timer.cancel()
        proc.kill()
        err = proc.stderr.read() if proc.stderr else ""
        proc.wait(timeout=10)
    assert len(out) == len(requests) + 1, (out, err[-2000:])
    return out


def text(resp):
    """The text of a tools/call result (its content parts joined)."""
    return "".join(c.get("text", "") for c in resp["result"]["content"])
