"""Conversions between character offsets, 1-based rows/columns and `ast`'s UTF-8 byte columns."""
from __future__ import annotations

import bisect
import re

from .model import Location, Span

_LINE_END = re.compile(r"\r\n?|\n")


class LineIndex:
    """Maps positions in one text. Rows are 1-based, columns are 1-based characters."""

    def __init__(self, text: str):
        self.text = text
        self._line_starts: list[int] | None = None

    @property
    def line_starts(self) -> list[int]:
        """Offsets where each line starts; computed on first use (most files get no finding)."""
        starts = self.__dict__.get("_line_starts")  # absent in indexes pickled by older versions
        if starts is None:
            starts = [0]
            if "\r" in self.text:  # Python's own line ends: \r\n, a lone \r and \n (as `ast` counts rows)
                starts.extend(m.end() for m in _LINE_END.finditer(self.text))
            else:
                find = self.text.find
                i = find("\n")
                while i != -1:
                    starts.append(i + 1)
                    i = find("\n", i + 1)
            self._line_starts = starts
        return starts

    def location(self, offset: int) -> Location:
        starts = self.__dict__.get("_line_starts") or self.line_starts
        row = bisect.bisect_right(starts, offset)
        return Location(row, offset - starts[row - 1] + 1)

    def offset(self, row: int, column: int) -> int:
        """Character offset of a 1-based (row, column)."""
        row = max(1, min(row, len(self.line_starts)))
        return min(self.line_starts[row - 1] + column - 1, len(self.text))

    def line(self, row: int) -> str:
        """The text of a 1-based row, without its line end."""
        starts = self.line_starts
        start = starts[row - 1]
        if row < len(starts):
            line = self.text[start:starts[row]]
            return line[:-2] if line.endswith("\r\n") else line[:-1]
        return self.text[start:]

    def offset_from_ast(self, lineno: int, col_offset: int) -> int:
        """`ast` columns count UTF-8 bytes; turn them into a character offset."""
        line = self.line(lineno)
        if line.isascii():
            return self.line_starts[lineno - 1] + col_offset
        return self.line_starts[lineno - 1] + len(line.encode("utf-8")[:col_offset].decode("utf-8", "replace"))

    def span(self, start: int, end: int) -> Span:
        return Span(self.location(start), self.location(end), start, end)

    def span_of_node(self, node) -> Span:
        """The span of an `ast` node (needs end positions, Python 3.8+)."""
        start = self.offset_from_ast(node.lineno, node.col_offset)
        end_line = getattr(node, "end_lineno", None) or node.lineno
        end_col = getattr(node, "end_col_offset", None)
        end = self.offset_from_ast(end_line, end_col) if end_col is not None else start
        return self.span(start, end)
