"""One writer per embedded index: an OS lock on the data directory.

SQLite serialises single transactions, but a read-decide-write cycle spans several: two
processes writing one index both "see" no near-duplicate of a posting the other is writing
at the same moment (12 of 300 near-duplicate pairs posted across two `serve` on one data dir
stayed unlinked). The in-process writer lock cannot see another process, so the data
directory carries `writer.lock`, held with `flock` for the life of the store. The kernel
releases it when the holder exits, however it exits (kill -9 included), so a crash never
leaves a stale lock behind. The file names the holder (pid and command) for the message of
the refused process. Readers (`export`) take no lock: WAL lets them read beside the writer.
"""

from __future__ import annotations

import fcntl
import os
import sys
from pathlib import Path

from indexer.store import StoreError

LOCK_FILE = "writer.lock"


class DataDirInUse(StoreError):
    """Another process writes this embedded index."""


class DataDirLock:
    """An exclusive, non-blocking `flock` on `directory/writer.lock` (raises DataDirInUse)."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / LOCK_FILE
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd)
            os.close(fd)
            raise DataDirInUse(
                f"{directory} is written by another process ({holder or 'holder unknown'}); "
                "one writer per embedded index: stop it, or use another JOBDEDUP_DATA_DIR"
            ) from None
        except OSError:
            os.close(fd)
            raise
        self._fd: int | None = fd
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}: {' '.join(sys.argv)[:500]}\n".encode(), 0)

    def release(self) -> None:
        """Drop the lock (idempotent); the file stays, naming nobody once truncated."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
        finally:
            os.close(fd)  # closing the descriptor releases the flock


def _read(fd: int) -> str:
    try:
        return os.pread(fd, 600, 0).decode("utf-8", "replace").strip()
    except OSError:
        return ""
