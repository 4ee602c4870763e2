"""What every matching stage shares: the crawl's runtime, and being off when BITEXT_ENABLED is."""

from __future__ import annotations

import os
import threading
import time
from typing import Any, TypeVar

from scrapy.exceptions import NotConfigured

from bitext_spider.runtime import BitextRuntime

_Stage = TypeVar("_Stage", bound="MatchingStage")


class MatchingStage:
    """Base of the matching pipelines; a user's own filter can subclass it too (docs/design.md)."""

    def __init__(self, runtime: BitextRuntime) -> None:
        self.runtime = runtime
        self.config = runtime.config
        self.stats = runtime.stats
        # What the page-only steps read (matchers.page_parse), for stages that run them here.
        self.parse_options = runtime.config.parse_options()

    @classmethod
    def from_crawler(cls: type[_Stage], crawler: Any) -> _Stage:
        runtime = BitextRuntime.of(crawler)
        if not runtime.config.enabled:
            raise NotConfigured("BITEXT_ENABLED is off")
        return cls(runtime)


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
