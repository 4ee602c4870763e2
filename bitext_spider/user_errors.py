"""Errors in what the user gave (a seeds file, a setting, a database URL): one line, no traceback.

Each message says what is wrong and what to do.  The crawl command and the ``bitext`` command
print it as one line and exit non-zero; every other exception is a bug and keeps its traceback.
"""

from __future__ import annotations


class UserError(Exception):
    """A job that cannot run because of its input; ``str(exc)`` is the one line shown."""


class ConfigError(UserError):
    """A ``BITEXT_*`` setting out of range or of the wrong type."""


class DatabaseError(UserError):
    """The database cannot be opened, created, or written by this process."""
