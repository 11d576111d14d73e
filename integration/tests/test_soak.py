"""A 2-minute mixed soak (integration/tests/soak.py): 8 clients on both protocols
with reads, refusals, truncations, timeouts, cancels, transaction blocks,
cursors, failed logins and a reconnect per operation. Every outcome must be
the expected one, airlockd's RSS and descriptors flat after the warm-up,
and nothing left once it stops. bench/soak.sh runs the same for an hour."""

import json

from soak import Soak


def test_two_minute_soak_is_flat():
    r = Soak(120, 8, seed=1).run()
    print(json.dumps(r, indent=2))
    assert r["unexpected"] == [], r["unexpected"]
    assert sum(r["outcomes"].values()) > 300, r["outcomes"]
    # Flat: a few MB of allocator noise at most, no growth with the statements served.
    assert r["rss_kb_max"] - r["rss_kb_after_warmup"] < 8 * 1024, r
    assert r["fds_idle_at_end"] <= r["fds_after_warmup"], r
    assert r["exit_status"] == 0 and r["nothing_left"], r
