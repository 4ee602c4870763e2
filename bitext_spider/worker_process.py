"""What the crawl's worker processes (page parsing, structure filter) share."""

from __future__ import annotations

import os
import threading
import time


def exit_with_parent(name: str, every: float = 1.0) -> None:
    """End this worker process when the crawl process (its parent) is gone.

    A crawl killed with SIGKILL cannot shut its pool down, and the worker would wait on its task
    queue for ever (it holds that pipe's write end itself, so it never sees end-of-file)."""

    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(0)

    threading.Thread(target=watch, name=name, daemon=True).start()
