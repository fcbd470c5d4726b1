"""Reading input files: regular files only, never blocking, each read once with what it was."""
from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from typing import Optional

# Opening a FIFO for reading blocks until a writer appears, forever in a linted tree; with
# O_NONBLOCK the open returns at once and fstat says what was opened (no effect on regular files).
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(OSError):
    """A FIFO, socket, device or directory where a source file was expected."""

    def __init__(self, path: str):
        super().__init__(errno.EINVAL, "not a regular file", path)


class TooLarge(OSError):
    def __init__(self, path: str, size: int):
        super().__init__(errno.EFBIG, "file is too large", path)
        self.size = size


@dataclass(frozen=True)
class Snapshot:
    """The bytes read from a file and the file's identity when they were read."""

    data: bytes
    size: int
    mtime_ns: int
    digest: str

    def same_as(self, other: "Snapshot") -> bool:
        return (self.size, self.mtime_ns, self.digest) == (other.size, other.mtime_ns, other.digest)


def digest_of(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def is_regular(path: str) -> bool:
    """Does `path` name a regular file (through symlinks)? False for FIFOs, sockets, devices."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_snapshot(path: str, limit: Optional[int] = None) -> Snapshot:
    """Read a regular file once; NotRegularFile for anything else, TooLarge past `limit` bytes.

    The mtime comes from the open descriptor after reading, so it describes the bytes returned.
    """
    data, mtime_ns = _read(path, limit)
    return Snapshot(data, len(data), mtime_ns, digest_of(data))


def read_regular(path: str, limit: Optional[int] = None) -> bytes:
    """The bytes of a regular file (see `read_snapshot`)."""
    return _read(path, limit)[0]


def _read(path: str, limit: Optional[int]) -> tuple[bytes, int]:
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        if error.errno in (errno.ENXIO, errno.EISDIR):  # ENXIO: a Unix socket
            raise NotRegularFile(path) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(path)
        if limit is not None and info.st_size > limit:
            raise TooLarge(path, info.st_size)
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        after = os.fstat(fd)
    finally:
        os.close(fd)
    return b"".join(chunks), after.st_mtime_ns


def declared_encoding(data: bytes) -> Optional[str]:
    """The encoding a Python file declares in a PEP 263 cookie on its first two lines (`# -*- coding: gbk
    -*-`) when it is not UTF-8; None otherwise (no cookie, UTF-8, or one Python does not know)."""
    if b"coding" not in data[:400]:
        return None
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        return None
    return None if encoding in ("utf-8", "utf-8-sig") else encoding


def decode_text(data: bytes, python: bool = False) -> str:
    """The text of a file's bytes: UTF-8 (a BOM dropped), or for a Python file the encoding its coding
    cookie declares, as Python reads it. Raises UnicodeDecodeError."""
    encoding = declared_encoding(data) if python else None
    if encoding is not None:
        return data.decode(encoding)
    return data.decode("utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8")


def encode_text(text: str, before: bytes, python: bool = False) -> bytes:
    """The bytes to write for `text` over a file that held `before`: its BOM kept, and a Python file
    that declares another encoding written in it (UTF-8 otherwise). Raises OSError when the text has a
    character that encoding lacks."""
    encoding = declared_encoding(before) if python else None
    if encoding is not None:
        try:
            return text.encode(encoding)
        except UnicodeEncodeError:
            raise OSError(f"the fixed text has a character the file's declared encoding ({encoding}) lacks") from None
    bom = b"\xef\xbb\xbf" if before.startswith(b"\xef\xbb\xbf") else b""
    return bom + text.encode("utf-8", "surrogatepass")
