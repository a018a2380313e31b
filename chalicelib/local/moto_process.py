"""moto's server in a process of its own, for the local stack: the service's threads (API,
stream poller, delivery and upload pollers) and moto's request handling then run on
different cores instead of sharing one interpreter lock.

    python -m chalicelib.local.moto_process <port>

Prints "ready" once it listens on 127.0.0.1:<port>; stops when its standard input closes
(so it never outlives the process that started it) or on SIGTERM."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading


def main() -> None:
    port = int(sys.argv[1])
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    os.environ.setdefault("AWS_ACCOUNT_ID_ENDPOINT_MODE", "disabled")
    from moto.server import ThreadedMotoServer  # cold start: moto (~100 ms) loads after the environment above is set

    from chalicelib.local import moto_patches  # cold start: it loads moto, after the environment above is set

    moto_patches.apply()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    def stop_when_parent_goes() -> None:
        sys.stdin.read()
        stop.set()

    threading.Thread(target=stop_when_parent_goes, daemon=True).start()
    print("ready", flush=True)
    stop.wait()
    server.stop()


if __name__ == "__main__":
    main()
