"""Rules about characters, bytes and files that every layer needs."""

import os

PathLike = str | os.PathLike[str]
"""A file's path as the library's functions take it."""
